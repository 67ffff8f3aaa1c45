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

func TestRegister(t *testing.T) {
	r, err := codes.NewRegistry(funds)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := r.Lookup("INSUFFICIENT_FUNDS"); !ok || got != funds {
		t.Fatalf("Lookup = %v, %v", got, ok)
	}
	if _, ok := r.Lookup("UNKNOWN_CODE"); ok {
		t.Fatal("Lookup found a code never registered")
	}
	all := r.All()
	if last := all[len(all)-1]; last != funds || len(all) != len(codes.Builtin())+1 {
		t.Fatalf("All = %v", all)
	}
}

func TestRegisterRefuses(t *testing.T) {
	tests := []struct {
		name  string
		infos []codes.Info
		code  codes.Code
		says  string
	}{
		{"malformed", []codes.Info{{Code: "insufficient-funds", Category: codes.Business}}, codes.InvalidCode, "UPPER_SNAKE"},
		{"empty", []codes.Info{{Category: codes.Business}}, codes.InvalidCode, "empty"},
		{"too long", []codes.Info{{Code: codes.Code(strings.Repeat("A", 65)), Category: codes.Business}}, codes.InvalidCode, "at most 64"},
		{"no category", []codes.Info{{Code: "NO_CATEGORY"}}, codes.InvalidCode, "category"},
		{"built in", []codes.Info{{Code: codes.NotFound, Category: codes.Client}}, codes.DuplicateCode, "built in"},
		{"registered before", []codes.Info{funds}, codes.DuplicateCode, "already registered"},
		{"twice in one call", []codes.Info{{Code: "A_B", Category: codes.Client}, {Code: "A_B", Category: codes.Client}}, codes.DuplicateCode, "already registered"},
		{"negative delay", []codes.Info{{Code: "SLOW", Category: codes.Server, Retryable: true, RetryAfter: -time.Second}}, codes.InvalidCode, "negative"},
		{"delay without retryable", []codes.Info{{Code: "SLOW", Category: codes.Server, RetryAfter: time.Second}}, codes.InvalidCode, "Retryable is false"},
		{"relative doc URL", []codes.Info{{Code: "DOCS", Category: codes.Client, DocURL: "/errors#DOCS"}}, codes.InvalidCode, "absolute http or https"},
		{"doc URL of another scheme", []codes.Info{{Code: "DOCS", Category: codes.Client, DocURL: "javascript:alert(1)"}}, codes.InvalidCode, "absolute http or https"},
		{"doc URL that does not parse", []codes.Info{{Code: "DOCS", Category: codes.Client, DocURL: "https://exa mple.com/%zz"}}, codes.InvalidCode, "absolute http or https"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _ := codes.NewRegistry(funds)
			before := len(r.All())
			err := r.Register(tt.infos...)
			var de *codes.DefinitionError
			if !errors.As(err, &de) || de.Code != tt.code || !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("Register = %v, want %s saying %q", err, tt.code, tt.says)
			}
			if len(r.All()) != before {
				t.Fatal("a refused registration registered something")
			}
		})
	}
	if _, err := codes.NewRegistry(codes.Info{Code: "bad"}); err == nil {
		t.Fatal("NewRegistry accepted a bad code")
	}
}

func TestRegisterKeepsDelayAndDocURL(t *testing.T) {
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

func TestCategoryText(t *testing.T) {
	for _, c := range []codes.Category{codes.Client, codes.Business, codes.Server} {
		b, err := c.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back codes.Category
		if err := back.UnmarshalText(b); err != nil || back != c {
			t.Errorf("%v: round trip gave %v, %v", c, back, err)
		}
	}
	var c codes.Category
	if err := c.UnmarshalText([]byte("user")); err == nil {
		t.Error(`UnmarshalText("user") succeeded`)
	}
}

func TestRegistryConcurrent(t *testing.T) {
	var r codes.Registry
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			_ = r.Register(codes.Info{Code: codes.Code(fmt.Sprintf("CODE_%d", i)), Category: codes.Client})
		}()
		go func() {
			defer wg.Done()
			r.Lookup(codes.NotFound)
			r.All()
		}()
	}
	wg.Wait()
	if len(r.All()) != len(codes.Builtin())+8 {
		t.Fatalf("All has %d codes", len(r.All()))
	}
}
