package gosdk

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
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

// wrap wraps h with b.
func wrap[In, Out any](h mcp.ToolHandlerFor[In, Out], b *binding) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (res *mcp.CallToolResult, out Out, err error) {
		defer func() {
			if v := recover(); v != nil {
				var zero Out
				res, out, err = nil, zero, b.fail(ctx, req, panics.Recovered(v))
			}
		}()
		res, out, err = h(ctx, req, in)
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
// When h fails, the wrapped handler returns a complete error result: one
// text block for the message and one for each hint, the envelope in
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
	return func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		defer func() {
			if v := recover(); v != nil {
				res, err = errorResult(b.fail(ctx, req, panics.Recovered(v))), nil
			}
		}()
		if check != nil {
			if bad := check(req); bad != nil {
				return errorResult(b.fail(ctx, req, bad)), nil
			}
		}
		res, err = h(ctx, req)
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

// nilHandler is the definition error of a nil handler given to fn.
func nilHandler(fn string) *codes.DefinitionError {
	return &codes.DefinitionError{Code: codes.NilHandler, Reason: fn + " needs a handler; pass the function that implements the tool"}
}
