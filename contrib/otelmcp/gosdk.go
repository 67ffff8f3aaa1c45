package otelmcp

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// GoSDKMiddleware returns go-sdk receiving middleware that records a server
// span and a point of the mcp.server.operation.duration histogram for
// every tools/call, resources/read and prompts/get, as the MCP semantic
// conventions describe them; every other method passes through untouched.
//
// go-sdk runs the receiving middleware added last first. Add this one after
// gosdk.Install, so that its span is active when mcperr maps an error and
// the Observer can mark it:
//
//	if err := gosdk.Install(s, p); err != nil { // p built with filter.WithObserver(otelmcp.Observer())
//		return err
//	}
//	s.AddReceivingMiddleware(otelmcp.GoSDKMiddleware())
//
// The span is named `tools/call {tool}`, `prompts/get {prompt}` or
// `resources/read`, of kind SERVER, with mcp.method.name, gen_ai.tool.name
// and gen_ai.operation.name=execute_tool (tools), gen_ai.prompt.name
// (prompts), mcp.resource.uri (resources), mcp.session.id where the
// session has an id, mcp.protocol.version and network.transport (see
// WithNetworkTransport). go-sdk does not expose the JSON-RPC id to
// middleware, so there is no jsonrpc.request.id: the Observer records
// mcperr's own request id as mcperr.request_id. A failure sets error.type (tool_error for a result
// with isError set; the JSON-RPC code otherwise, also as
// rpc.response.status_code) and the status Error. Its parent is the trace
// context in params._meta, if any (see WithPropagator).
func GoSDKMiddleware(opts ...Option) mcp.Middleware {
	in := newInstruments(opts)
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			r, ok := goSDKRequest(method, req)
			if !ok {
				return next(ctx, method, req)
			}
			ctx, op := in.start(ctx, r)
			ended := false
			defer func() {
				if !ended { // next panicked
					in.end(ctx, op, outcome{errorType: "_OTHER"})
				}
			}()
			res, err := next(ctx, method, req)
			ended = true
			in.end(ctx, op, goSDKOutcome(res, err))
			return res, err
		}
	}
}

// goSDKRequest describes req, if its method gets a span.
func goSDKRequest(method string, req mcp.Request) (request, bool) {
	r := request{method: method}
	switch q := req.(type) {
	case *mcp.CallToolRequest:
		if method != methodCallTool || q == nil || q.Params == nil {
			return r, false
		}
		r.tool, r.meta = q.Params.Name, q.Params.Meta
	case *mcp.ReadResourceRequest:
		if method != methodReadResource || q == nil || q.Params == nil {
			return r, false
		}
		r.uri, r.meta = q.Params.URI, q.Params.Meta
	case *mcp.GetPromptRequest:
		if method != methodGetPrompt || q == nil || q.Params == nil {
			return r, false
		}
		r.prompt, r.meta = q.Params.Name, q.Params.Meta
	default:
		return r, false
	}
	if s, ok := req.GetSession().(*mcp.ServerSession); ok && s != nil {
		r.session = s.ID()
	}
	r.protocol = protocolVersion(req)
	if extra := req.GetExtra(); extra != nil && extra.Header != nil {
		r.transport = "tcp" // streamable HTTP or SSE
	}
	return r, true
}

// protocolVersion reads the request's negotiated protocol version, or ""
// if reading it panics, as it can for a request without a session.
func protocolVersion(req mcp.Request) (v string) {
	pv, ok := req.(interface{ ProtocolVersion() string })
	if !ok {
		return ""
	}
	defer func() {
		if recover() != nil {
			v = ""
		}
	}()
	return pv.ProtocolVersion()
}

// goSDKOutcome is what the client receives for res and err.
func goSDKOutcome(res mcp.Result, err error) outcome {
	if err != nil {
		// go-sdk sends a *jsonrpc.Error as it is, keeps the code of one
		// wrapped in the chain, and sends code 0 otherwise; the message is
		// err's text, recorded only when it is the *jsonrpc.Error's own.
		var je *jsonrpc.Error
		if errors.As(err, &je) {
			if je == err {
				return rpcError(je.Code, je.Message)
			}
			return rpcError(je.Code, "")
		}
		return rpcError(0, "")
	}
	if r, ok := res.(*mcp.CallToolResult); ok && r != nil && r.IsError {
		return toolError
	}
	return outcome{}
}
