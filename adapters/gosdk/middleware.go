package gosdk

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/inputschema"
)

// methodCallTool is the method Middleware handles; every other passes through.
const methodCallTool = "tools/call"

// Middleware returns a receiving middleware that runs every tools/call of a
// server through the pipeline. Install it once, at start-up:
//
//	s.AddReceivingMiddleware(gosdk.Middleware())
//
// For each call it turns into an error result, mapped and logged once:
//
//   - an error a typed handler returned, read with CallToolResult.GetError
//     and replaced in the result the SDK built;
//   - an error result a raw handler marked with SetError;
//   - an error a raw handler returned, which the SDK alone would send as a
//     JSON-RPC error with code 0 and the raw text;
//   - a panic in the handler, which the SDK alone lets kill the process;
//   - arguments the SDK refused because they do not fit the tool's input
//     schema: a VALIDATION_ERROR naming each wrong field and what is wrong
//     with it, never its value.
//
// To tell refused arguments from a handler's error without reading the SDK's
// message, Middleware checks the arguments against the tool's input schema,
// which it lists with tools/list through the middleware installed after it;
// it does so only for error results, never for a successful call.
//
// An error result made by Wrap, WrapRaw or a Tools helper is already mapped
// and logged: Middleware adds its envelope and hint blocks and maps nothing
// again. A *jsonrpc.Error returned as it is, an unknown tool, every other
// method, a result a handler built itself with IsError set but without
// SetError, and every successful result pass through untouched. A raw
// handler that returns neither a result nor an error gets an empty result,
// where the SDK alone would crash the server for clients of the newest
// protocol.
//
// Given WithFilters, the filters run for every tool. Like
// regexp.MustCompile, Middleware panics with a *toolerr.DefinitionError if
// given a nil filter.
func Middleware(opts ...Option) mcp.Middleware {
	m := &middleware{p: newConfig(opts).mustBuild()}
	return m.wrap
}

// middleware is the state of one Middleware: its pipeline and the input
// schemas it has compiled.
type middleware struct {
	p       *filter.Pipeline
	schemas inputschema.Cache
}

func (m *middleware) wrap(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != methodCallTool {
			return next(ctx, method, req)
		}
		call, ok := req.(*mcp.CallToolRequest)
		if !ok {
			return next(ctx, method, req)
		}
		return m.callTool(ctx, next, call)
	}
}

// callTool runs one tools/call. The success path costs two type assertions.
func (m *middleware) callTool(ctx context.Context, next mcp.MethodHandler, req *mcp.CallToolRequest) (res mcp.Result, err error) {
	defer func() {
		if v := recover(); v != nil {
			res, err = errorResult(mapError(ctx, m.p, req, filter.Recovered(v))), nil
		}
	}()
	res, err = next(ctx, methodCallTool, req)
	if err != nil {
		if isProtocolError(err) {
			return res, err
		}
		return errorResult(mapError(ctx, m.p, req, err)), nil
	}
	r, ok := res.(*mcp.CallToolResult)
	if !ok {
		return res, nil
	}
	if r == nil {
		// A raw handler returned neither a result nor an error. Answer with
		// the empty result a client on an older protocol receives: on the
		// newest protocol the SDK would crash the server annotating a nil
		// result.
		return &mcp.CallToolResult{Content: []mcp.Content{}}, nil
	}
	if !r.IsError {
		return res, nil
	}
	cause := r.GetError()
	if cause == nil {
		return res, nil // built by the handler itself
	}
	if me, ok := cause.(*mappedError); ok {
		fill(r, me)
		return res, nil
	}
	if v := m.checkArguments(ctx, next, req); v != nil {
		cause = v
	}
	fill(r, mapError(ctx, m.p, req, cause))
	return res, nil
}
