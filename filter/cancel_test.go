package filter_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/toolerr"
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

// TestRequestsEndBeforeFilters checks that the end of the request's own
// context is decided before any filter runs: a sentinel filter of the
// application's (sql.ErrNoRows as NOT_FOUND) never sees the failure of a
// cancelled or timed-out request, which is CANCELLED or TIMEOUT whatever
// the error; a panic and a public error keep their answers; and while the
// request is alive the filter answers as ever.
func TestRequestsEndBeforeFilters(t *testing.T) {
	call := filter.Call{Tool: "get_order", RequestID: "7"}
	noRows := errors.New("sql: no rows in result set")
	seen := 0
	counting := filter.Catch(func(context.Context, filter.Call, error) (*filter.Response, error) {
		seen++
		return nil, nil
	})
	sentinel := filter.Is(noRows, filter.Response{Code: codes.NotFound, Message: "No such order."})
	cancelled := endedAs(context.Background(), context.Canceled)
	for _, tc := range []struct {
		name    string
		ctx     context.Context
		err     error
		code    codes.Code
		filters int // how many times the filters ran
	}{
		{"a sentinel on a cancelled request", cancelled, fmt.Errorf("get order: %w", noRows), codes.Cancelled, 0},
		{"a sentinel on a timed-out request", endedAs(context.Background(), context.DeadlineExceeded), noRows, codes.Timeout, 0},
		{"a driver's own error on a cancelled request", cancelled, errors.New("driver: bad connection"), codes.Cancelled, 0},
		{"a ToolError on a cancelled request keeps its words", cancelled, toolerr.New("Stopped: nothing was changed."), codes.ToolFailed, 1},
		{"a panic on a cancelled request is masked", cancelled, &filter.PanicError{Value: "boom"}, codes.InternalError, 1},
		{"a sentinel while the request is alive", context.Background(), noRows, codes.NotFound, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seen = 0
			h := newHarness(t, filter.WithFilters(counting, sentinel))
			f := h.handle(t, tc.ctx, call, tc.err)
			if f.Envelope.Code != tc.code || seen != tc.filters {
				t.Errorf("code %s, the filters ran %d times; want %s and %d", f.Envelope.Code, seen, tc.code, tc.filters)
			}
			if recs := h.records(t); len(recs) != 1 {
				t.Errorf("records %v, want one", recs)
			}
		})
	}
}
