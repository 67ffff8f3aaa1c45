package filter

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/internal/nilness"
	"github.com/mcperr/mcperr/toolerr"
)

// Failure is what an Observer learns of one failure the pipeline handled.
// It holds nothing the log record does not: an Observer that puts it where
// the log's readers look, such as a trace span, keeps the promise the log
// keeps, redaction included.
type Failure struct {
	// Call identifies the request, its request id included.
	Call Call
	// Response is what the client receives: a copy, so that writing to its
	// fields changes nothing sent. Its Details, Hints and Texts are shared:
	// read them only.
	Response *Response
	// ErrorType is the Go type of the error the handler returned, such as
	// "*net.OpError", or "*filter.PanicError" for a panic.
	ErrorType string
	// ErrorText is the error's text as the log record holds it: bounded,
	// and redacted under WithRedaction.
	ErrorText string
	// JSONRPCCode is the code of the JSON-RPC error HandleRPC answers a
	// resource, prompt or completion request with (see HandleRPC); zero
	// for a tool call, whose failure is a result with isError set. An SDK
	// may send another: mcp-go sends every such failure as -32603.
	JSONRPCCode int64
}

// Observer is told of every failure the pipeline handles, client and
// server errors alike, once, after the Response is final and before the
// log record is written: for tracing and metrics, where a Reporter is for
// error tracking. An Observer that panics is recovered, and the failure
// noted in the log record. Observe should be quick: it runs on the path of
// the answer.
type Observer interface {
	Observe(ctx context.Context, f Failure)
}

// ObserverFunc adapts a function to an Observer.
type ObserverFunc func(ctx context.Context, f Failure)

// Observe calls f.
func (f ObserverFunc) Observe(ctx context.Context, fl Failure) { f(ctx, fl) }

// WithObserver adds an Observer, told of every failure. It may be given
// more than once; observers run in the order given.
func WithObserver(o Observer) Option {
	return func(p *Pipeline) error {
		if nilness.IsNil(o) {
			return &toolerr.DefinitionError{Code: codes.InvalidOption,
				Reason: "WithObserver needs an observer; leave the option out to observe nothing"}
		}
		p.observers = append(p.observers, o)
		return nil
	}
}

// observe tells every observer of the failure h, answered with r, and
// notes in the record any that panicked.
func (p *Pipeline) observe(ctx context.Context, h *handling, r *Response) {
	view := *r // an observer that writes to it changes nothing sent
	f := Failure{Call: h.call, Response: &view, ErrorType: bound(fmt.Sprintf("%T", h.orig), 256), ErrorText: h.errText}
	if h.call.Kind != KindTool {
		f.JSONRPCCode = p.rpcCode(h.call, r)
	}
	for _, o := range p.observers {
		p.observeOne(ctx, h, o, f)
	}
}

func (p *Pipeline) observeOne(ctx context.Context, h *handling, o Observer, f Failure) {
	defer func() {
		if v := recover(); v != nil {
			h.attrs = append(h.attrs, slog.String("observer_error", p.text(recovered(v))))
		}
	}()
	o.Observe(ctx, f)
}
