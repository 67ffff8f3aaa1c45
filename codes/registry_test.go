package codes_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcperr/mcperr/codes"
)

var funds = codes.Info{Code: "INSUFFICIENT_FUNDS", Category: codes.Business, Description: "The balance is too low."}

func TestNewRegistry(t *testing.T) {
	gateway := codes.Info{Code: "PAYMENT_GATEWAY_DOWN", Category: codes.Server, Retryable: true}
	r, err := codes.NewRegistry(funds, gateway)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []codes.Info{funds, gateway} {
		if got, ok := r.Lookup(in.Code); !ok || got != in {
			t.Errorf("Lookup(%s) = %+v, %v, want %+v", in.Code, got, ok, in)
		}
	}
	if _, ok := r.Lookup("UNKNOWN_CODE"); ok {
		t.Error("Lookup found a code never registered")
	}
	if _, ok := (*codes.Registry)(nil).Lookup(funds.Code); ok {
		t.Error("a nil Registry knows an application's code")
	}
	var zero codes.Registry
	if _, ok := zero.Lookup(funds.Code); ok {
		t.Error("the zero Registry knows an application's code")
	}
	empty, err := codes.NewRegistry()
	if err != nil || empty == nil {
		t.Fatalf("NewRegistry() = %v, %v", empty, err)
	}
	if _, ok := empty.Lookup(codes.NotFound); !ok {
		t.Error("NewRegistry() does not know the built-in codes")
	}
}

// TestNewRegistryIsImmutable checks that the registry keeps what it was
// given, not the caller's slice.
func TestNewRegistryIsImmutable(t *testing.T) {
	infos := []codes.Info{funds}
	r, err := codes.NewRegistry(infos...)
	if err != nil {
		t.Fatal(err)
	}
	infos[0].Description = "changed"
	infos[0].Category = codes.Server
	if got, _ := r.Lookup(funds.Code); got != funds {
		t.Errorf("Lookup after the caller changed its slice = %+v, want %+v", got, funds)
	}
}

func TestNewRegistryRefuses(t *testing.T) {
	tests := []struct {
		name    string
		infos   []codes.Info
		mistake codes.Mistake
		subject string
		says    string
	}{
		{"malformed", []codes.Info{{Code: "insufficient-funds", Category: codes.Business}}, codes.InvalidCode, "insufficient-funds", "UPPER_SNAKE"},
		{"empty", []codes.Info{{Category: codes.Business}}, codes.InvalidCode, "", "empty"},
		{"too long", []codes.Info{{Code: codes.Code(strings.Repeat("A", 65)), Category: codes.Business}}, codes.InvalidCode, strings.Repeat("A", 65), "at most 64"},
		{"no category", []codes.Info{{Code: "NO_CATEGORY"}}, codes.InvalidCode, "NO_CATEGORY", "category"},
		{"built in", []codes.Info{{Code: codes.NotFound, Category: codes.Client}}, codes.DuplicateCode, "NOT_FOUND", "built in"},
		{"given twice", []codes.Info{funds, {Code: "A_B", Category: codes.Client}, funds}, codes.DuplicateCode, "INSUFFICIENT_FUNDS", "given twice"},
		{"bad after good", []codes.Info{funds, {Code: "bad"}}, codes.InvalidCode, "bad", "UPPER_SNAKE"},
		{"negative delay", []codes.Info{{Code: "SLOW", Category: codes.Server, Retryable: true, RetryAfter: -time.Second}}, codes.InvalidCode, "SLOW", "negative"},
		{"delay without retryable", []codes.Info{{Code: "SLOW", Category: codes.Server, RetryAfter: time.Second}}, codes.InvalidCode, "SLOW", "Retryable is false"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := codes.NewRegistry(tt.infos...)
			var de *codes.DefinitionError
			if !errors.As(err, &de) || de.Mistake != tt.mistake || de.Subject != tt.subject || !strings.Contains(de.Reason, tt.says) {
				t.Fatalf("NewRegistry = %v, want %s about %q saying %q", err, tt.mistake, tt.subject, tt.says)
			}
			if r != nil {
				t.Fatal("NewRegistry returned a registry with its error")
			}
		})
	}
}

// TestDocURL checks which documentation URLs a registration accepts: an
// absolute http or https URL with a lower-case scheme, a host, and no
// space or control character, which is what the envelope's schema
// (^https?://[^\s]+$) accepts. A URL refused here would make every envelope
// of the code invalid.
func TestDocURL(t *testing.T) {
	good := []string{
		"https://docs.example.com/errors#DOCS",
		"http://example.com",
		"https://example.com:8443/a/b?c=d&e=%20f#g",
		"https://[::1]/errors",
	}
	bad := []string{
		"/errors#DOCS",
		"errors.html",
		"javascript:alert(1)",
		"ftp://example.com/errors",
		"mailto:docs@example.com",
		"HTTPS://example.com/errors",
		"Https://example.com/errors",
		"HTTP://example.com/errors",
		"https://exa mple.com/errors",
		"https://example.com/errors page",
		"https://example.com/errors\tpage",
		"https://example.com/\n",
		"https://example.com/\x7f",
		"https://example.com/\x00",
		" https://example.com/errors",
		"https://example.com/errors ",
		"https://",
		"https:///errors",
		"https://?q=1",
		"https://#DOCS",
		"https:/example.com",
		"https:example.com",
		"//example.com/errors",
	}
	for _, u := range good {
		r, err := codes.NewRegistry(codes.Info{Code: "DOCS", Category: codes.Client, DocURL: u})
		if err != nil {
			t.Errorf("DocURL %q refused: %v", u, err)
			continue
		}
		if in, _ := r.Lookup("DOCS"); in.DocURL != u {
			t.Errorf("DocURL %q kept as %q", u, in.DocURL)
		}
	}
	for _, u := range bad {
		_, err := codes.NewRegistry(codes.Info{Code: "DOCS", Category: codes.Client, DocURL: u})
		var de *codes.DefinitionError
		if !errors.As(err, &de) || de.Mistake != codes.InvalidCode || de.Subject != "DOCS" || !strings.Contains(de.Reason, "absolute http or https") {
			t.Errorf("DocURL %q: NewRegistry = %v, want an INVALID_CODE definition error", u, err)
		}
	}
}

func TestNewRegistryKeepsDelayAndDocURL(t *testing.T) {
	in := codes.Info{Code: "LEDGER_BUSY", Category: codes.Server, Retryable: true, RetryAfter: 30 * time.Second,
		DocURL: "https://docs.example.com/errors#LEDGER_BUSY"}
	r, err := codes.NewRegistry(in)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := r.Lookup("LEDGER_BUSY"); got != in {
		t.Errorf("Lookup = %+v, want %+v", got, in)
	}
}

// TestRegistryConcurrent reads one registry from many goroutines, for the
// race detector.
func TestRegistryConcurrent(t *testing.T) {
	infos := make([]codes.Info, 8)
	for i := range infos {
		infos[i] = codes.Info{Code: codes.Code(fmt.Sprintf("CODE_%d", i)), Category: codes.Client}
	}
	r, err := codes.NewRegistry(infos...)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := infos[i%len(infos)].Code
			if got, ok := r.Lookup(c); !ok || got.Code != c {
				errs <- fmt.Sprintf("Lookup(%s) = %+v, %v", c, got, ok)
			}
			if _, ok := r.Lookup(codes.NotFound); !ok {
				errs <- "Lookup(NOT_FOUND) failed"
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestDocURLUnicodeSpaces checks the spaces and control characters outside
// ASCII: the envelope schema's pattern ^https?://[^\s]+$, read by an
// ECMA-262 validator (as JSON Schema says, and as the TypeScript SDK's
// ajv does), refuses every Unicode space and line separator in a docUrl.
func TestDocURLUnicodeSpaces(t *testing.T) {
	for _, u := range []string{
		"https://example.com/a\u00a0b", // no-break space
		"https://example.com/a\u2028b", // line separator
		"https://example.com/a\u3000b", // ideographic space
		"https://example.com/a\ufeffb", // zero width no-break space
		"https://example.com/a\u0085b", // next line, a C1 control character
	} {
		_, err := codes.NewRegistry(codes.Info{Code: "DOCS", Category: codes.Client, DocURL: u})
		var de *codes.DefinitionError
		if !errors.As(err, &de) || de.Mistake != codes.InvalidCode {
			t.Errorf("DocURL %q: NewRegistry = %v, want an INVALID_CODE definition error", u, err)
		}
	}
}
