package gosdk

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/filter"
)

// TestMiddlewareAllocs pins that the middleware adds no allocation to a
// successful call, nor to any other method.
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
	for _, method := range []string{"tools/call", "tools/list"} {
		bare := testing.AllocsPerRun(1000, func() { _, _ = next(ctx, method, req) })
		wrapped := testing.AllocsPerRun(1000, func() {
			if res, err := h(ctx, method, req); res != ok || err != nil {
				t.Fatalf("got %v, %v", res, err)
			}
		})
		if wrapped != bare {
			t.Errorf("%s: %v allocations with the middleware, %v without", method, wrapped, bare)
		}
	}
}
