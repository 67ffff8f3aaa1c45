package mcpgo_test

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

type authKey struct{}

// authMiddleware is a tool middleware of a server's own, added before
// Install as the docs ask, that derives the context, as an auth middleware
// does.
func authMiddleware(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return next(context.WithValue(ctx, authKey{}, "user-1"), req)
	}
}

// TestOuterMiddlewareDerivesContext checks a server whose own middleware,
// outside mcperr's, derives the context: over 100,000 calls whose handler
// builds an error result for arguments that do not fit the schema, the
// result passes as built (PassHandBuilt) and the live heap stays flat
// (within 1 MB); with the SDK's own validation on, its refusal is still
// answered VALIDATION_ERROR.
func TestOuterMiddlewareDerivesContext(t *testing.T) {
	var log adaptertest.Log
	s := server.NewMCPServer("orders", "1.0.0", server.WithToolHandlerMiddleware(authMiddleware))
	if err := mcpgo.Install(s, testPipeline(log.Logger())); err != nil {
		t.Fatal(err)
	}
	const text = "customer is required; give the customer's id."
	s.AddTool(checkedTool(), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if ctx.Value(authKey{}) != "user-1" {
			return mcp.NewToolResultError("unauthenticated"), nil
		}
		return mcp.NewToolResultError(text), nil
	})
	msg := toolsCall(t, adaptertest.CheckedTool, adaptertest.ArgumentCases()[1].Args)
	ctx := context.Background()
	answer := func() string {
		b, err := json.Marshal(s.HandleMessage(ctx, msg))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	first := answer()
	if !strings.Contains(first, text) || strings.Contains(first, filter.MetaKey) {
		t.Fatalf("answer %s, want the handler's own result, as built", first)
	}
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	for i := range 100_000 {
		if res := s.HandleMessage(ctx, msg); i%10_000 == 0 {
			if b, _ := json.Marshal(res); string(b) != first {
				t.Fatalf("call %d: answer %s, want %s", i, b, first)
			}
		}
	}
	if after := heap(); after > before+1<<20 {
		t.Errorf("the live heap grew by %d bytes over 100,000 hand-built error results, want at most 1 MB", after-before)
	}
	if recs := log.Records(t); len(recs) != 0 {
		t.Errorf("records %v, want none: a hand-built result passes unlogged", recs)
	}

	validated := server.NewMCPServer("orders", "1.0.0", server.WithToolHandlerMiddleware(authMiddleware), server.WithInputSchemaValidation())
	if err := mcpgo.Install(validated, testPipeline(log.Logger())); err != nil {
		t.Fatal(err)
	}
	validated.AddTool(checkedTool(), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ran"), nil
	})
	b, _ := json.Marshal(validated.HandleMessage(ctx, msg))
	if !strings.Contains(string(b), `"code":"VALIDATION_ERROR"`) || strings.Contains(string(b), "ran") {
		t.Errorf("the SDK's refusal, under an outer middleware: %s, want VALIDATION_ERROR", b)
	}
}

// toolsCall returns the JSON-RPC message of a tools/call of tool with args.
func toolsCall(t testing.TB, tool string, args map[string]any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}
