package filter

import (
	"context"
	"log/slog"
	"strconv"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/internal/toolname"
)

// Option configures a Pipeline, the error handling of a whole server, given
// to New. Every ToolOption is an Option too.
type Option interface{ apply(p *Pipeline) error }

type optionFunc func(p *Pipeline) error

func (o optionFunc) apply(p *Pipeline) error { return o(p) }

// ToolOption configures how the failures of one tool are handled, over the
// server's choice: given where the tool is added (gosdk.AddTool,
// mcpgo.AddTool) or to ForTool, for that tool; given to New, for the whole
// server. WithFilters, WithReportOnly, WithHandBuilt and WithArgumentCheck
// make them.
type ToolOption interface {
	Option
	// DefinitionError returns the mistake the option was built with, such
	// as a nil filter, or nil: New, ForTool and the adapters' AddTool
	// refuse such an option with it, at start-up.
	DefinitionError() *codes.DefinitionError
	tool(t toolConfig) toolConfig
}

// toolConfig is how one tool's failures are handled: its own filters, which
// run before the server's, and its settings, each 0 for the server's, 1 for
// off and 2 for on (handBuilt: 1 + the HandBuilt policy).
type toolConfig struct {
	filters                      []Filter
	reportOnly, check, handBuilt int8
}

// toolOption is the ToolOption of WithFilters, WithReportOnly,
// WithHandBuilt and WithArgumentCheck: what it sets, or its mistake.
type toolOption struct {
	toolConfig
	bad *codes.DefinitionError
}

func (o toolOption) DefinitionError() *codes.DefinitionError { return o.bad }

func (o toolOption) tool(t toolConfig) toolConfig {
	if len(o.filters) > 0 {
		t.filters = append(t.filters[:len(t.filters):len(t.filters)], o.filters...)
	}
	t.reportOnly = pick(o.reportOnly, t.reportOnly)
	t.check = pick(o.check, t.check)
	t.handBuilt = pick(o.handBuilt, t.handBuilt)
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

// pick returns a setting given, or else the one it overrides.
func pick(given, old int8) int8 {
	if given != 0 {
		return given
	}
	return old
}

func onOff(on bool) int8 {
	if on {
		return 2
	}
	return 1
}

// WithLogger sets the logger of the one record written for each failure.
// The default, and what a nil l means, is slog.Default() at the time of
// the failure. If the logger's handler panics or fails, the record is
// written to standard error instead.
func WithLogger(l *slog.Logger) Option {
	return optionFunc(func(p *Pipeline) error { p.logger = l; return nil })
}

// WithRegistry sets the registry that knows the application's own codes,
// their categories and retry advice. The default knows the built-in codes
// only. A code the registry does not know never reaches a client: see
// Pipeline.Handle.
func WithRegistry(r *codes.Registry) Option {
	return optionFunc(func(p *Pipeline) error { p.registry = r; return nil })
}

// WithFilters adds exception filters. Given where a tool is added, or to
// ForTool, they run for that tool's failures, before the server's; given
// to New, for the failures of every tool, resource, prompt and completion
// of the server. The first is outermost: it sees each error first. A nil
// filter, or one that Catch or Is could not build, is a definition error.
func WithFilters(filters ...Filter) ToolOption {
	for i, f := range filters {
		if bad := misdefinedFilter(i, f); bad != nil {
			return toolOption{bad: bad}
		}
	}
	return toolOption{toolConfig: toolConfig{filters: append([]Filter(nil), filters...)}}
}

// WithObserver adds an observer, for tracing, metrics and error tracking:
// it is told once of every failure, client and server errors alike, after
// the answer is final and before the record is written. It receives a copy:
// writing to it changes nothing sent. One that panics is recovered, and the
// panic noted in the record. It runs on the path of the answer: hand slow
// work to a queue. Given more than once, observers run in the order given.
func WithObserver(o func(ctx context.Context, f Failure)) Option {
	return optionFunc(func(p *Pipeline) error {
		if o == nil {
			return &codes.DefinitionError{Mistake: codes.NilValue,
				Reason: "WithObserver needs an observer; leave the option out to observe nothing"}
		}
		p.observers = append(p.observers[:len(p.observers):len(p.observers)], o)
		return nil
	})
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
	return optionFunc(func(p *Pipeline) error {
		if r == nil {
			return &codes.DefinitionError{Mistake: codes.NilValue,
				Reason: "WithRenderer needs a function; pass one, or leave the option out for the default, filter.RenderForModel"}
		}
		p.render = r
		return nil
	})
}

// WithRefGenerator sets the function that makes reference ids, for tests
// that need predictable refs. The default makes 16 hex digits holding 64
// random bits from crypto/rand; a production ref must be as unique. A ref
// must be 1 to 64 ASCII letters, digits, '-', '_' or '.': where gen
// returns anything else or panics, the pipeline uses a random ref instead.
func WithRefGenerator(gen func() string) Option {
	return optionFunc(func(p *Pipeline) error {
		if gen == nil {
			return &codes.DefinitionError{Mistake: codes.NilValue,
				Reason: "WithRefGenerator needs a function; leave the option out for random refs"}
		}
		p.newRef = gen
		return nil
	})
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
	return optionFunc(func(p *Pipeline) error { p.redact = redact; return nil })
}

// WithReportOnly turns report-only mode, off by default, on or off: for the
// whole server given to New, for one tool given where it is added or to
// ForTool. In it mcperr changes nothing a client receives: every failure
// (an error a handler returns, a panic, arguments the SDK refuses, an
// error result the handler built itself) reaches the client exactly as
// without mcperr; a panic is panicked again for the SDK or an outer
// recovery. One record per failure, at the level enforcing would use, says
// what mcperr would have sent: code, whether masked, message and ref.
// Observers get the Failure of enforcing, with Failure.ReportOnly set.
//
// It is the safe first step of adopting mcperr on a server that exists:
// read the records of real traffic, move messages meant for the model to
// toolerr.New, then switch report-only off, one tool at a time
// (ForTool(name, WithReportOnly(false))) or for the whole server.
func WithReportOnly(on bool) ToolOption {
	return toolOption{toolConfig: toolConfig{reportOnly: onOff(on)}}
}

// WithArgumentCheck turns on or off the check of each tool call's arguments
// against the tool's input schema before its handler runs: for the whole
// server given to New, for one tool given where it is added or to ForTool.
// It is off by default, so that a server whose schemas are looser than its
// handlers keeps its successes, and recommended for a new server. Arguments
// that do not fit are refused with VALIDATION_ERROR, naming every such
// field (a JSON Pointer for a nested one) and what is wrong with it, never
// its value, and the handler does not run: the same answer on both SDKs. In
// report-only mode the call runs as without mcperr, and the refusal mcperr
// would have sent is logged. The filters, the tool's and the global ones,
// see a refusal as a *domain.Validation.
func WithArgumentCheck(on bool) ToolOption {
	return toolOption{toolConfig: toolConfig{check: onOff(on)}}
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
// handler built itself, PassHandBuilt (the default), ReportHandBuilt or
// MaskHandBuilt: for the whole server given to New, for one tool given
// where it is added or to ForTool. In report-only mode (WithReportOnly)
// such results are reported whatever the policy, and their record says
// what the policy would have sent. Filters do not see them: they see
// errors. Another value is a definition error.
func WithHandBuilt(h HandBuilt) ToolOption {
	if h < PassHandBuilt || h > MaskHandBuilt {
		return toolOption{bad: &codes.DefinitionError{Mistake: codes.InvalidOption,
			Reason: "WithHandBuilt needs filter.PassHandBuilt, filter.ReportHandBuilt or filter.MaskHandBuilt, not " + strconv.Itoa(int(h))}}
	}
	return toolOption{toolConfig: toolConfig{handBuilt: int8(h) + 1}}
}

// ForTool declares the options of the tool named name, however it is added
// to a server: with mcp.AddTool, by a framework, or with an adapter's
// AddTool, whose own options apply after these (their filters run after
// these filters, their settings replace these). It is how a tool that
// something else registers gets options of its own, declared at start-up:
//
//	filter.New(filter.WithReportOnly(true),
//		filter.ForTool("get_order", filter.WithReportOnly(false), filter.WithFilters(notFound)))
//
// A name that is not a valid MCP tool name, a name given to ForTool twice,
// or a bad option is a definition error. A name the server has no tool of
// is reported in one WARN record at the server's first tool call.
func ForTool(name string, opts ...ToolOption) Option {
	return optionFunc(func(p *Pipeline) error {
		if err := toolname.Check(name); err != nil {
			return err
		}
		if _, twice := p.tools[name]; twice {
			return &codes.DefinitionError{Mistake: codes.ConflictingConfiguration, Subject: name,
				Reason: "filter.ForTool is given this tool twice; give all of its options in one ForTool"}
		}
		t, err := toolOf(opts, "filter.ForTool")
		if err != nil {
			return err
		}
		if p.tools == nil {
			p.tools = map[string]toolConfig{}
		}
		p.tools[name] = t
		return nil
	})
}

// toolOf applies opts, given to fn, in order; a nil or misdefined option is
// a *codes.DefinitionError.
func toolOf(opts []ToolOption, fn string) (toolConfig, error) {
	var t toolConfig
	for i, o := range opts {
		if isNil(o) {
			return t, &codes.DefinitionError{Mistake: codes.NilValue,
				Reason: "option " + strconv.Itoa(i) + " given to " + fn + " is nil; leave it out, or pass the option you meant"}
		}
		if bad := o.DefinitionError(); bad != nil {
			return t, bad
		}
		t = o.tool(t)
	}
	return t, nil
}
