package mcpgo

import (
	"context"
	"weak"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/callctx"
)

// hook adds to s the hooks that answer server.WithInputSchemaValidation's
// refusal of arguments, whose text can hold the refused value.
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

func hasEnvelope(res *mcp.CallToolResult) bool {
	return res.Meta != nil && res.Meta.AdditionalFields[filter.MetaKey] != nil
}

// afterCallTool answers the SDK's refusal of arguments: an error result of
// a call that did not reach the middleware, whose arguments do not fit. It
// fills the SDK's own result in place, the one thing a hook can change.
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
	callctx.From(ctx).Describe("tools/call", req.Params.Name, "", "", callOf(ctx, req).SessionID)
	f := st.handle(ctx, req, refusal, st.options(req.Params.Name, nil), nil, nil, false)
	if f != nil && !f.ReportOnly {
		*res = *errorResult(f)
	}
}
