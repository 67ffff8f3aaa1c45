package toolerr_test

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/mcperr/mcperr/toolerr"
)

// canary is a secret that must never reach Message.
const canary = "password=hunter2"

var errSentinel = errors.New("order service: " + canary)

type dialError struct{ addr string }

func (e *dialError) Error() string { return "dial " + e.addr + ": " + canary + " refused" }

// noCanary fails if msg holds any part of the canary that could identify it.
func noCanary(t *testing.T, msg string) {
	t.Helper()
	for _, part := range []string{canary, "password", "hunter2", "%!w", "errorString", "dialError"} {
		if strings.Contains(msg, part) {
			t.Errorf("message %q leaks %q", msg, part)
		}
	}
}

func TestErrorfKeepsWrappedErrorForTheLogOnly(t *testing.T) {
	dial := &dialError{addr: "10.0.0.5"}
	err := toolerr.Errorf("The order service is down: %w", dial)
	if got, want := err.Message(), "The order service is down"; got != want {
		t.Errorf("Message() = %q, want %q", got, want)
	}
	noCanary(t, err.Message())
	noCanary(t, err.PublicMessage())
	if !strings.Contains(err.Error(), canary) {
		t.Errorf("Error() = %q, want the cause's text for the log", err.Error())
	}
	var de *dialError
	if !errors.As(err, &de) || de != dial {
		t.Errorf("errors.As did not find the *dialError")
	}

	wrapped := toolerr.Errorf("The order could not be loaded: %w", fmt.Errorf("load: %w", errSentinel))
	noCanary(t, wrapped.Message())
	if !errors.Is(wrapped, errSentinel) {
		t.Error("errors.Is did not find the sentinel")
	}
	if !strings.Contains(wrapped.Error(), canary) {
		t.Errorf("Error() = %q, want the cause's text", wrapped.Error())
	}
	// Through a further wrapping, as a handler would return it.
	if !errors.Is(fmt.Errorf("handler: %w", wrapped), errSentinel) {
		t.Error("errors.Is did not find the sentinel through a wrapper")
	}
}

func TestErrorfTrimsDanglingSeparator(t *testing.T) {
	e := errSentinel
	tests := []struct {
		format string
		args   []any
		want   string
	}{
		{"The order service is down: %w", []any{e}, "The order service is down"},
		{"The order service is down; %w", []any{e}, "The order service is down"},
		{"The order service is down, %w", []any{e}, "The order service is down"},
		{"The order service is down - %w", []any{e}, "The order service is down"},
		{"The order service is down — %w", []any{e}, "The order service is down"},
		{"The order service is down %w", []any{e}, "The order service is down"},
		{"The order service is down:%w", []any{e}, "The order service is down"},
		{"The order service is down.%w", []any{e}, "The order service is down."},
		{"The order service is down. %w", []any{e}, "The order service is down."},
		{"Order %d failed: %w", []any{7, e}, "Order 7 failed"},
		{"%w", []any{e}, ""},
		// The %w is not at the end: nothing is trimmed.
		{"The order service is down: %w. Try again.", []any{e}, "The order service is down: . Try again."},
		{"The order service is down: %w%s", []any{e, ":"}, "The order service is down: :"},
		{"The order service is down: %w %%", []any{e}, "The order service is down:  %"},
		// "%%w" is a literal "%w", not a verb.
		{"Use 100%%w: ", nil, "Use 100%w: "},
	}
	for _, tt := range tests {
		err := toolerr.Errorf(tt.format, tt.args...)
		if got := err.Message(); got != tt.want {
			t.Errorf("Errorf(%q).Message() = %q, want %q", tt.format, got, tt.want)
		}
		noCanary(t, err.Message())
	}
}

func TestErrorfNoTrimWithoutWrap(t *testing.T) {
	for _, tt := range []struct {
		err  *toolerr.ToolError
		want string
	}{
		{toolerr.Errorf("Pick one of: "), "Pick one of: "},
		{toolerr.Errorf("Page %d:", 3), "Page 3:"},
		{toolerr.Errorf("Range %d - ", 3), "Range 3 - "},
		{toolerr.Errorf("Discount: %s", "-"), "Discount: -"},
	} {
		if got := tt.err.Message(); got != tt.want {
			t.Errorf("Message() = %q, want %q", got, tt.want)
		}
		if tt.err.Unwrap() != nil {
			t.Errorf("%q has a cause", tt.want)
		}
	}
}

func TestErrorfMatchesSprintfWithoutWrap(t *testing.T) {
	tests := []struct {
		format string
		args   []any
	}{
		{"Page %d is past the end (%d pages).", []any{9, 3}},
		{"%[2]s before %[1]s", []any{"a", "b"}},
		{"%-6s|%6.2f|%x|%q", []any{"ab", 3.14159, 255, "q"}},
		{"%*d", []any{5, 42}},
		{"100%% sure", nil},
		{"%%w is literal", nil},
		{"missing %d", nil},
		{"extra", []any{1}},
		{"no verb %", nil},
		{"bad %[3]d", []any{1}},
		{"trailing %w", nil},
	}
	for _, tt := range tests {
		want := fmt.Sprintf(tt.format, tt.args...)
		err := toolerr.Errorf(tt.format, tt.args...)
		if got := err.Message(); got != want {
			t.Errorf("Errorf(%q).Message() = %q, want %q as fmt.Sprintf", tt.format, got, want)
		}
		if err.Unwrap() != nil {
			t.Errorf("Errorf(%q) has a cause", tt.format)
		}
	}
}

func TestErrorfLiteralPercentW(t *testing.T) {
	err := toolerr.Errorf("Use %%w in the format, not %s.", "%v")
	if got, want := err.Message(), "Use %w in the format, not %v."; got != want {
		t.Errorf("Message() = %q, want %q", got, want)
	}
	if err.Unwrap() != nil {
		t.Error("%%w made a cause")
	}
}

func TestErrorfIndexedWrap(t *testing.T) {
	err := toolerr.Errorf("Order %[2]s is stuck: %[1]w", errSentinel, "o-7")
	if got, want := err.Message(), "Order o-7 is stuck"; got != want {
		t.Errorf("Message() = %q, want %q", got, want)
	}
	if !errors.Is(err, errSentinel) {
		t.Error("errors.Is did not find the %[1]w operand")
	}

	// %[1]w first, then %s takes the next argument, as in fmt.
	err = toolerr.Errorf("%[1]w%s (code %d)", errSentinel, "Stuck", 3)
	if got, want := err.Message(), "Stuck (code 3)"; got != want {
		t.Errorf("Message() = %q, want %q", got, want)
	}

	// Flags and widths on %w print nothing either.
	err = toolerr.Errorf("Stuck: %-20w", errSentinel)
	if got, want := err.Message(), "Stuck"; got != want {
		t.Errorf("Message() = %q, want %q", got, want)
	}
	noCanary(t, err.Message())

	// An operand of %w prints nothing wherever the format names it.
	err = toolerr.Errorf("Stuck (%[1]v): %[1]w", errSentinel)
	if got, want := err.Message(), "Stuck ()"; got != want {
		t.Errorf("Message() = %q, want %q", got, want)
	}
	noCanary(t, err.Message())
}

func TestErrorfJoinsSeveralWraps(t *testing.T) {
	other := &dialError{addr: "10.0.0.6"}
	err := toolerr.Errorf("Both replicas are down: %w, %w", errSentinel, other)
	if got, want := err.Message(), "Both replicas are down"; got != want {
		t.Errorf("Message() = %q, want %q", got, want)
	}
	noCanary(t, err.Message())
	var de *dialError
	if !errors.Is(err, errSentinel) || !errors.As(err, &de) || de != other {
		t.Errorf("the joined cause does not hold both errors: %v", err.Unwrap())
	}
	joined, ok := err.Unwrap().(interface{ Unwrap() []error })
	if !ok {
		t.Fatalf("cause %T is not a join", err.Unwrap())
	}
	if got := joined.Unwrap(); len(got) != 2 || got[0] != errSentinel || got[1] != other {
		t.Errorf("joined = %v, want the sentinel then the *dialError", got)
	}
	if !strings.Contains(err.Error(), "10.0.0.6") {
		t.Errorf("Error() = %q lacks the second cause", err.Error())
	}

	// Named twice, an error is joined once; the order is the arguments'.
	err = toolerr.Errorf("%[2]w %[1]w %[2]w", errSentinel, other)
	joined, _ = err.Unwrap().(interface{ Unwrap() []error })
	if joined == nil || len(joined.Unwrap()) != 2 || joined.Unwrap()[0] != errSentinel {
		t.Errorf("cause = %v, want the sentinel then the *dialError", err.Unwrap())
	}
}

func TestErrorfNilAndNonErrorOperands(t *testing.T) {
	var nilErr error
	err := toolerr.Errorf("The file is gone: %w", nilErr)
	if err.Message() != "The file is gone" || err.Unwrap() != nil {
		t.Errorf("nil operand: message %q, cause %v", err.Message(), err.Unwrap())
	}

	// go vet rejects a non-error %w operand in a literal call; pass a slice.
	args := []any{42, fs.ErrNotExist}
	err = toolerr.Errorf("The file is gone: %w %w", args...)
	if err.Message() != "The file is gone" {
		t.Errorf("non-error operand: message %q", err.Message())
	}
	if err.Unwrap() != fs.ErrNotExist {
		t.Errorf("cause = %v, want fs.ErrNotExist alone", err.Unwrap())
	}

	args = []any{struct{ Secret string }{canary}}
	err = toolerr.Errorf("Lookup failed: %w", args...)
	if err.Message() != "Lookup failed" || err.Unwrap() != nil {
		t.Errorf("non-error operand: message %q, cause %v", err.Message(), err.Unwrap())
	}
	noCanary(t, err.Message())

	args = []any{nilErr, nil}
	err = toolerr.Errorf("Gone: %w; %w", args...)
	if err.Message() != "Gone" || err.Unwrap() != nil {
		t.Errorf("two nil operands: message %q, cause %v", err.Message(), err.Unwrap())
	}
}
