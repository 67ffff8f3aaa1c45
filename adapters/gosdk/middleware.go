package gosdk

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/internal/panics"
)

// methodCallTool is the method the middleware handles; every other passes
// through.
const methodCallTool = "tools/call"

// middleware is the receiving middleware that Install puts on a server.
func (st *serverState) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != methodCallTool {
			return next(ctx, method, req)
		}
		call, ok := req.(*mcp.CallToolRequest)
		if !ok {
			return next(ctx, method, req)
		}
		return st.callTool(ctx, next, call)
	}
}

// callTool runs one tools/call. On the success path it costs a lookup of the
// session, which allocates nothing once the session is known.
func (st *serverState) callTool(ctx context.Context, next mcp.MethodHandler, req *mcp.CallToolRequest) (res mcp.Result, err error) {
	sessions.Store(req.Session, st)
	defer func() {
		if v := recover(); v != nil {
			res, err = errorResult(st.mapError(ctx, req, panics.Recovered(v))), nil
		}
	}()
	res, err = next(ctx, methodCallTool, req)
	if err != nil {
		if isProtocolError(err) {
			return res, err
		}
		return errorResult(st.mapError(ctx, req, err)), nil
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
	if v := st.checkArguments(ctx, next, req); v != nil {
		cause = v
	}
	fill(r, st.mapError(ctx, req, cause))
	return res, nil
}
