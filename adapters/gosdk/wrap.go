package gosdk

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/isolate"
	"github.com/mcperr/mcperr/internal/panics"
)

// Wrap returns a typed tool handler that runs the errors and panics of h
// through the mcperr configuration of the server it runs on, with the
// filters given by WithFilters bound to this tool:
//
//	mcp.AddTool(s, tool, gosdk.Wrap(h, gosdk.WithFilters(f)))
//
// The SDK rebuilds the result of a typed handler that fails and checks its
// arguments before the handler runs, so Wrap gives the whole contract only
// on a server where mcperr is installed (Install, or AddTool for any tool):
// the middleware adds the error envelope and hint blocks and explains
// refused arguments. AddTool does both in one line and is the drop-in to
// prefer. On a server without mcperr, Wrap still masks and logs failures
// with the default configuration, and its first failure writes one ERROR
// record saying what is missing.
//
// A *jsonrpc.Error that h returns as it is passes through, as do results
// that h built itself with IsError set but without SetError, and successful
// results. Like regexp.MustCompile, Wrap panics with a
// *toolerr.DefinitionError, at start-up, if h or a filter is nil.
func Wrap[In, Out any](h mcp.ToolHandlerFor[In, Out], opts ...Option) mcp.ToolHandlerFor[In, Out] {
	if h == nil {
		panic(nilHandler("Wrap"))
	}
	c := mustConfig("Wrap", opts)
	return wrap(h, &binding{fn: "Wrap", filters: c.filters})
}

// binding says where a wrapped handler finds its configuration: the state
// of the server it was added to by AddTool or AddRawTool, or else that of
// the server its session belongs to.
type binding struct {
	st      *serverState // set by AddTool and AddRawTool
	fn      string       // the function that wrapped the handler
	filters []filter.Filter
	unbound unbound
}

// state returns the configuration of the call req.
func (b *binding) state(ctx context.Context, req *mcp.CallToolRequest) *serverState {
	if b.st != nil {
		return b.st
	}
	if req != nil {
		if st := sessions.Load(req.Session); st != nil {
			return st
		}
	}
	return b.unbound.state(ctx, b.fn, callOf(req).Tool)
}

// fail maps err, raised by the call req, with the configuration of the call
// and the filters of b.
func (b *binding) fail(ctx context.Context, req *mcp.CallToolRequest, err error) *mappedError {
	if m, ok := err.(*mappedError); ok {
		return m
	}
	return b.state(ctx, req).mapWith(ctx, req, err, b.filters)
}

// served reports whether mcperr's middleware runs the call req, and so
// answers for a handler that ends its goroutine.
func (b *binding) served(req *mcp.CallToolRequest) bool {
	return b.st != nil || req != nil && sessions.Load(req.Session) != nil
}

// typedCall is one call of a typed handler.
type typedCall[In, Out any] struct {
	h   mcp.ToolHandlerFor[In, Out]
	ctx context.Context
	req *mcp.CallToolRequest
	in  In
}

// typedResult is what a typed handler returned.
type typedResult[Out any] struct {
	res *mcp.CallToolResult
	out Out
	err error
}

func callTyped[In, Out any](c typedCall[In, Out]) typedResult[Out] {
	res, out, err := c.h(c.ctx, c.req, c.in)
	return typedResult[Out]{res, out, err}
}

// wrap wraps h with b. Where mcperr's middleware serves the call, h runs on
// the calling goroutine; elsewhere on one of its own, so that a handler that
// ends its goroutine is still answered.
func wrap[In, Out any](h mcp.ToolHandlerFor[In, Out], b *binding) mcp.ToolHandlerFor[In, Out] {
	runner := isolate.NewRunner(callTyped[In, Out])
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		ctx = filter.ContextWithRequestID(ctx, "") // as it is under the middleware
		c := typedCall[In, Out]{h: h, ctx: ctx, req: req, in: in}
		var r typedResult[Out]
		var ended isolate.Outcome
		if b.served(req) {
			r, ended = runner.Call(c)
		} else {
			r, ended = runner.Run(c)
		}
		if failure := panics.Err(ended); failure != nil {
			var zero Out
			return nil, zero, b.fail(ctx, req, failure)
		}
		res, out, err := r.res, r.out, r.err
		switch {
		case err == nil && (res == nil || !res.IsError || res.GetError() == nil):
			return res, out, nil
		case err == nil:
			// An error result marked with SetError: return its error, so that
			// the SDK builds the error result and attaches no output.
			err = res.GetError()
		case isProtocolError(err):
			return res, out, err
		}
		var zero Out
		return nil, zero, b.fail(ctx, req, err)
	}
}

// WrapRaw returns a raw tool handler that runs the errors and panics of h
// through the mcperr configuration of the server it runs on, with the
// filters given by WithFilters bound to this tool:
//
//	s.AddTool(tool, gosdk.WrapRaw(h))
//
// When h fails, the wrapped handler returns a complete error result: the
// text blocks of the pipeline's Response (the message, then what the model
// needs to act on it), the envelope in
// _meta[filter.MetaKey], no structured content. Like the SDK's raw
// handlers, WrapRaw does not check arguments against the input schema;
// AddRawTool does. On a server without mcperr installed, WrapRaw uses the
// default configuration, and its first failure writes one ERROR record
// saying so.
//
// A *jsonrpc.Error that h returns as it is passes through, as do results
// that h built itself with IsError set but without SetError, and successful
// results. Like regexp.MustCompile, WrapRaw panics with a
// *toolerr.DefinitionError, at start-up, if h or a filter is nil.
func WrapRaw(h mcp.ToolHandler, opts ...Option) mcp.ToolHandler {
	if h == nil {
		panic(nilHandler("WrapRaw"))
	}
	c := mustConfig("WrapRaw", opts)
	return wrapRaw(h, &binding{fn: "WrapRaw", filters: c.filters}, nil)
}

// wrapRaw wraps h with b. If check is not nil, it runs before h and h does
// not run when it returns an error.
func wrapRaw(h mcp.ToolHandler, b *binding, check func(*mcp.CallToolRequest) error) mcp.ToolHandler {
	runner := isolate.NewRunner(callRaw)
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx = filter.ContextWithRequestID(ctx, "") // as it is under the middleware
		if check != nil {
			if bad := check(req); bad != nil {
				return errorResult(b.fail(ctx, req, bad)), nil
			}
		}
		c := rawCall{h: h, ctx: ctx, req: req}
		var r rawResult
		var ended isolate.Outcome
		if b.served(req) {
			r, ended = runner.Call(c)
		} else {
			r, ended = runner.Run(c)
		}
		if failure := panics.Err(ended); failure != nil {
			return errorResult(b.fail(ctx, req, failure)), nil
		}
		res, err := r.res, r.err
		if err != nil {
			if isProtocolError(err) {
				return res, err
			}
			return errorResult(b.fail(ctx, req, err)), nil
		}
		if res == nil || !res.IsError {
			return res, nil
		}
		if cause := res.GetError(); cause != nil {
			fill(res, b.fail(ctx, req, cause))
		}
		return res, nil
	}
}

// rawCall is one call of a raw handler.
type rawCall struct {
	h   mcp.ToolHandler
	ctx context.Context
	req *mcp.CallToolRequest
}

// rawResult is what a raw handler returned.
type rawResult struct {
	res *mcp.CallToolResult
	err error
}

func callRaw(c rawCall) rawResult {
	res, err := c.h(c.ctx, c.req)
	return rawResult{res, err}
}

// nilHandler is the definition error of a nil handler given to fn.
func nilHandler(fn string) *codes.DefinitionError {
	return &codes.DefinitionError{Code: codes.NilHandler, Reason: fn + " needs a handler; pass the function that implements the tool"}
}
