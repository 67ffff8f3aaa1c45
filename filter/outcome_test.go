package filter_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
)

// onTool returns err as an adapter hands it for a tool whose annotations
// say repeat (read-only or idempotent), counting the pipeline's questions.
func onTool(err error, repeat bool, asked *int) filter.Input {
	return filter.Input{Err: err, Repeatable: func() bool {
		*asked++
		return repeat
	}}
}

// TestOutcomeUnknown checks the advice of a failure after which the
// operation may have taken effect: on a tool not annotated read-only or
// idempotent, not retryable, Outcome "unknown" and the Retry line says to
// check first; on one that is, and for a failure known not to have taken
// effect, the advice as registered. The adapter is asked about the tool
// only when it decides.
func TestOutcomeUnknown(t *testing.T) {
	errUpstream := errors.New("POST /payments: 502")
	mayHave := filter.Is(errUpstream, filter.Response{Code: codes.ExternalServiceError,
		Message: "The payment service failed.", RetryAfter: 2 * time.Second, MayHaveTakenEffect: true})
	errLimited := errors.New("429")
	notTaken := filter.Is(errLimited, filter.Response{Code: codes.RateLimited, Message: "Too many payments.", RetryAfter: 30 * time.Second})
	tests := []struct {
		name      string
		ctx       context.Context
		call      filter.Call
		err       error
		repeat    bool
		retryable bool
		outcome   string
		retryLine string
		message   string
		asked     int
	}{
		{"may have taken effect, a tool with no annotation", context.Background(), call, errUpstream, false,
			false, "unknown", retryUnknown, "The payment service failed.", 1},
		{"may have taken effect, a read-only or idempotent tool", context.Background(), call, errUpstream, true,
			true, "", "Retry: yes, after 2 seconds.", "The payment service failed.", 1},
		{"known not to have taken effect", context.Background(), call, errLimited, false,
			true, "", "Retry: yes, after 30 seconds.", "Too many payments.", 0},
		{"the request's deadline, a tool with no annotation", endedAs(context.Background(), context.DeadlineExceeded), call, fmt.Errorf("q: %w", context.DeadlineExceeded), false,
			false, "unknown", retryUnknown, "The tool did not finish in time, and may have done its work before it stopped (ref: {ref}).", 1},
		{"the request's deadline, a read-only or idempotent tool", endedAs(context.Background(), context.DeadlineExceeded), call, fmt.Errorf("q: %w", context.DeadlineExceeded), true,
			true, "", "Retry: yes.", "The tool did not finish in time; try again, perhaps with a smaller request (ref: {ref}).", 1},
		{"a resource read reads", context.Background(), filter.Call{Method: "resources/read", Resource: "file:///a"}, errUpstream, false,
			true, "", "Retry: yes, after 2 seconds.", "The payment service failed.", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, filter.WithFilters(mayHave, notTaken))
			asked := 0
			f := h.input(t, tt.ctx, tt.call, onTool(tt.err, tt.repeat, &asked))
			env := f.Envelope
			if env.Retryable != tt.retryable || env.Outcome != tt.outcome || env.Message != strings.ReplaceAll(tt.message, "{ref}", env.Ref) {
				t.Errorf("retryable %v, outcome %q, message %q; want %v, %q, %q", env.Retryable, env.Outcome, env.Message, tt.retryable, tt.outcome, tt.message)
			}
			if env.Outcome != "" && env.RetryAfterSeconds != 0 {
				t.Errorf("an unknown outcome with a delay: %v", env.RetryAfterSeconds)
			}
			if lines := strings.Split(f.Texts[1], "\n"); !slices.Contains(lines, tt.retryLine) {
				t.Errorf("texts %q, want the line %q", f.Texts, tt.retryLine)
			}
			if asked != tt.asked {
				t.Errorf("the adapter was asked about the tool %d times, want %d", asked, tt.asked)
			}
			if recs := h.records(t); len(recs) != 1 {
				t.Errorf("%d records, want 1", len(recs))
			}
		})
	}

	t.Run("an adapter's answer that panics is no", func(t *testing.T) {
		h := newHarness(t, filter.WithFilters(mayHave))
		in := filter.Input{Err: errUpstream, Repeatable: func() bool { panic("annotations bug") }}
		if f := h.input(t, context.Background(), call, in); f.Envelope.Outcome != "unknown" || f.Envelope.Retryable {
			t.Errorf("envelope %+v, want outcome unknown and not retryable", f.Envelope)
		}
	})
	t.Run("masked errors keep their advice", func(t *testing.T) {
		h := newHarness(t, filter.WithFilters(mayHave))
		asked := 0
		f := h.input(t, context.Background(), call, onTool(errors.New("boom"), false, &asked))
		if f.Envelope.Code != codes.InternalError || f.Envelope.Outcome != "" || asked != 0 {
			t.Errorf("envelope %+v, asked %d; want INTERNAL_ERROR, no outcome, not asked", f.Envelope, asked)
		}
	})
}
