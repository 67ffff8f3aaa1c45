package filter_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/toolerr"
)

// retryableWrap is a wrapper that says, of the chain it wraps, whether the
// call may be retried: an outer Retryable method.
type retryableWrap struct {
	err   error
	retry bool
}

func (w retryableWrap) Error() string   { return "wrapped: " + w.err.Error() }
func (w retryableWrap) Unwrap() error   { return w.err }
func (w retryableWrap) Retryable() bool { return w.retry }

// TestRetryAdviceOfTheChain checks the retry advice the pipeline reads
// from a whole chain, in its one walk, as toolerr.PublicError documents
// it: the first ToolError whose flag is set, else the first error with a
// Retryable method, wherever it is, an outer wrapper included, else a
// context error that the public error wraps; the code's registration when
// nothing says.
func TestRetryAdviceOfTheChain(t *testing.T) {
	conflict := domain.NewConflict("Order", "Order o1 changed meanwhile.")
	for _, tc := range []struct {
		name      string
		err       error
		code      codes.Code
		retryable bool
		after     float64
	}{
		{"the registration", conflict, codes.Conflict, false, 0},
		{"an outer Retryable over a domain error", retryableWrap{conflict, true}, codes.Conflict, true, 0},
		{"an outer Retryable, two wrappers out", fmt.Errorf("save: %w", retryableWrap{fmt.Errorf("tx: %w", conflict), true}), codes.Conflict, true, 0},
		{"an outer Retryable that says no", retryableWrap{domain.NewRateLimited(time.Minute), false}, codes.RateLimited, false, 0},
		{"a ToolError's flag beats an outer Retryable", retryableWrap{toolerr.New("Busy.").WithCode(codes.Conflict).WithRetryable(false), true}, codes.Conflict, false, 0},
		{"a ToolError's flag beats its cause", toolerr.New("Busy.").WithRetryable(false).WithCause(domain.NewRateLimited(time.Minute)), codes.RateLimited, false, 0},
		{"a ToolError that says nothing defers to its cause", toolerr.New("Slow down.").WithCause(domain.NewRateLimited(time.Minute)), codes.RateLimited, true, 60},
		{"a wrapped RateLimited keeps its delay", fmt.Errorf("quote: %w", domain.NewRateLimited(2*time.Second)), codes.RateLimited, true, 2},
		{"a context error the public error wraps", toolerr.New("The search took too long.").WithCause(context.DeadlineExceeded), codes.ToolFailed, true, 0},
		{"a context error beside the public error", fmt.Errorf("%w: %w", domain.NewNotFound("Order", "x"), context.Canceled), codes.NotFound, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newHarness(t).handle(t, context.Background(), filter.Call{Tool: "x"}, tc.err)
			if f.Envelope.Code != tc.code || f.Envelope.Retryable != tc.retryable || f.Envelope.RetryAfterSeconds != tc.after {
				t.Errorf("code %s, retryable %v, after %v s; want %s, %v, %v s", f.Envelope.Code, f.Envelope.Retryable,
					f.Envelope.RetryAfterSeconds, tc.code, tc.retryable, tc.after)
			}
		})
	}
}

// TestOuterRetryableIsRetried checks that WithRetries calls a tool again
// after a failure that an outer Retryable method says may be retried,
// whose code alone would not be.
func TestOuterRetryableIsRetried(t *testing.T) {
	h := newHarness(t, filter.WithRetries(2))
	calls := 0
	_, f, _ := filter.Serve(context.Background(), h.p, filter.Call{Tool: "save"}, nil, filter.Handler[string]{
		Run: func(context.Context) (string, error) {
			if calls++; calls == 1 {
				return "", retryableWrap{domain.NewConflict("Order", "Order o1 changed meanwhile."), true}
			}
			return "saved", nil
		},
		Repeatable: func() bool { return true },
	})
	if f != nil || calls != 2 {
		t.Errorf("%d calls, failure %+v; want the tool called again, and its success", calls, f)
	}
}
