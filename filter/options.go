package filter

import (
	"cmp"
	"context"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/internal/toolname"
)

// Option configures a Pipeline, given to New. Every ToolOption is one too.
type Option interface{ apply(p *Pipeline) error }

type optionFunc func(p *Pipeline) error

func (o optionFunc) apply(p *Pipeline) error { return o(p) }

func nonNil(v any, reason string, set func(p *Pipeline)) Option {
	return optionFunc(func(p *Pipeline) error {
		if isNil(v) {
			return &codes.DefinitionError{Mistake: codes.NilValue, Reason: reason}
		}
		set(p)
		return nil
	})
}

// ToolOption configures how the failures of one tool are handled, given where
// the tool is added (gosdk.AddTool, mcpgo.AddTool) or to ForTool, over the
// server's choice; given to New, it makes the server's choice.
type ToolOption interface {
	Option
	// DefinitionError returns the mistake the option was built with, such
	// as a nil filter, or nil; New, ForTool and AddTool refuse it at start-up.
	DefinitionError() *codes.DefinitionError
	tool(t toolConfig) toolConfig
}

// toolConfig is a tool's own filters and settings: 0 the server's, 1 off, 2 on (handBuilt: 1 + policy).
type toolConfig struct {
	filters                      []Filter
	reportOnly, check, handBuilt int8
}

type toolOption struct {
	toolConfig
	bad *codes.DefinitionError
}

func (o toolOption) DefinitionError() *codes.DefinitionError { return o.bad }

func (o toolOption) tool(t toolConfig) toolConfig {
	if len(o.filters) > 0 {
		t.filters = append(t.filters[:len(t.filters):len(t.filters)], o.filters...)
	}
	t.reportOnly = cmp.Or(o.reportOnly, t.reportOnly)
	t.check = cmp.Or(o.check, t.check)
	t.handBuilt = cmp.Or(o.handBuilt, t.handBuilt)
	return t
}

func (o toolOption) apply(p *Pipeline) error {
	if o.bad != nil {
		return o.bad
	}
	p.global = append(p.global[:len(p.global):len(p.global)], o.filters...)
	o.filters = nil
	p.server = o.tool(p.server)
	return nil
}

func onOff(on bool) int8 {
	if on {
		return 2
	}
	return 1
}

// WithLogger sets the logger of the one record of each failure: by default,
// or if l is nil, slog.Default() at the time of the failure. If its handler
// panics or fails, the record goes to standard error instead.
func WithLogger(l *slog.Logger) Option {
	return optionFunc(func(p *Pipeline) error { p.logger = l; return nil })
}

// WithRegistry sets the registry of the application's codes, their
// categories and retry advice; the default knows the built-in codes only. A
// code it does not know never reaches a client: see Pipeline.Handle.
func WithRegistry(r *codes.Registry) Option {
	return optionFunc(func(p *Pipeline) error { p.registry = r; return nil })
}

// WithFilters adds exception filters, the first seeing each error first:
// for one tool, run before the server's; given to New, for every request. A
// nil filter, or one that Catch or Is could not build, is a definition error.
func WithFilters(filters ...Filter) ToolOption {
	for i, f := range filters {
		if isNil(f) {
			return toolOption{bad: &codes.DefinitionError{Mistake: codes.NilValue,
				Reason: "filter " + strconv.Itoa(i) + " given to WithFilters is nil; pass a filter.Filter, such as a filter.Catch"}}
		}
		if m, ok := f.(interface{ DefinitionError() *codes.DefinitionError }); ok {
			if de := m.DefinitionError(); de != nil { // built with a mistake by Catch, Is or a filter pack
				return toolOption{bad: &codes.DefinitionError{Mistake: de.Mistake,
					Reason: "filter " + strconv.Itoa(i) + " given to WithFilters: " + de.Reason}}
			}
		}
	}
	return toolOption{toolConfig: toolConfig{filters: append([]Filter(nil), filters...)}}
}

// WithObserver adds an observer: it gets a copy of each failure once final,
// before it is logged, in the order given; a panic in it is noted in the
// record. It runs on the answer's path: hand slow work to a queue.
func WithObserver(o func(ctx context.Context, f Failure)) Option {
	return nonNil(o, "WithObserver needs an observer; leave the option out to observe nothing", func(p *Pipeline) {
		p.observers = append(p.observers[:len(p.observers):len(p.observers)], o)
	})
}

// WithRenderer sets how a copy of a failure's Envelope becomes the text
// blocks the model reads; the default is RenderForModel. An envelope holds
// nothing of a masked error but its ref, so a renderer cannot leak one. One
// that panics or returns no blocks is replaced by RenderForModel for that
// call, and noted; at most 16 blocks are sent, each bounded like a message.
func WithRenderer(r func(e Envelope) []string) Option {
	return nonNil(r,
		"WithRenderer needs a function; pass one, or leave the option out for the default, filter.RenderForModel",
		func(p *Pipeline) { p.render = r })
}

// WithRefGenerator sets the function that makes refs, for tests that need
// predictable ones; the default makes 16 hex digits of 64 random bits. A ref
// must be 1 to 64 ASCII letters, digits, '-', '_' or '.': where gen
// returns anything else or panics, the pipeline uses a random ref instead.
func WithRefGenerator(gen func() string) Option {
	return nonNil(gen, "WithRefGenerator needs a function; leave the option out for random refs",
		func(p *Pipeline) { p.newRef = gen })
}

// WithRedaction keeps personal data out of the log (off by default): error
// texts are redacted with cockroachdb/redact (what is not marked safe becomes
// ‹×›), and domain errors' log-only fields are left out. A redacted record
// still has what failed, the code, ref, ids, the message the client read
// (message), the chain's Go types (error_types), and a redacted stack.
func WithRedaction(redact bool) Option {
	return optionFunc(func(p *Pipeline) error { p.redact = redact; return nil })
}

// WithReportOnly turns report-only mode, off by default, on or off: the
// safe first step of adopting mcperr on a server that exists. In it every
// failure (an error, a panic, arguments the SDK refuses, a hand-built error
// result) reaches the client exactly as without mcperr; a panic is panicked
// again. One record per failure, at the level enforcing would use, says what
// would have been sent (code, whether masked, message, ref); so do observers.
//
// A toolerr.ToolError or a domain error, which only code written for mcperr
// returns, is the exception: the SDK would send its Error(), the cause's
// text included, so it is answered as when enforcing, without retries, and
// its Failure and record are not report-only.
func WithReportOnly(on bool) ToolOption {
	return toolOption{toolConfig: toolConfig{reportOnly: onOff(on)}}
}

// WithArgumentCheck turns on or off the check of a tool call's arguments
// against the tool's input schema before its handler runs; off by default,
// so that schemas looser than their handlers keep their successes. What does
// not fit is refused with VALIDATION_ERROR naming each field and what is
// wrong, never its value (report-only: logged); filters see a *domain.Validation.
func WithArgumentCheck(on bool) ToolOption {
	return toolOption{toolConfig: toolConfig{check: onOff(on)}}
}

// HandBuilt is what a Pipeline does with a tool result with isError set that
// the handler built itself, such as mcp-go's mcp.NewToolResultError or a
// go-sdk CallToolResult with IsError set and no SetError (see WithHandBuilt).
type HandBuilt int

const (
	// PassHandBuilt sends the result unchanged and logs nothing: the default.
	PassHandBuilt HandBuilt = iota
	// ReportHandBuilt sends the result unchanged and logs its text in one
	// WARN record with a ref, code TOOL_ERROR and attribute hand_built.
	ReportHandBuilt
	// MaskHandBuilt replaces the result with a masked internal error, for
	// results with texts the model must not read: one ERROR record keeps it.
	MaskHandBuilt
)

// WithHandBuilt sets the HandBuilt policy. In report-only mode such results
// are reported whatever the policy, and their record says what it would have
// sent. Filters do not see them. Another value is a definition error.
func WithHandBuilt(h HandBuilt) ToolOption {
	if h < PassHandBuilt || h > MaskHandBuilt {
		return toolOption{bad: &codes.DefinitionError{Mistake: codes.InvalidOption,
			Reason: "WithHandBuilt needs filter.PassHandBuilt, filter.ReportHandBuilt or filter.MaskHandBuilt, not " + strconv.Itoa(int(h))}}
	}
	return toolOption{toolConfig: toolConfig{handBuilt: int8(h) + 1}}
}

// ForTool declares at start-up the options of the tool named name, however
// it is added (with mcp.AddTool, by a framework, or with an adapter's
// AddTool, whose own options apply after these). An invalid MCP tool name,
// a name given to ForTool twice, or a bad option is a definition error. A
// name the server has no tool of is reported in one WARN record at the
// server's first tool call.
func ForTool(name string, opts ...ToolOption) Option {
	return optionFunc(func(p *Pipeline) error {
		if err := toolname.Check(name); err != nil {
			return err
		}
		if _, twice := p.tools[name]; twice {
			return &codes.DefinitionError{Mistake: codes.ConflictingConfiguration, Subject: name,
				Reason: "filter.ForTool is given this tool twice; give all of its options in one ForTool"}
		}
		var t toolConfig
		for i, o := range opts {
			if isNil(o) {
				return &codes.DefinitionError{Mistake: codes.NilValue, Reason: "option " + strconv.Itoa(i) +
					" given to filter.ForTool is nil; leave it out, or pass the option you meant"}
			}
			if bad := o.DefinitionError(); bad != nil {
				return bad
			}
			t = o.tool(t)
		}
		if p.tools == nil {
			p.tools = map[string]toolConfig{}
		}
		p.tools[name] = t
		return nil
	})
}

// WithRetries makes the server call a tool again, within the same request,
// after a transient failure, at most max more times (1 to 4, what the retry
// budget below gives one call when it is full); the model reads the success
// or the last failure, whose envelope counts the attempts. A bad max or name
// is a definition error.
//
// A failure is retried when its code is UNAVAILABLE, TIMEOUT (a
// dependency's, never the request's own), CONFLICT, RATE_LIMITED,
// EXTERNAL_SERVICE_ERROR or DATABASE_ERROR, it is retryable as advised with
// a delay of at most 5 s (a longer one is not waited for: the failure is
// answered at once, with its delay), and the tool is annotated readOnlyHint or
// idempotentHint, or named in safe (then idempotent for any failure's
// Response.MayHaveTakenEffect too). The wait is that delay, else 100 ms
// doubled at each attempt up to 2 s, with jitter; none starts that the
// request's deadline, less what the last attempt took, would cut short, nor
// after the request is cancelled. As in gRPC's retry throttling, each
// transient failure spends one of the pipeline's 10 tokens, each successful
// tool call gives back a tenth, and no retry is made while half or more are
// spent: the budget is the Pipeline's, shared by every server Install gives
// it to.
//
// A retried attempt gets the client's arguments, whatever an earlier one did
// to them (a copy per call on mcp-go), and no progress token, so that the
// client's progress for the request never goes back.
func WithRetries(max int, safe ...string) Option {
	return optionFunc(func(p *Pipeline) error {
		if max < 1 || max > maxRetries {
			return &codes.DefinitionError{Mistake: codes.InvalidOption,
				Reason: "WithRetries needs 1 to 4 more attempts (a full retry budget gives one call no more), not " + strconv.Itoa(max) + "; leave the option out for none"}
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
	maxRetries   = 4                      // the retries a full budget allows one call: see budget.allows
	maxRetryWait = 5 * time.Second        // the longest retry delay of a failure waited for
	firstBackoff = 100 * time.Millisecond // the wait before the first retry, without one
	maxBackoff   = 2 * time.Second
	budgetTokens = 10_000 // the budget in thousandths of a token, gRPC's default 10 tokens
	budgetRefund = 100    // a tenth of a token back for a success, as in gRPC
)

// budget is the thousandths of a token spent.
type budget struct{ spent atomic.Int64 }

func (b *budget) add(n int64) {
	for old := b.spent.Load(); !b.spent.CompareAndSwap(old, min(max(old+n, 0), budgetTokens)); old = b.spent.Load() {
	}
}

func (b *budget) allows() bool { return b.spent.Load() < budgetTokens/2 }

func (p *Pipeline) succeeded() {
	if p.retries > 0 {
		p.budget.add(-budgetRefund)
	}
}

// retryIn returns the wait before the tool is called again, or 0 if it is not: see WithRetries.
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
