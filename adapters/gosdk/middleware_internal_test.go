package gosdk

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/filter"
)

// TestMiddlewareAllocs pins what the middleware adds to a successful
// request: one allocation for each method it serves, the context that
// carries the server's configuration and the request's id (minted only if
// asked for); nothing to any other method.
func TestMiddlewareAllocs(t *testing.T) {
	ctx := context.Background()
	p, err := filter.New()
	if err != nil {
		t.Fatal(err)
	}
	st := &serverState{p: p}
	for _, tc := range []struct {
		method string
		req    mcp.Request
		res    mcp.Result
		extra  float64
	}{
		{"tools/call", &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "ok", Arguments: json.RawMessage(`{}`)}},
			&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, 1},
		{"resources/read", &mcp.ReadResourceRequest{Params: &mcp.ReadResourceParams{URI: "file:///a.txt"}},
			&mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "file:///a.txt", Text: "a"}}}, 1},
		{"prompts/get", &mcp.GetPromptRequest{Params: &mcp.GetPromptParams{Name: "greet"}}, &mcp.GetPromptResult{}, 1},
		{"completion/complete", &mcp.CompleteRequest{Params: &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "greet"},
			Argument: mcp.CompleteParamsArgument{Name: "name", Value: "a"}}}, &mcp.CompleteResult{}, 1},
		{"tools/list", &mcp.ListToolsRequest{}, &mcp.ListToolsResult{}, 0},
		{"prompts/list", &mcp.ListPromptsRequest{}, &mcp.ListPromptsResult{}, 0},
	} {
		next := func(context.Context, string, mcp.Request) (mcp.Result, error) { return tc.res, nil }
		h := st.middleware(next)
		bare := testing.AllocsPerRun(1000, func() { _, _ = next(ctx, tc.method, tc.req) })
		wrapped := testing.AllocsPerRun(1000, func() {
			if res, err := h(ctx, tc.method, tc.req); res != tc.res || err != nil {
				t.Fatalf("%s: got %v, %v", tc.method, res, err)
			}
		})
		if wrapped != bare+tc.extra {
			t.Errorf("%s: %v allocations with the middleware, %v without; want %v more", tc.method, wrapped, bare, tc.extra)
		}
	}
}

// TestWrapAllocsServed pins what Wrap and WrapRaw add to a successful call
// under the middleware, whose context they reuse: nothing.
func TestWrapAllocsServed(t *testing.T) {
	p, err := filter.New()
	if err != nil {
		t.Fatal(err)
	}
	var served context.Context // as the middleware prepares it
	_, _, _ = filter.Serve(context.Background(), p, filter.Call{}, nil, filter.Handler[any]{Run: func(ctx context.Context) (any, error) {
		served = ctx
		return nil, nil
	}})
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "ok"}}
	ok := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}
	typed := func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
		return ok, nil, nil
	}
	wrapped := Wrap(typed)
	bare := testing.AllocsPerRun(1000, func() { _, _, _ = typed(served, req, nil) })
	if got := testing.AllocsPerRun(1000, func() { _, _, _ = wrapped(served, req, nil) }); got != bare {
		t.Errorf("Wrap under the middleware: %v allocations, %v without", got, bare)
	}
	raw := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return ok, nil }
	wrappedRaw := WrapRaw(raw)
	bare = testing.AllocsPerRun(1000, func() { _, _ = raw(served, req) })
	if got := testing.AllocsPerRun(1000, func() { _, _ = wrappedRaw(served, req) }); got != bare {
		t.Errorf("WrapRaw under the middleware: %v allocations, %v without", got, bare)
	}
}

func TestMarshalSchema(t *testing.T) {
	raw := json.RawMessage(`{"type":"object"}`)
	if b, err := marshalSchema(raw); err != nil || string(b) != string(raw) {
		t.Errorf("marshalSchema(raw) = %s, %v", b, err)
	}
	b, err := marshalSchema(map[string]any{"type": "object"})
	if err != nil || string(b) != `{"type":"object"}` {
		t.Errorf("marshalSchema(map) = %s, %v", b, err)
	}
	if _, err := marshalSchema(func() {}); err == nil {
		t.Error("marshalSchema(func) succeeded")
	}
}
