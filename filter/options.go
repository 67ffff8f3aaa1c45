package filter

import (
	"context"
	"log/slog"
	"strconv"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/internal/nilness"
)

// Option configures a Pipeline: the whole server's error handling. What
// applies to one tool, resource or prompt is an option of the adapter,
// given where that item is registered.
type Option func(*Pipeline) error

// WithLogger sets the logger of the one record written for each failure.
// The default, and what a nil l means, is slog.Default() at the time of
// the failure. If the logger's handler panics or fails, the record is
// written to standard error instead.
func WithLogger(l *slog.Logger) Option {
	return func(p *Pipeline) error { p.logger = l; return nil }
}

// WithRegistry sets the registry that knows the application's own codes,
// their categories and retry advice. The default knows the built-in codes
// only. A code the registry does not know never reaches a client: see
// Pipeline.Handle.
func WithRegistry(r *codes.Registry) Option {
	return func(p *Pipeline) error { p.registry = r; return nil }
}

// WithGlobalFilters adds filters that run for every tool, resource, prompt
// and completion of the server, after the filters given to that item where
// it was registered. The first is outermost: it sees each error first. A
// nil filter is a definition error.
func WithGlobalFilters(filters ...Filter) Option {
	return func(p *Pipeline) error {
		if err := nilness.CheckFilters("WithGlobalFilters", filters); err != nil {
			return err
		}
		p.global = append(p.global[:len(p.global):len(p.global)], filters...)
		return nil
	}
}

// WithObserver adds an observer, for tracing, metrics and error tracking:
// it is told once of every failure, client and server errors alike, after
// the answer is final and before the record is written. It receives a copy:
// writing to it changes nothing sent. One that panics is recovered, and the
// panic noted in the record. It runs on the path of the answer: hand slow
// work to a queue. Given more than once, observers run in the order given.
func WithObserver(o func(ctx context.Context, f Failure)) Option {
	return func(p *Pipeline) error {
		if o == nil {
			return &codes.DefinitionError{Mistake: codes.NilValue,
				Reason: "WithObserver needs an observer; leave the option out to observe nothing"}
		}
		p.observers = append(p.observers[:len(p.observers):len(p.observers)], o)
		return nil
	}
}

// WithRenderer sets how a failure's completed Envelope (code, message,
// details, retry advice, ref and hints all set) becomes the text blocks
// that hosts give the model, in order; the envelope in _meta is for
// programs. The default is RenderForModel; the message alone is
//
//	filter.WithRenderer(func(e filter.Envelope) []string { return []string{e.Message} })
//
// All it returns is sent to the client; an envelope holds nothing of a
// masked error but its ref, so it cannot leak one. It receives a copy:
// writing to it changes nothing sent. One that panics or returns no blocks
// is replaced by RenderForModel for that call, and noted in its record; at
// most 16 blocks are sent, each bounded like a message.
func WithRenderer(r func(e Envelope) []string) Option {
	return func(p *Pipeline) error {
		if r == nil {
			return &codes.DefinitionError{Mistake: codes.NilValue,
				Reason: "WithRenderer needs a function; pass one, or leave the option out for the default, filter.RenderForModel"}
		}
		p.render = r
		return nil
	}
}

// WithRefGenerator sets the function that makes reference ids, for tests
// that need predictable refs. The default makes 16 hex digits holding 64
// random bits from crypto/rand; a production ref must be as unique. A ref
// must be 1 to 64 ASCII letters, digits, '-', '_' or '.': where gen
// returns anything else or panics, the pipeline uses a random ref instead.
func WithRefGenerator(gen func() string) Option {
	return func(p *Pipeline) error {
		if gen == nil {
			return &codes.DefinitionError{Mistake: codes.NilValue,
				Reason: "WithRefGenerator needs a function; leave the option out for random refs"}
		}
		p.newRef = gen
		return nil
	}
}

// WithRedaction keeps personal data out of the log: error texts are
// redacted with cockroachdb/redact (the parts not marked safe become ‹×›),
// and the log-only fields of domain errors, such as a Validation's value,
// are left out. Off by default.
//
// A redacted record still says what failed: the tool, resource or prompt,
// the code, the ref, the request and session ids, the message the client
// read (message), the error's text with the parts cockroachdb/errors marks
// safe (errors.Newf's format, redact.Safe arguments, errors.Safe values)
// and ‹×› for the rest, the Go types of the error chain (error_types), and
// a cockroachdb/errors stack with the same redaction.
func WithRedaction(redact bool) Option {
	return func(p *Pipeline) error { p.redact = redact; return nil }
}

// WithReportOnly turns report-only mode, off by default, on or off for the
// whole server. In it mcperr changes nothing a client receives: every
// failure (an error a handler returns, a panic, arguments the SDK refuses,
// an error result the handler built itself) reaches the client exactly as
// without mcperr; a panic is panicked again for the SDK or an outer
// recovery. One record per failure, at the level enforcing would use, says
// what mcperr would have sent: code, whether masked, message and ref.
// Observers get the Failure of enforcing, with Failure.ReportOnly set.
//
// It is the safe first step of adopting mcperr on a server that exists:
// read the records of real traffic, move messages meant for the model to
// toolerr.New, then switch report-only off, for the whole server or one
// tool at a time with the adapter's WithReportOnly(false).
func WithReportOnly(on bool) Option {
	return func(p *Pipeline) error { p.reportOnly = on; return nil }
}

// WithArgumentCheck turns on or off, for the whole server, the check of
// each tool call's arguments against the tool's input schema before its
// handler runs. It is off by default, so that a server whose schemas are
// looser than its handlers keeps its successes, and recommended for a new
// server. Arguments that do not fit are refused with VALIDATION_ERROR,
// naming every such field (a JSON Pointer for a nested one) and what is
// wrong with it, never its value, and the handler does not run: the same
// answer on both SDKs. The adapter's WithArgumentCheck, given to its
// AddTool, sets it for one tool. In report-only mode the call runs as
// without mcperr, and the refusal mcperr would have sent is logged. The
// filters, the tool's and the global ones, see a refusal as a
// *domain.Validation.
func WithArgumentCheck(on bool) Option {
	return func(p *Pipeline) error { p.checkArgs = on; return nil }
}

// HandBuilt is what a Pipeline does with a tool result that has isError
// set and that the handler built itself, such as mcp-go's
// mcp.NewToolResultError or a go-sdk CallToolResult with IsError set and
// no SetError. mcperr handles the errors a handler returns; a result built
// by hand is the server's own answer, so by default it passes untouched.
type HandBuilt int

// The policies for error results a handler built itself.
const (
	// PassHandBuilt sends the result unchanged and logs nothing: the
	// default.
	PassHandBuilt HandBuilt = iota
	// ReportHandBuilt sends the result unchanged and logs it in one WARN
	// record with a ref and its text (redacted under WithRedaction),
	// code TOOL_ERROR, attribute hand_built.
	ReportHandBuilt
	// MaskHandBuilt replaces the result with a masked internal error: the
	// model reads `Internal error in tool "x" (ref: R).`, and one ERROR
	// record with R keeps the result's text. For a server whose hand-built
	// results carry error texts the model must not read.
	MaskHandBuilt
)

// WithHandBuilt sets the policy for tool results with isError set that a
// handler built itself, for the whole server: PassHandBuilt (the default),
// ReportHandBuilt or MaskHandBuilt. The adapter's WithHandBuilt sets it
// for one tool. In report-only mode (WithReportOnly) such results are
// reported whatever the policy, and their record says what the policy
// would have sent. Filters do not see them: they see errors.
func WithHandBuilt(h HandBuilt) Option {
	return func(p *Pipeline) error {
		if h < PassHandBuilt || h > MaskHandBuilt {
			return &codes.DefinitionError{Mistake: codes.InvalidOption,
				Reason: "WithHandBuilt needs filter.PassHandBuilt, filter.ReportHandBuilt or filter.MaskHandBuilt, not " + strconv.Itoa(int(h))}
		}
		p.handBuilt = h
		return nil
	}
}
