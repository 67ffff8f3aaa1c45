package gosdk

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/filter"
)

// TestMiddlewareAllocs pins what the middleware adds to a successful call:
// one allocation, the context that carries the call's request id (minted
// only if asked for); nothing to any other method.
func TestMiddlewareAllocs(t *testing.T) {
	ctx := context.Background()
	p, err := filter.New()
	if err != nil {
		t.Fatal(err)
	}
	st := newState(p)
	ok := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}
	next := func(context.Context, string, mcp.Request) (mcp.Result, error) { return ok, nil }
	h := st.middleware(next)
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "ok", Arguments: json.RawMessage(`{}`)}}
	for method, extra := range map[string]float64{"tools/call": 1, "tools/list": 0} {
		bare := testing.AllocsPerRun(1000, func() { _, _ = next(ctx, method, req) })
		wrapped := testing.AllocsPerRun(1000, func() {
			if res, err := h(ctx, method, req); res != ok || err != nil {
				t.Fatalf("got %v, %v", res, err)
			}
		})
		if wrapped != bare+extra {
			t.Errorf("%s: %v allocations with the middleware, %v without; want %v more", method, wrapped, bare, extra)
		}
	}
}
