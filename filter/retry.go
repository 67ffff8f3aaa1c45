package filter

import (
	"context"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/internal/toolname"
)

// WithRetries makes the server call a tool again, within the same request,
// after a transient failure, at most max more times (1 to 10). The model
// reads one answer: the success, or the last failure, whose envelope says
// how many attempts were made.
//
// A failure is retried when its code is UNAVAILABLE, TIMEOUT (a
// dependency's: never the request's own), CONFLICT, RATE_LIMITED,
// EXTERNAL_SERVICE_ERROR or DATABASE_ERROR, it is retryable as advised,
// and the tool is annotated readOnlyHint or idempotentHint, or named in
// safe: a tool whose second call cannot do what the first did twice. The
// adapter waits first: the failure's own retry delay if it has one of at
// most 5 seconds (a 429's Retry-After), else 100 ms, doubled at each
// attempt up to 2 s, with jitter. No attempt starts that the request's
// deadline, less what the last attempt took, would cut short, and none
// after the request is cancelled.
//
// The budget is the server's, as gRPC's retry throttling keeps it: each
// transient failure spends a token of 10, each successful tool call gives
// back a tenth, and no retry is made while half or more are spent, so
// that a failing dependency is not called again by every client at once.
//
// Each failed attempt is one record, with its attempt number, and tells
// the observers (Failure.Retry is set on those retried); the records of a
// retried call share one ref. In report-only mode nothing is retried, and
// the record of a failure that would have been says so (would_retry).
//
// A tool named in safe counts as idempotent for the retry advice of any
// failure too (Response.MayHaveTakenEffect). A bad max or name is a
// definition error.
func WithRetries(max int, safe ...string) Option {
	return optionFunc(func(p *Pipeline) error {
		if max < 1 || max > maxRetries {
			return &codes.DefinitionError{Mistake: codes.InvalidOption,
				Reason: "WithRetries needs 1 to 10 more attempts, not " + strconv.Itoa(max) + "; leave the option out for none"}
		}
		p.retries, p.safe = max, make(map[string]bool, len(safe))
		for _, name := range safe {
			if err := toolname.Check(name); err != nil {
				return err
			}
			p.safe[name] = true
		}
		return nil
	})
}

// Bounds of retries and their waits.
const (
	maxRetries   = 10
	maxRetryWait = 5 * time.Second        // the longest retry delay of a failure waited for
	firstBackoff = 100 * time.Millisecond // the wait before the first retry, without one
	maxBackoff   = 2 * time.Second
	// The budget, in thousandths of a token: as gRPC's defaults, 10 tokens,
	// a tenth back for a success, retries while fewer than half are spent.
	budgetTokens = 10_000
	budgetRefund = 100
)

// budget is a server's retry budget: the thousandths of a token spent.
type budget struct{ spent atomic.Int64 }

func (b *budget) add(n int64) {
	for {
		old := b.spent.Load()
		if b.spent.CompareAndSwap(old, min(max(old+n, 0), budgetTokens)) {
			return
		}
	}
}

func (b *budget) allows() bool { return b.spent.Load() < budgetTokens/2 }

// succeeded gives back to the retry budget for a successful tool call.
func (p *Pipeline) succeeded() {
	if p.retries > 0 {
		p.budget.add(-budgetRefund)
	}
}

// retryIn returns how long the adapter waits before it calls the tool
// again, after the failure h answered with code and the advice retryable
// and after, or 0 if it does not: see WithRetries. Where only the tool's
// annotations keep a transient failure from being retried, h says so in
// its record.
func (p *Pipeline) retryIn(ctx context.Context, h *handling, ask *asks, code codes.Code, retryable bool, after time.Duration) time.Duration {
	if p.retries == 0 || !retryable || h.masked || h.handBuilt || h.ended || !h.call.isTool() {
		return 0
	}
	switch code {
	case codes.Unavailable, codes.Timeout, codes.Conflict, codes.RateLimited, codes.ExternalServiceError, codes.DatabaseError:
	default:
		return 0
	}
	if !h.reportOnly {
		p.budget.add(1000)
	}
	if h.attempt > p.retries || after > maxRetryWait || !p.budget.allows() {
		return 0
	}
	if !p.mayRepeat(h, ask) {
		h.notRetried = "the tool is annotated neither readOnlyHint nor idempotentHint, and filter.WithRetries does not name it safe"
		return 0
	}
	wait := after
	if wait == 0 {
		d := min(firstBackoff<<(h.attempt-1), maxBackoff)
		wait = d/2 + rand.N(d/2+1) // jitter: a half to the whole of d
	}
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) <= wait+h.took || ctx.Err() != nil {
		return 0
	}
	if h.reportOnly {
		h.wouldRetry = true
		return 0
	}
	return wait
}
