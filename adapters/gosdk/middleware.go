package gosdk

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/internal/callctx"
	"github.com/mcperr/mcperr/internal/guard"
)

// The methods the middleware serves; every other passes through.
const (
	methodCallTool     = "tools/call"
	methodListTools    = "tools/list"
	methodReadResource = "resources/read"
	methodGetPrompt    = "prompts/get"
	methodComplete     = "completion/complete"
)

// middleware is the receiving middleware that Install puts on a server. It
// gives every request it serves a context that carries the state of st and
// the request's id.
func (st *serverState) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case methodCallTool:
			if call, ok := req.(*mcp.CallToolRequest); ok {
				return st.callTool(callctx.With(ctx, st), next, call)
			}
		case methodReadResource, methodGetPrompt, methodComplete:
			return st.serveRPC(callctx.With(ctx, st), next, method, req)
		case methodListTools:
			res, err := next(ctx, method, req)
			if err == nil {
				st.learn(res)
			}
			return res, err
		}
		return next(ctx, method, req)
	}
}

// callTool runs one tools/call on the calling goroutine. A panic in the
// rest of the chain is recovered here with defer and answered; a
// runtime.Goexit is logged once and leaves the call unanswered, as the
// SDK does.
func (st *serverState) callTool(ctx context.Context, next mcp.MethodHandler, req *mcp.CallToolRequest) (res mcp.Result, err error) {
	returned := false
	defer func() {
		if !returned {
			if failure := guard.Recovered(ctx, recover()); failure != nil {
				st.argumentsOf(ctx, req, true)
				res, err = errorResult(st.mapError(ctx, req, failure)), nil
			}
		}
	}()
	res, err = next(ctx, methodCallTool, req)
	returned = true
	if err != nil {
		if isProtocolError(err) {
			return res, err
		}
		st.argumentsOf(ctx, req, false)
		return errorResult(st.mapError(ctx, req, err)), nil
	}
	r, ok := res.(*mcp.CallToolResult)
	if !ok {
		return res, nil
	}
	if r == nil {
		// A raw handler returned neither a result nor an error. Answer with
		// the empty result a client on an older protocol receives: on the
		// newest protocol the SDK would crash annotating a nil result.
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
	// The SDK refused the arguments before a typed handler ran, or a raw
	// handler marked its result with SetError.
	st.argumentsOf(ctx, req, false)
	fill(r, st.mapError(ctx, req, cause))
	return res, nil
}

// argumentsOf tells the pipeline, through the request's context, how to
// check the arguments of req should the failure it is given be masked: a
// call that fails with arguments that do not fit is the client's failure.
// A nil req, or checked, tells it there is nothing to check.
func (st *serverState) argumentsOf(ctx context.Context, req *mcp.CallToolRequest, checked bool) {
	c := callctx.From(ctx)
	if c == nil {
		return
	}
	if checked || req == nil {
		c.Arguments = nil
		return
	}
	c.Arguments = func() error {
		if v := st.checkArguments(req); v != nil {
			return v
		}
		return nil
	}
}
