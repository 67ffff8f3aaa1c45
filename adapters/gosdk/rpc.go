package gosdk

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/isolate"
	"github.com/mcperr/mcperr/internal/panics"
)

// The methods besides tools/call whose failures the middleware maps: their
// answer to a failure is a JSON-RPC error.
const (
	methodReadResource = "resources/read"
	methodGetPrompt    = "prompts/get"
	methodComplete     = "completion/complete"
)

// rpcKind returns the kind of request of method, if the middleware maps its
// failures.
func rpcKind(method string) (filter.Kind, bool) {
	switch method {
	case methodReadResource:
		return filter.KindResource, true
	case methodGetPrompt:
		return filter.KindPrompt, true
	case methodComplete:
		return filter.KindCompletion, true
	}
	return 0, false
}

// rpcChain runs the rest of the chain of a resources/read, prompts/get or
// completion/complete on a goroutine of its own.
var rpcChain = isolate.NewRunner(callRPCChain)

// rpcChainCall is one such call of the rest of the chain.
type rpcChainCall struct {
	ctx    context.Context
	next   mcp.MethodHandler
	method string
	req    mcp.Request
}

func callRPCChain(c rpcChainCall) chainResult {
	res, err := c.next(c.ctx, c.method, c.req)
	return chainResult{res, err}
}

// serveRPC runs one resources/read, prompts/get or completion/complete. The
// rest of the chain runs on a goroutine of its own, so that a handler that
// panics or ends its goroutine still gets an answer, and the server goes
// on. An error, other than a *jsonrpc.Error returned as it is, and a panic
// become the JSON-RPC error of filter.Pipeline.HandleRPC, mapped and logged
// once. A resource or prompt added with AddResource, AddResourceTemplate or
// AddPrompt maps its own failures, with its own filters, into such a
// *jsonrpc.Error, which passes through here.
func (st *serverState) serveRPC(ctx context.Context, next mcp.MethodHandler, method string, kind filter.Kind, req mcp.Request) (mcp.Result, error) {
	if kind == filter.KindCompletion && !wellFormedCompletion(req) {
		// The SDK refuses it with an error of its own, before any handler.
		return next(ctx, method, req)
	}
	out, ended := rpcChain.Run(rpcChainCall{ctx: ctx, next: next, method: method, req: req})
	if failure := panics.Err(ended); failure != nil {
		return nil, st.rpcFail(ctx, kind, req, failure, nil)
	}
	if out.err == nil || isProtocolError(out.err) {
		return out.res, out.err
	}
	return nil, st.rpcFail(ctx, kind, req, out.err, nil)
}

// wellFormedCompletion reports whether req has what the SDK requires of a
// completion/complete before it calls the handler: a ref and an argument
// name.
func wellFormedCompletion(req mcp.Request) bool {
	r, ok := req.(*mcp.CompleteRequest)
	return ok && r.Params != nil && r.Params.Ref != nil && r.Params.Argument.Name != ""
}

// rpcFail hands err, raised by req, to the pipeline of st with filters, and
// returns the JSON-RPC error to send.
func (st *serverState) rpcFail(ctx context.Context, kind filter.Kind, req mcp.Request, err error, filters []filter.Filter) *jsonrpc.Error {
	return wireError(st.p.HandleRPC(ctx, rpcCallOf(kind, req), err, filters...))
}

// wireError returns the SDK's form of e, with its data as JSON.
func wireError(e *filter.RPCError) *jsonrpc.Error {
	data, err := json.Marshal(e.Data)
	if err != nil {
		data = nil // the envelope is made to encode; never send half of one
	}
	return &jsonrpc.Error{Code: e.Code, Message: e.Message, Data: data}
}

// rpcCallOf describes req, of kind, for the pipeline.
func rpcCallOf(kind filter.Kind, req mcp.Request) filter.Call {
	c := filter.Call{Kind: kind}
	switch r := req.(type) {
	case *mcp.ReadResourceRequest:
		if r != nil {
			if r.Params != nil {
				c.Resource = r.Params.URI
			}
			c.ProtocolVersion, c.SessionID = protocolVersion(r), sessionID(r.Session)
		}
	case *mcp.GetPromptRequest:
		if r != nil {
			if r.Params != nil {
				c.Prompt = r.Params.Name
			}
			c.ProtocolVersion, c.SessionID = protocolVersion(r), sessionID(r.Session)
		}
	case *mcp.CompleteRequest:
		if r != nil {
			if r.Params != nil && r.Params.Ref != nil {
				if r.Params.Ref.Type == "ref/prompt" {
					c.Prompt = r.Params.Ref.Name
				} else {
					c.Resource = r.Params.Ref.URI
				}
			}
			c.ProtocolVersion, c.SessionID = protocolVersion(r), sessionID(r.Session)
		}
	}
	return c
}

// sessionID returns the id of s, or "" for none.
func sessionID(s *mcp.ServerSession) string {
	if s == nil {
		return ""
	}
	return s.ID()
}

// protocolVersion reads the request's negotiated protocol version, or ""
// if reading it panics, as it does for a request without a session.
func protocolVersion(r interface{ ProtocolVersion() string }) (v string) {
	defer func() {
		if recover() != nil {
			v = ""
		}
	}()
	return r.ProtocolVersion()
}

// handlerCall is one call of a resource, prompt or completion handler.
type handlerCall[Req, Res any] struct {
	h   func(context.Context, Req) (Res, error)
	ctx context.Context
	req Req
}

// handlerResult is what it returned.
type handlerResult[Res any] struct {
	res Res
	err error
}

func callHandler[Req, Res any](c handlerCall[Req, Res]) handlerResult[Res] {
	res, err := c.h(c.ctx, c.req)
	return handlerResult[Res]{res, err}
}

// wrapRPC wraps the handler h of a resource, template or prompt added to the
// server of st: a panic or an error, other than a *jsonrpc.Error returned as
// it is, becomes the JSON-RPC error of the pipeline of st, with filters
// before the global ones. h runs on the middleware's goroutine; one that
// ends it is answered by the middleware, with the global filters only.
func wrapRPC[Req mcp.Request, Res any](st *serverState, kind filter.Kind, h func(context.Context, Req) (Res, error), filters []filter.Filter) func(context.Context, Req) (Res, error) {
	runner := isolate.NewRunner(callHandler[Req, Res])
	return func(ctx context.Context, req Req) (Res, error) {
		ctx = filter.ContextWithRequestID(ctx, "") // as it is under the middleware
		var zero Res
		// The middleware, which every server with such handlers has, runs
		// this on a goroutine of its own already: one that ends it is
		// answered there. A panic is mapped here, with the filters.
		out, ended := runner.Call(handlerCall[Req, Res]{h: h, ctx: ctx, req: req})
		if failure := panics.Err(ended); failure != nil {
			return zero, st.rpcFail(ctx, kind, req, failure, filters)
		}
		if out.err == nil || isProtocolError(out.err) {
			return out.res, out.err
		}
		return zero, st.rpcFail(ctx, kind, req, out.err, filters)
	}
}
