package codes_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcperr/mcperr/codes"
)

func TestBuiltinCodes(t *testing.T) {
	all := codes.Builtin()
	if len(all) == 0 {
		t.Fatal("no built-in codes")
	}
	seen := map[codes.Code]bool{}
	for _, in := range all {
		if err := in.Code.Validate(); err != nil {
			t.Errorf("built-in %s: %v", in.Code, err)
		}
		if seen[in.Code] {
			t.Errorf("built-in %s listed twice", in.Code)
		}
		seen[in.Code] = true
		if in.Description == "" || !strings.HasSuffix(in.Description, ".") {
			t.Errorf("built-in %s: description %q should be one sentence", in.Code, in.Description)
		}
		switch in.Category {
		case codes.Client, codes.Business, codes.Server:
		default:
			t.Errorf("built-in %s has no category", in.Code)
		}
		got, ok := (*codes.Registry)(nil).Lookup(in.Code)
		if !ok || got != in {
			t.Errorf("Lookup(%s) = %v, %v", in.Code, got, ok)
		}
		b, err := json.Marshal(in.Code)
		if err != nil || string(b) != `"`+in.Code.String()+`"` {
			t.Errorf("json of %s = %s, %v", in.Code, b, err)
		}
		var back codes.Code
		if err := json.Unmarshal(b, &back); err != nil || back != in.Code {
			t.Errorf("round trip of %s = %s, %v", in.Code, back, err)
		}
	}
	for _, c := range []codes.Code{codes.ValidationError, codes.NotFound, codes.Unauthorized, codes.Forbidden, codes.Conflict,
		codes.RateLimited, codes.Cancelled, codes.Timeout, codes.ToolFailed, codes.BusinessRuleViolation,
		codes.InternalError, codes.DatabaseError, codes.ExternalServiceError, codes.Unavailable} {
		if !seen[c] {
			t.Errorf("%s is a constant but not in Builtin()", c)
		}
	}
	if r, _ := (*codes.Registry)(nil).Lookup(codes.RateLimited); !r.Retryable {
		t.Error("RATE_LIMITED must be retryable")
	}
	if r, _ := (*codes.Registry)(nil).Lookup(codes.InternalError); r.Category != codes.Server || r.Retryable {
		t.Error("INTERNAL_ERROR must be a server error, not retryable")
	}
}

func TestBuiltinIsACopy(t *testing.T) {
	b := codes.Builtin()
	b[0].Description = "changed"
	if codes.Builtin()[0].Description == "changed" {
		t.Fatal("Builtin returned the package's own table")
	}
}

func TestValidate(t *testing.T) {
	good := []codes.Code{"A", "INSUFFICIENT_FUNDS", "HTTP_500", "X1_Y2"}
	bad := []codes.Code{"", "lower", "Mixed_Case", "_LEADING", "TRAILING_", "DOUBLE__UNDERSCORE", "1DIGIT", "WITH-DASH", "WITH SPACE",
		codes.Code(strings.Repeat("A", codes.MaxLen+1))}
	for _, c := range good {
		if err := c.Validate(); err != nil {
			t.Errorf("Validate(%q) = %v, want nil", c, err)
		}
	}
	for _, c := range bad {
		err := c.Validate()
		var de *codes.DefinitionError
		if !errors.As(err, &de) || de.Code != codes.InvalidCode || de.Reason == "" {
			t.Errorf("Validate(%q) = %v, want an INVALID_CODE definition error", c, err)
		}
	}
	var c codes.Code
	if err := c.UnmarshalText([]byte("not ok")); err == nil {
		t.Error("UnmarshalText accepted a malformed code")
	}
	if err := c.UnmarshalText(nil); err != nil || !c.IsZero() {
		t.Errorf("UnmarshalText(empty) = %v, %q", err, c)
	}
}

func TestCategoryString(t *testing.T) {
	for c, want := range map[codes.Category]string{codes.Client: "client", codes.Business: "business", codes.Server: "server", 0: "unknown"} {
		if c.String() != want {
			t.Errorf("%d.String() = %q, want %q", int(c), c.String(), want)
		}
		if b, _ := c.MarshalText(); string(b) != want {
			t.Errorf("MarshalText = %s", b)
		}
	}
}
