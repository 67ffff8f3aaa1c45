package filter_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/toolerr"
)

// errBusy stands for a dependency's transient failure.
var errBusy = errors.New("upstream busy")

// busy answers errBusy as a transient UNAVAILABLE, with delay after.
func busy(after time.Duration) filter.Filter {
	return filter.Is(errBusy, filter.Response{Code: codes.Unavailable, Message: "The service is busy.", RetryAfter: after})
}

// attempt returns err as an adapter hands it for attempt n of a tool
// whose annotations say repeat, with the earlier attempts' ref.
func attempt(err error, n int, repeat bool, ref string) filter.Input {
	return filter.Input{Err: err, Attempt: n, Ref: ref, Repeatable: func() bool { return repeat }}
}

// TestRetryDecision checks when the pipeline asks the adapter to call a
// tool again (Failure.Retry), and after how long: a transient, retryable
// failure of a tool safe to repeat, while attempts, the wait, the
// request's deadline and the budget allow; and that each attempt's record
// names its attempt and the ref the attempts share.
func TestRetryDecision(t *testing.T) {
	ctx := context.Background()
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	tests := []struct {
		name     string
		opts     []filter.Option
		ctx      context.Context
		in       filter.Input
		min, max time.Duration // the wait; 0, 0: no retry
	}{
		{"first retry: 50 to 100 ms", nil, ctx, attempt(errBusy, 1, true, ""), 50 * time.Millisecond, 100 * time.Millisecond},
		{"second retry: 100 to 200 ms", nil, ctx, attempt(errBusy, 2, true, "r1"), 100 * time.Millisecond, 200 * time.Millisecond},
		{"attempts spent", nil, ctx, attempt(errBusy, 4, true, "r1"), 0, 0},
		{"a tool not known to be safe", nil, ctx, attempt(errBusy, 1, false, ""), 0, 0},
		{"a tool named safe", []filter.Option{filter.WithRetries(3, "lookup", "other")}, ctx, attempt(errBusy, 1, false, ""), 50 * time.Millisecond, 100 * time.Millisecond},
		{"the failure's own delay", []filter.Option{filter.WithFilters(busy(time.Second))}, ctx, attempt(errBusy, 1, true, ""), time.Second, time.Second},
		{"a delay too long to wait for", []filter.Option{filter.WithFilters(busy(6 * time.Second))}, ctx, attempt(errBusy, 1, true, ""), 0, 0},
		{"a deadline shorter than the wait", nil, short, attempt(errBusy, 1, true, ""), 0, 0},
		{"not transient", nil, ctx, attempt(domain.NewNotFound("Order", "o1"), 1, true, ""), 0, 0},
		{"not retryable", nil, ctx, attempt(toolerr.New("No.").WithCode(codes.Unavailable).WithRetryable(false), 1, true, ""), 0, 0},
		{"masked", nil, ctx, attempt(errors.New("boom"), 1, true, ""), 0, 0},
		{"a hand-built result", nil, ctx, filter.Input{HandBuilt: true, Text: "x", Repeatable: func() bool { return true }}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := append(append([]filter.Option{filter.WithRetries(3)}, tt.opts...), filter.WithFilters(busy(0)), filter.WithHandBuilt(filter.ReportHandBuilt))
			h := newHarness(t, opts...)
			f := h.input(t, tt.ctx, call, tt.in)
			if f.Retry < tt.min || f.Retry > tt.max {
				t.Errorf("retry in %v, want %v to %v", f.Retry, tt.min, tt.max)
			}
			in := tt.in
			switch {
			case in.Ref != "" && f.Envelope.Ref != in.Ref:
				t.Errorf("ref %q, want the earlier attempts' %q", f.Envelope.Ref, in.Ref)
			case f.Retry > 0 && f.Envelope.Ref == "":
				t.Error("a retried attempt has no ref for the next ones to share")
			}
			if n := in.Attempt; n > 1 && f.Envelope.Attempts != n || n <= 1 && f.Envelope.Attempts != 0 {
				t.Errorf("envelope attempts %d, want %d (0 for one)", f.Envelope.Attempts, n)
			}
			recs := h.records(t)
			if len(recs) != 1 {
				t.Fatalf("%d records, want 1", len(recs))
			}
			wantAttempt := f.Retry > 0 || in.Attempt > 1
			if got, ok := recs[0]["attempt"].(float64); ok != wantAttempt || ok && int(got) != max(in.Attempt, 1) {
				t.Errorf("record %v, want attempt %d: %v", recs[0], max(in.Attempt, 1), wantAttempt)
			}
		})
	}
}

// TestRetryBudget checks the server's budget: transient failures spend
// it, so that a failing dependency is retried no more, and successes
// (as Serve reports them) give it back.
func TestRetryBudget(t *testing.T) {
	h := newHarness(t, filter.WithRetries(3), filter.WithFilters(busy(0)))
	retried := 0
	for range 20 {
		if f := h.input(t, context.Background(), call, attempt(errBusy, 1, true, "")); f.Retry > 0 {
			retried++
		}
	}
	if retried != 4 {
		t.Errorf("%d of 20 failures retried, want 4: the budget is 10 tokens, each failure spends one, retries while more than half are left", retried)
	}
	for range 10 {
		if !h.p.Succeeded() {
			t.Fatal("a pipeline with retries says it has none")
		}
	}
	if f := h.input(t, context.Background(), call, attempt(errBusy, 1, true, "")); f.Retry != 0 {
		t.Error("retried after 10 successes, with the budget still more than half spent")
	}
	for range 100 {
		h.p.Succeeded()
	}
	if f := h.input(t, context.Background(), call, attempt(errBusy, 1, true, "")); f.Retry == 0 {
		t.Error("not retried after 100 successes gave the budget back")
	}
	if noRetries := newHarness(t); noRetries.p.Succeeded() {
		t.Error("a pipeline without WithRetries says it retries")
	}
}

// TestRetryReportOnly checks that report-only mode never retries, and
// logs what would have been.
func TestRetryReportOnly(t *testing.T) {
	h := newHarness(t, filter.WithRetries(3), filter.WithFilters(busy(0)), filter.WithReportOnly(true))
	f := h.input(t, context.Background(), call, attempt(errBusy, 1, true, ""))
	if f.Retry != 0 || !f.ReportOnly {
		t.Errorf("retry %v, report-only %v; want no retry in report-only mode", f.Retry, f.ReportOnly)
	}
	if recs := h.records(t); len(recs) != 1 || recs[0]["would_retry"] != true || recs[0]["attempt"] != 1.0 {
		t.Errorf("records %v, want one saying it would have been retried", recs)
	}
}

// TestWithRetriesRefusesMistakes checks the definition errors of
// WithRetries.
func TestWithRetriesRefusesMistakes(t *testing.T) {
	for _, opt := range []filter.Option{filter.WithRetries(0), filter.WithRetries(5), filter.WithRetries(2, "a tool")} {
		var de *codes.DefinitionError
		if _, err := filter.New(opt); !errors.As(err, &de) {
			t.Errorf("filter.New: %v, want a definition error", err)
		}
	}
}
