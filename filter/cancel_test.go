package filter_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
)

// endedAs returns ctx, or a context derived from it that has ended the way
// err says a request's own context ended: cancelled, or past its deadline.
// Other errors leave ctx as it is.
func endedAs(ctx context.Context, err error) context.Context {
	switch {
	case errors.Is(err, context.Canceled):
		ctx, cancel := context.WithCancel(ctx)
		cancel()
		return ctx
	case errors.Is(err, context.DeadlineExceeded):
		ctx, cancel := context.WithDeadline(ctx, time.Unix(0, 0))
		_ = cancel // ended already; the test's end releases it
		return ctx
	}
	return ctx
}

// TestOnlyTheRequestsOwnContextIsTheClients checks that CANCELLED and
// TIMEOUT answer only a request whose own context ended, and that a
// sub-operation's cancellation or deadline, while the request is alive, is
// a server failure: masked, with a ref, logged at error level.
func TestOnlyTheRequestsOwnContextIsTheClients(t *testing.T) {
	call := filter.Call{Tool: "lookup", RequestID: "7"}
	for _, tc := range []struct {
		name  string
		ctx   context.Context
		err   error
		code  codes.Code
		level string
	}{
		{"request cancelled", endedAs(context.Background(), context.Canceled),
			fmt.Errorf("query replica: %w", context.Canceled), codes.Cancelled, "INFO"},
		{"request past its deadline", endedAs(context.Background(), context.DeadlineExceeded),
			fmt.Errorf("query replica: %w", context.DeadlineExceeded), codes.Timeout, "ERROR"},
		{"request cancelled, sub-operation past its deadline", endedAs(context.Background(), context.Canceled),
			fmt.Errorf("query replica: %w", context.DeadlineExceeded), codes.Cancelled, "INFO"},
		{"sub-operation cancelled, request alive", context.Background(),
			fmt.Errorf("query replica: %w", context.Canceled), codes.InternalError, "ERROR"},
		{"sub-operation past its deadline, request alive", context.Background(),
			fmt.Errorf("query replica: %w", context.DeadlineExceeded), codes.InternalError, "ERROR"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			f := h.handle(t, tc.ctx, call, tc.err)
			recs := h.records(t)
			if f.Envelope.Code != tc.code || len(recs) != 1 || recs[0]["level"] != tc.level {
				t.Fatalf("code %s, records %v; want %s at %s", f.Envelope.Code, recs, tc.code, tc.level)
			}
			if tc.code == codes.InternalError && (f.Envelope.Message != masked(f.Envelope.Ref) || f.Envelope.Retryable) {
				t.Errorf("a sub-operation's failure: %+v, want the masked text, not retryable", f.Envelope)
			}
		})
	}
}
