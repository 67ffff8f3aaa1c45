package codes_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcperr/mcperr/codes"
)

// builtin lists every built-in code constant, with its category and retry
// advice as the package documents them.
var builtin = []struct {
	code      codes.Code
	category  codes.Category
	retryable bool
}{
	{codes.ValidationError, codes.Client, false},
	{codes.NotFound, codes.Client, false},
	{codes.Unauthorized, codes.Client, false},
	{codes.Forbidden, codes.Client, false},
	{codes.Conflict, codes.Client, false},
	{codes.RateLimited, codes.Client, true},
	{codes.Cancelled, codes.Client, true},
	{codes.Timeout, codes.Server, true},
	{codes.ToolFailed, codes.Client, false},
	{codes.BusinessRuleViolation, codes.Business, false},
	{codes.InternalError, codes.Server, false},
	{codes.DatabaseError, codes.Server, true},
	{codes.ExternalServiceError, codes.Server, true},
	{codes.Unavailable, codes.Server, true},
}

// TestBuiltinCodes walks every built-in code: a nil Registry, a zero one
// and one made by NewRegistry all know it, with its category, retry advice
// and a one-sentence description; its name is well formed and travels in
// JSON as a plain string.
func TestBuiltinCodes(t *testing.T) {
	made, err := codes.NewRegistry(codes.Info{Code: "OWN_CODE", Category: codes.Client})
	if err != nil {
		t.Fatal(err)
	}
	var zero codes.Registry
	seen := map[codes.Code]bool{}
	for _, b := range builtin {
		if seen[b.code] {
			t.Errorf("%s is listed twice", b.code)
		}
		seen[b.code] = true
		in, ok := (*codes.Registry)(nil).Lookup(b.code)
		if !ok {
			t.Errorf("a nil Registry does not know %s", b.code)
			continue
		}
		if in.Code != b.code || in.Category != b.category || in.Retryable != b.retryable {
			t.Errorf("Lookup(%s) = %+v, want category %s, retryable %v", b.code, in, b.category, b.retryable)
		}
		if in.RetryAfter != 0 || in.DocURL != "" {
			t.Errorf("built-in %s has a delay or doc URL: %+v", b.code, in)
		}
		if in.Description == "" || !strings.HasSuffix(in.Description, ".") || strings.Contains(in.Description, "\n") {
			t.Errorf("built-in %s: description %q should be one sentence", b.code, in.Description)
		}
		if got, ok := zero.Lookup(b.code); !ok || got != in {
			t.Errorf("the zero Registry: Lookup(%s) = %+v, %v, want %+v", b.code, got, ok, in)
		}
		if got, ok := made.Lookup(b.code); !ok || got != in {
			t.Errorf("a NewRegistry: Lookup(%s) = %+v, %v, want %+v", b.code, got, ok, in)
		}
		if !wellFormed(string(b.code)) {
			t.Errorf("built-in %q is not an UPPER_SNAKE name", b.code)
		}
		j, err := json.Marshal(b.code)
		if err != nil || string(j) != `"`+string(b.code)+`"` {
			t.Errorf("JSON of %s = %s, %v", b.code, j, err)
		}
		var back codes.Code
		if err := json.Unmarshal(j, &back); err != nil || back != b.code {
			t.Errorf("JSON round trip of %s = %s, %v", b.code, back, err)
		}
		// A built-in code cannot be registered again.
		_, err = codes.NewRegistry(codes.Info{Code: b.code, Category: b.category})
		var de *codes.DefinitionError
		if !errors.As(err, &de) || de.Mistake != codes.DuplicateCode || de.Subject != string(b.code) {
			t.Errorf("NewRegistry(%s) = %v, want a DUPLICATE_CODE definition error", b.code, err)
		}
	}
	for _, c := range []codes.Code{"", "OWN_CODE", "not a code"} {
		if in, ok := (*codes.Registry)(nil).Lookup(c); ok || in != (codes.Info{}) {
			t.Errorf("a nil Registry knows %q: %+v", c, in)
		}
	}
}

// wellFormed reports whether s matches ^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$ and is
// at most 64 characters long, as the envelope's schema requires of a code.
func wellFormed(s string) bool {
	if s == "" || len(s) > 64 || s[0] < 'A' || s[0] > 'Z' || s[len(s)-1] == '_' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' && s[i-1] != '_') {
			return false
		}
	}
	return true
}

// TestCodeNames checks the names NewRegistry accepts and refuses: the
// validation of a code happens there, and only there.
func TestCodeNames(t *testing.T) {
	good := []codes.Code{"A", "INSUFFICIENT_FUNDS", "HTTP_500", "X1_Y2", codes.Code(strings.Repeat("A", 64))}
	bad := []struct {
		code codes.Code
		says string
	}{
		{"", "must not be empty"},
		{"lower", "UPPER_SNAKE"},
		{"Mixed_Case", "UPPER_SNAKE"},
		{"_LEADING", "UPPER_SNAKE"},
		{"TRAILING_", "UPPER_SNAKE"},
		{"DOUBLE__UNDERSCORE", "UPPER_SNAKE"},
		{"1DIGIT", "UPPER_SNAKE"},
		{"WITH-DASH", "UPPER_SNAKE"},
		{"WITH SPACE", "UPPER_SNAKE"},
		{"ÉCOLE", "UPPER_SNAKE"},
		{codes.Code(strings.Repeat("A", 65)), "at most 64 characters long, this one has 65"},
	}
	for _, c := range good {
		if _, err := codes.NewRegistry(codes.Info{Code: c, Category: codes.Client}); err != nil {
			t.Errorf("NewRegistry(%q) = %v, want nil", c, err)
		}
		if !wellFormed(string(c)) {
			t.Errorf("the test's own check refuses %q", c)
		}
	}
	for _, b := range bad {
		r, err := codes.NewRegistry(codes.Info{Code: b.code, Category: codes.Client})
		var de *codes.DefinitionError
		if !errors.As(err, &de) || de.Mistake != codes.InvalidCode || !strings.Contains(de.Reason, b.says) {
			t.Errorf("NewRegistry(%q) = %v, want an INVALID_CODE definition error saying %q", b.code, err, b.says)
		}
		if r != nil {
			t.Errorf("NewRegistry(%q) returned a registry with its error", b.code)
		}
		if de != nil && de.Subject != string(b.code) {
			t.Errorf("NewRegistry(%q): subject %q", b.code, de.Subject)
		}
		if wellFormed(string(b.code)) {
			t.Errorf("the test's own check accepts %q", b.code)
		}
	}
}
