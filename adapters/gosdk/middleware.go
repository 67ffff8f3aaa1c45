package gosdk

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/panics"
)

// methodCallTool is the method the middleware handles as a tool call;
// resources/read, prompts/get and completion/complete it handles as
// serveRPC says; every other passes through.
const methodCallTool = "tools/call"

// middleware is the receiving middleware that Install puts on a server.
func (st *serverState) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == methodListTools {
			res, err := next(ctx, method, req)
			if err == nil {
				st.learn(res)
			}
			return res, err
		}
		if kind, ok := rpcKind(method); ok {
			return st.serveRPC(filter.ContextWithRequestID(ctx, ""), next, method, kind, req)
		}
		if method != methodCallTool {
			return next(ctx, method, req)
		}
		call, ok := req.(*mcp.CallToolRequest)
		if !ok {
			return next(ctx, method, req)
		}
		// The SDK does not expose the JSON-RPC id: the call gets an id of
		// its own, minted the first time it is asked for.
		return st.callTool(filter.ContextWithRequestID(ctx, ""), next, call)
	}
}

// callTool runs one tools/call. The rest of the chain runs on a goroutine of
// its own, so that a handler that panics, panics with nil or calls
// runtime.Goexit still gets an answer; the panic is mapped after the chain
// has ended, never in a deferred function.
func (st *serverState) callTool(ctx context.Context, next mcp.MethodHandler, req *mcp.CallToolRequest) (mcp.Result, error) {
	sessions.Store(req.Session, st)
	out, ended := st.chain.Run(chainCall{ctx: ctx, next: next, req: req})
	if failure := panics.Err(ended); failure != nil {
		return errorResult(st.mapError(ctx, req, failure)), nil
	}
	res, err := out.res, out.err
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
	if v := st.checkArguments(req); v != nil {
		// Arguments that do not fit: the SDK refused them before a typed
		// handler ran. A raw handler added to the SDK directly may have run
		// and failed on its own; its error stays in the record either way.
		cause = &refused{v: v, err: cause}
	}
	fill(r, st.mapError(ctx, req, cause))
	return res, nil
}

// chainCall is one call of the rest of the chain, run by serverState.chain.
type chainCall struct {
	ctx  context.Context
	next mcp.MethodHandler
	req  *mcp.CallToolRequest
}

// chainResult is what the rest of the chain returned.
type chainResult struct {
	res mcp.Result
	err error
}

// callChain calls the rest of the chain.
func callChain(c chainCall) chainResult {
	res, err := c.next(c.ctx, methodCallTool, c.req)
	return chainResult{res, err}
}

// refused is what the middleware maps when a call's arguments do not fit
// the tool's schema: the Validation that says how, which the client reads,
// and the error the result carried, which the log keeps.
type refused struct {
	v   *domain.Validation
	err error
}

func (r *refused) Error() string   { return r.v.Error() + " (the result's error: " + r.err.Error() + ")" }
func (r *refused) Unwrap() []error { return []error{r.v, r.err} }
