package filter

import (
	"context"
	"runtime/debug"
	"time"

	"github.com/mcperr/mcperr/domain"
)

// Handler is the handler of one tools/call, resources/read, prompts/get or
// completion/complete as an adapter hands it to Serve: how to run it once,
// and what the adapter knows of the tool. The adapter fills it from its
// SDK's types; everything Serve decides, it decides from this, the call,
// the tool's options and the pipeline. R is what the SDK's handler returns
// besides its error, such as a tool result. Serve calls its functions and
// keeps none of them, so that closures given here need not leave the
// caller's stack.
type Handler[R any] struct {
	// Run runs the handler once, with the context Serve gives it, and
	// returns what it returned. A failure that the SDK turned into a
	// result (a typed handler's error, a helper's error result) comes back
	// as the error it stands for.
	Run func(ctx context.Context) (R, error)
	// HandBuilt, if set, reports whether a result Run returned is an error
	// result the handler built itself, and its text, for WithHandBuilt.
	HandBuilt func(res R) (text string, ok bool)
	// Passes, if set, reports whether an error Run returned is a deliberate
	// protocol error, which the SDK sends as it is and Serve passes on.
	Passes func(err error) bool
	// Arguments, if set, says how the call's arguments do not fit the
	// tool's input schema, or that the SDK could not read them (err, the
	// failure Run returned, may say), or returns nil. Serve asks it before
	// the handler runs, with a nil err, when the tool's arguments are
	// checked first (WithArgumentCheck), and after a failure it would
	// otherwise mask.
	Arguments func(err error) *domain.Validation
	// Repeatable, if set, reports whether the tool is annotated read-only
	// or idempotent, so that calling it again is safe whatever a failure
	// did. Serve asks it only when that decides.
	Repeatable func() bool
	// Tools, if set, reports whether the server has a tool of a name, and
	// Problems returns the mistakes in how mcperr is put on the server
	// that the adapter found, such as a middleware between mcperr and the
	// handlers: set for the first tool call a server serves, Serve then
	// writes one ERROR record for each problem and one WARN record naming
	// the tools that ForTool or WithRetries name and the server does not
	// have.
	Tools    func(name string) bool
	Problems func() []string
}

// Serve runs the request call through p, with the handler h and opts, the
// tool's own options as given where it was added (checked then, with
// ToolOption.DefinitionError), which apply over those of ForTool and the
// server's: the check of the arguments before the handler
// (WithArgumentCheck), the handler, once or, after a transient failure,
// again (WithRetries), and the answer to its failure, a panic included,
// mapped and logged once. It is the one run of a call both adapters share,
// and the way for an adapter of another SDK to give a server the same
// contract.
//
// Serve returns what Run returned, and a nil Failure where the adapter
// sends that as it came: a success, a protocol error, a hand-built result
// the policy passes, any failure in report-only mode. Otherwise it returns
// the Failure to answer, in the SDK's own shape, with what the handler
// returned, for an adapter that builds its answer from the SDK's result. A
// panic of the handler in report-only mode is panicked again, for the SDK
// or an outer recovery. A handler that calls runtime.Goexit is logged once,
// and its call left unanswered, as net/http leaves it.
func Serve[R any](ctx context.Context, p *Pipeline, call Call, opts []ToolOption, h Handler[R]) (res R, f *Failure, err error) {
	c := p.enter(ctx, call)
	in := input{call: call, tool: p.toolFor(call.Tool, opts), attempt: 1}
	ask := asks{arguments: h.Arguments, repeatable: h.Repeatable}
	if h.Tools != nil || h.Problems != nil {
		p.checkSetup(c, h.Tools, h.Problems)
	}
	var refused *domain.Validation // the arguments, checked before the handler
	if call.isTool() && h.Arguments != nil && p.checks(in.tool) {
		if refused = noPanic(func() *domain.Validation { return h.Arguments(nil) }); refused != nil && !p.reportOnly(in.tool) {
			in.err = refused
			return res, p.handle(c, &in, &ask), nil
		}
	}
	running := false
	defer func() {
		if !running {
			return
		}
		v := recover() // nil: the handler called runtime.Goexit, and the goroutine ends
		in.err = &PanicError{Value: v, Stack: debug.Stack()}
		if v == nil {
			in.err.(*PanicError).Value = goexit
		}
		var zero R
		if res, f, err = zero, p.handle(c, &in, &ask), nil; f.ReportOnly && v != nil {
			panic(v)
		}
	}()
	for {
		start := time.Now()
		running = true
		res, err = h.Run(c)
		running = false
		in.took = time.Since(start)
		switch {
		case err != nil && h.Passes != nil && noPanic(func() bool { return h.Passes(err) }):
			return res, nil, err
		case err != nil:
			in.err = err
		default:
			text, ok := "", false
			if h.HandBuilt != nil {
				text, ok = h.HandBuilt(res)
			}
			if !ok {
				p.succeeded()
				if refused != nil { // report-only: the refusal mcperr would have sent
					in.err = refused
					p.handle(c, &in, &ask)
				}
				return res, nil, nil
			}
			in.err, in.text = nil, text
		}
		if f = p.handle(c, &in, &ask); f == nil || f.ReportOnly || in.err == nil && p.policy(in.tool) != MaskHandBuilt {
			return res, nil, err // a hand-built result is replaced only when the policy masks it
		}
		if !wait(c, f.Retry) {
			return res, f, err
		}
		in.attempt, in.ref = in.attempt+1, f.Envelope.Ref
	}
}

// goexit is the panic value of the *PanicError that stands for a handler
// that called runtime.Goexit.
const goexit = "the handler called runtime.Goexit"

// wait waits d, unless d is not positive or ctx ends first, and reports
// whether it did: whether the tool is called again.
func wait(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return false
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// input is one failure as Serve or Handle hands it to handle: everything
// the answer is decided from, besides the context, the pipeline and what
// the adapter is asked.
type input struct {
	call    Call
	err     error  // nil for a hand-built result, whose text is text
	text    string // the text of a hand-built result
	tool    toolConfig
	attempt int           // which call of the tool in the request, from 1
	took    time.Duration // how long the attempt ran
	ref     string        // the ref of the earlier attempts' records
}

// asks are the adapter's answers to what only it knows, given apart from
// the input so that they never leave the stack of the request: the
// pipeline calls them and keeps none.
type asks struct {
	arguments  func(err error) *domain.Validation
	repeatable func() bool
}

// toolFor returns how the failures of the tool named name are handled: the
// options of ForTool, then own, over the server's.
func (p *Pipeline) toolFor(name string, own []ToolOption) toolConfig {
	t := p.tools[name]
	for _, o := range own {
		if !isNil(o) {
			t = o.tool(t)
		}
	}
	return t
}

func (p *Pipeline) checks(t toolConfig) bool     { return pick(t.check, p.server.check) == 2 }
func (p *Pipeline) reportOnly(t toolConfig) bool { return pick(t.reportOnly, p.server.reportOnly) == 2 }

func (p *Pipeline) policy(t toolConfig) HandBuilt {
	return HandBuilt(max(pick(t.handBuilt, p.server.handBuilt)-1, 0))
}
