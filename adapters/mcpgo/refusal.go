package mcpgo

import (
	"context"
	"weak"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/callctx"
)

// hook adds to s the hooks that answer the SDK's own refusal of a call's
// arguments: server.WithInputSchemaValidation refuses them before any
// middleware runs, with the validator's text, which can hold the refused
// value. It adds to the hooks s has, or gives s hooks of its own if it has
// none.
func (st *serverState) hook(s *server.MCPServer) {
	st.self = weak.Make(s)
	hooks := s.GetHooks()
	if hooks == nil {
		hooks = &server.Hooks{}
		server.WithHooks(hooks)(s)
	}
	hooks.AddAfterCallTool(st.afterCallTool)
	hooks.AddOnError(func(ctx context.Context, _ any, method mcp.MCPMethod, _ any, _ error) {
		if method == mcp.MethodToolsCall {
			st.passed.Delete(ctx)
		}
	})
}

// ran records that the call req, whose context as the SDK gave it is ctx,
// reached the middleware, which sent res: the after-call hook leaves an
// error result it did not answer alone. A task's call has no such hook.
func (st *serverState) ran(ctx context.Context, req *mcp.CallToolRequest, res *mcp.CallToolResult) {
	if res != nil && res.IsError && req.Params.Task == nil && !hasEnvelope(res) {
		st.passed.Store(ctx, struct{}{})
	}
}

// hasEnvelope reports whether res carries an mcperr envelope.
func hasEnvelope(res *mcp.CallToolResult) bool {
	return res.Meta != nil && res.Meta.AdditionalFields[filter.MetaKey] != nil
}

// afterCallTool answers an error result of a tools/call that did not reach
// the middleware and whose arguments do not fit the tool's input schema:
// the SDK's refusal of the arguments. The client reads VALIDATION_ERROR
// naming the fields, as from mcperr's own check, with one record (the
// record alone in report-only mode). The result is the SDK's own, built
// for this call, and is filled in place: the hook can change nothing else.
func (st *serverState) afterCallTool(ctx context.Context, _ any, req *mcp.CallToolRequest, result any) {
	res, ok := result.(*mcp.CallToolResult)
	if !ok || res == nil || !res.IsError || req == nil {
		return // a success costs a type assertion
	}
	defer func() { _ = recover() }() // outside every middleware: never take the server down
	if _, ran := st.passed.LoadAndDelete(ctx); ran || hasEnvelope(res) || server.ServerFromContext(ctx) != st.self.Value() {
		return
	}
	refusal := st.checkArguments(ctx, req)
	if refusal == nil {
		return // arguments that fit: not a refusal of them
	}
	ctx = callctx.With(ctx, st)
	c := callctx.From(ctx)
	c.Describe("tools/call", req.Params.Name, "", "", callOf(ctx, req).SessionID)
	tool := st.options(req.Params.Name)
	f := st.p.Handle(ctx, callOf(ctx, req), c.Input(refusal, tool.settings, nil), tool.filters...)
	if f != nil && !f.ReportOnly {
		*res = *errorResult(f)
	}
}
