package mcpgo

import (
	"context"
	"reflect"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/isolate"
	"github.com/mcperr/mcperr/internal/panics"
)

// rpcFailure is what a resource, prompt or completion handler served by
// mcperr returns when it fails: the JSON-RPC error of
// filter.Pipeline.HandleRPC. The SDK sends its Error text, the message the
// client reads, exactly, as the error's message, always under the code
// -32603 and without data: mcp-go v1.2.1 offers no way to choose either for
// a handler's error. It does not unwrap to the handler's error, so that
// nothing in that chain can make the SDK send more.
type rpcFailure struct{ e *filter.RPCError }

func (f *rpcFailure) Error() string { return f.e.Message }

// serveRPC runs one resource, prompt or completion handler, next, with the
// configuration of st: a panic, or an error other than a deliberate
// protocol error or one mapped already, becomes an *rpcFailure, mapped with
// filters and logged once. If isolated, next runs on a goroutine of its
// own, so that a handler that ends its goroutine is answered, and the
// server goes on; the middleware isolates every call, and a handler added
// with AddResource, AddResourceTemplate or AddPrompt, which always runs
// under it, runs on its goroutine.
func serveRPC[Res any](ctx context.Context, st *serverState, call filter.Call, next func(context.Context) (Res, error), filters []filter.Filter, isolated bool) (Res, error) {
	ctx = filter.ContextWithRequestID(ctx, call.RequestID)
	var zero Res
	var out rpcResult[Res]
	var ended isolate.Outcome
	if isolated {
		out, ended = runnerOf[Res]().Run(rpcCall[Res]{ctx: ctx, next: next})
	} else {
		out, ended = runnerOf[Res]().Call(rpcCall[Res]{ctx: ctx, next: next})
	}
	if failure := panics.Err(ended); failure != nil {
		return zero, &rpcFailure{st.p.HandleRPC(ctx, call, failure, filters...)}
	}
	if out.err == nil || isProtocolError(out.err) {
		return out.res, out.err
	}
	if f, ok := out.err.(*rpcFailure); ok {
		return zero, f
	}
	return zero, &rpcFailure{st.p.HandleRPC(ctx, call, out.err, filters...)}
}

// runners holds one Runner for each result type of serveRPC, so that its
// calls reuse the Runner's pooled goroutines and allocate nothing once warm.
var runners sync.Map // reflect.Type of Res -> *isolate.Runner[rpcCall[Res], rpcResult[Res]]

// runnerOf returns the Runner of serveRPC for results of type Res.
func runnerOf[Res any]() *isolate.Runner[rpcCall[Res], rpcResult[Res]] {
	key := reflect.TypeFor[Res]()
	if r, ok := runners.Load(key); ok {
		return r.(*isolate.Runner[rpcCall[Res], rpcResult[Res]])
	}
	r, _ := runners.LoadOrStore(key, isolate.NewRunner(callRPC[Res]))
	return r.(*isolate.Runner[rpcCall[Res], rpcResult[Res]])
}

// rpcCall is one call of a resource, prompt or completion handler.
type rpcCall[Res any] struct {
	ctx  context.Context
	next func(context.Context) (Res, error)
}

// rpcResult is what it returned.
type rpcResult[Res any] struct {
	res Res
	err error
}

func callRPC[Res any](c rpcCall[Res]) rpcResult[Res] {
	res, err := c.next(c.ctx)
	return rpcResult[Res]{res, err}
}

// rpcCallOf describes a request of kind for the pipeline: the session id
// and protocol version are the SDK's.
func rpcCallOf(ctx context.Context, kind filter.Kind) filter.Call {
	c := filter.Call{Kind: kind, ProtocolVersion: server.RequestProtocolVersion(ctx)}
	if s := server.ClientSessionFromContext(ctx); s != nil {
		c.SessionID = s.SessionID()
	}
	return c
}

// resourceMiddleware is the resource handler middleware that Install puts
// on a server: it serves every resources/read, of resources and templates,
// however they were added.
func (st *serverState) resourceMiddleware(next server.ResourceHandlerFunc) server.ResourceHandlerFunc {
	return func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		call := rpcCallOf(ctx, filter.KindResource)
		call.Resource = req.Params.URI
		call.RequestID = headerID(req.Header)
		return serveRPC(ctx, st, call, func(ctx context.Context) ([]mcp.ResourceContents, error) { return next(ctx, req) }, nil, true)
	}
}

// promptMiddleware is the prompt handler middleware that Install puts on a
// server: it serves every prompts/get, however the prompt was added.
func (st *serverState) promptMiddleware(next server.PromptHandlerFunc) server.PromptHandlerFunc {
	return func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		call := rpcCallOf(ctx, filter.KindPrompt)
		call.Prompt = req.Params.Name
		call.RequestID = headerID(req.Header)
		return serveRPC(ctx, st, call, func(ctx context.Context) (*mcp.GetPromptResult, error) { return next(ctx, req) }, nil, true)
	}
}
