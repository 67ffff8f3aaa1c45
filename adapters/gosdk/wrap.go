package gosdk

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/toolerr"
)

// Wrap returns a typed tool handler that runs the errors and panics of h
// through the pipeline, with the filters given by WithFilters bound to this
// tool. It is a drop-in replacement:
//
//	mcp.AddTool(s, tool, gosdk.Wrap(h, gosdk.WithFilters(f)))
//
// When h returns an error, returns a result marked with SetError, or panics,
// the wrapped handler returns an error whose text is exactly the message the
// pipeline chose, so the SDK sends that text with isError set and no
// structured content; a masked error never reaches the client. The
// error envelope and the hint blocks need Middleware as well, which finds
// the mapped error in the result and adds them without mapping or logging it
// again; NewTools installs both. Arguments the SDK refuses before h runs are
// reported by Middleware only.
//
// A *jsonrpc.Error that h returns as it is passes through, as do results
// that h built itself with IsError set but without SetError, and successful
// results. Like regexp.MustCompile, Wrap panics with a
// *toolerr.DefinitionError if h or a filter is nil.
func Wrap[In, Out any](h mcp.ToolHandlerFor[In, Out], opts ...Option) mcp.ToolHandlerFor[In, Out] {
	if h == nil {
		panic(nilHandler("Wrap"))
	}
	return wrap(h, newConfig(opts).mustBuild())
}

// wrap wraps h with p.
func wrap[In, Out any](h mcp.ToolHandlerFor[In, Out], p *filter.Pipeline) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (res *mcp.CallToolResult, out Out, err error) {
		defer func() {
			if v := recover(); v != nil {
				var zero Out
				res, out, err = nil, zero, mapError(ctx, p, req, filter.Recovered(v))
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
		return nil, zero, mapError(ctx, p, req, err)
	}
}

// WrapRaw returns a raw tool handler that runs the errors and panics of h
// through the pipeline, with the filters given by WithFilters bound to this
// tool. It is a drop-in replacement:
//
//	s.AddTool(tool, gosdk.WrapRaw(h))
//
// When h returns an error, returns a result marked with SetError, or panics,
// the wrapped handler returns a complete error result: one text block a text
// of the pipeline's Response, its envelope in _meta[filter.MetaKey], no
// structured content. Middleware, if installed too, maps nothing again.
//
// A *jsonrpc.Error that h returns as it is passes through, as do results
// that h built itself with IsError set but without SetError, and successful
// results. Like the SDK's raw handlers, WrapRaw does not check arguments
// against the input schema; (*Tools).AddRawTool does. Like
// regexp.MustCompile, WrapRaw panics with a *toolerr.DefinitionError if h or
// a filter is nil.
func WrapRaw(h mcp.ToolHandler, opts ...Option) mcp.ToolHandler {
	if h == nil {
		panic(nilHandler("WrapRaw"))
	}
	return wrapRaw(h, newConfig(opts).mustBuild(), nil)
}

// wrapRaw wraps h with p. If check is not nil, it runs before h and h does not
// run when it returns an error.
func wrapRaw(h mcp.ToolHandler, p *filter.Pipeline, check func(*mcp.CallToolRequest) error) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		defer func() {
			if v := recover(); v != nil {
				res, err = errorResult(mapError(ctx, p, req, filter.Recovered(v))), nil
			}
		}()
		if check != nil {
			if bad := check(req); bad != nil {
				return errorResult(mapError(ctx, p, req, bad)), nil
			}
		}
		res, err = h(ctx, req)
		if err != nil {
			if isProtocolError(err) {
				return res, err
			}
			return errorResult(mapError(ctx, p, req, err)), nil
		}
		if res == nil || !res.IsError {
			return res, nil
		}
		if cause := res.GetError(); cause != nil {
			fill(res, mapError(ctx, p, req, cause))
		}
		return res, nil
	}
}

// nilHandler is the definition error of a nil handler given to fn.
func nilHandler(fn string) *toolerr.DefinitionError {
	return &toolerr.DefinitionError{Code: codes.NilHandler, Reason: fn + " needs a handler; pass the function that implements the tool"}
}
