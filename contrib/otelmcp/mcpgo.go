package otelmcp

import (
	"context"
	"errors"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// InstrumentMCPGo makes s record a server span and a point of the
// mcp.server.operation.duration histogram for every tools/call,
// resources/read and prompts/get, as the MCP semantic conventions describe
// them. It adds tool handler middleware with s.Use, and resource and prompt
// handler middleware. Call it once per server, at start-up.
//
// mcp-go runs the middleware added first first. Call InstrumentMCPGo before
// mcpgo.Install, so that its span is active when mcperr maps an error and
// the Observer can mark it:
//
//	otelmcp.InstrumentMCPGo(s)
//	if err := mcpgo.Install(s, p); err != nil { // p built with filter.WithObserver(otelmcp.Observer())
//		return err
//	}
//
// The span is named `tools/call {tool}`, `prompts/get {prompt}` or
// `resources/read`, of kind SERVER, with mcp.method.name, gen_ai.tool.name
// and gen_ai.operation.name=execute_tool (tools), gen_ai.prompt.name
// (prompts), mcp.resource.uri (resources), mcp.session.id,
// mcp.protocol.version and, with WithNetworkTransport, network.transport.
// A failure sets error.type (tool_error for a result with isError set; for
// an error a handler returns, the JSON-RPC code mcp-go sends for it, -32603
// but for a URL elicitation, also as rpc.response.status_code) and the
// status Error. Its parent is the trace context in params._meta, if any
// (see WithPropagator).
//
// The span has no jsonrpc.request.id: mcp-go gives the JSON-RPC id to its
// hooks only, never to a handler or a middleware, and this package does not
// smuggle it through the request. The Observer records mcperr's own request
// id as mcperr.request_id instead.
//
// mcp-go calls no middleware for an unknown tool, resource or prompt, or
// for arguments it refuses itself (server.WithInputSchemaValidation): those
// get no span.
func InstrumentMCPGo(s *server.MCPServer, opts ...Option) {
	in := newInstruments(opts)
	s.Use(in.mcpgoTool)
	server.WithResourceHandlerMiddleware(in.mcpgoResource)(s)
	server.WithPromptHandlerMiddleware(in.mcpgoPrompt)(s)
}

func (in *instruments) mcpgoTool(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		r := mcpgoRequest(ctx, methodCallTool, req.Params.Meta)
		r.tool = req.Params.Name
		ctx, op := in.start(ctx, r)
		defer func() { in.finish(ctx, op, res != nil && res.IsError, err, recover()) }()
		return next(ctx, req)
	}
}

func (in *instruments) mcpgoResource(next server.ResourceHandlerFunc) server.ResourceHandlerFunc {
	return func(ctx context.Context, req mcp.ReadResourceRequest) (res []mcp.ResourceContents, err error) {
		r := mcpgoRequest(ctx, methodReadResource, req.Params.Meta)
		r.uri = req.Params.URI
		ctx, op := in.start(ctx, r)
		defer func() { in.finish(ctx, op, false, err, recover()) }()
		return next(ctx, req)
	}
}

func (in *instruments) mcpgoPrompt(next server.PromptHandlerFunc) server.PromptHandlerFunc {
	return func(ctx context.Context, req mcp.GetPromptRequest) (res *mcp.GetPromptResult, err error) {
		r := mcpgoRequest(ctx, methodGetPrompt, req.Params.Meta)
		r.prompt = req.Params.Name
		ctx, op := in.start(ctx, r)
		defer func() { in.finish(ctx, op, false, err, recover()) }()
		return next(ctx, req)
	}
}

// mcpgoRequest describes a request of method on mcp-go.
func mcpgoRequest(ctx context.Context, method string, meta *mcp.Meta) request {
	r := request{method: method, protocol: server.RequestProtocolVersion(ctx)}
	if s := server.ClientSessionFromContext(ctx); s != nil {
		r.session = s.SessionID()
	}
	if meta != nil {
		r.meta = meta.AdditionalFields
	}
	return r
}

// finish ends the span of op. A panic that passed through the handler
// (recovered is not nil) ends it with error.type _OTHER and goes on.
func (in *instruments) finish(ctx context.Context, op *operation, isError bool, err error, recovered any) {
	if recovered != nil {
		in.end(ctx, op, outcome{errorType: "_OTHER"})
		panic(recovered)
	}
	in.end(ctx, op, mcpgoOutcome(ctx, isError, err))
}

// mcpgoOutcome is what the client receives: a result with isError set, or
// the JSON-RPC error mcp-go makes of err (its handlerError: -32603, but the
// code of a URL elicitation on protocols before 2026-07-28).
func mcpgoOutcome(ctx context.Context, isError bool, err error) outcome {
	if err != nil {
		if required, ok := urlElicitation(err); ok && !mcp.IsModernProtocol(server.RequestProtocolVersion(ctx)) {
			return rpcError(int64(required.JSONRPCError().Error.Code), "")
		}
		return rpcError(mcp.INTERNAL_ERROR, "")
	}
	if isError {
		return toolError
	}
	return outcome{}
}

// urlElicitation finds a URLElicitationRequiredError in err's chain, as
// mcp-go does.
func urlElicitation(err error) (mcp.URLElicitationRequiredError, bool) {
	var required mcp.URLElicitationRequiredError
	if errors.As(err, &required) {
		return required, true
	}
	var pointer *mcp.URLElicitationRequiredError
	if errors.As(err, &pointer) && pointer != nil {
		return *pointer, true
	}
	return required, false
}
