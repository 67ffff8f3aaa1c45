package gosdk_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

// TestRequestIDs checks that every call has a request id with no option:
// a UUID of version 7 minted for it, since go-sdk does not expose the
// JSON-RPC id, which the handler reads from its context and which the
// envelope and the one record of a failure carry; each entry point, two
// calls, two ids.
func TestRequestIDs(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]string{} // tool -> id its handler read
	record := func(ctx context.Context, tool string) {
		mu.Lock()
		defer mu.Unlock()
		seen[tool] = filter.RequestIDFromContext(ctx)
	}
	typed := func(tool string) mcp.ToolHandlerFor[struct{}, any] {
		return func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			record(ctx, tool)
			return nil, nil, errors.New("boom")
		}
	}
	raw := func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		record(ctx, "raw")
		return nil, errors.New("boom")
	}
	ok := func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		record(ctx, "ok")
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: filter.RequestIDFromContext(ctx)}}}, nil, nil
	}
	servers := map[string]func(*adaptertest.Log) *mcp.Server{
		"Install": func(log *adaptertest.Log) *mcp.Server {
			s := mcp.NewServer(&mcp.Implementation{Name: "ids", Version: "1.0.0"}, nil)
			must(t, gosdk.Install(s, newPipeline(t, log)))
			mcp.AddTool(s, &mcp.Tool{Name: "direct"}, typed("direct"))
			must(t, gosdk.AddTool(s, &mcp.Tool{Name: "added"}, typed("added")))
			must(t, gosdk.AddRawTool(s, &mcp.Tool{Name: "raw", InputSchema: map[string]any{"type": "object"}}, raw))
			mcp.AddTool(s, &mcp.Tool{Name: "wrapped"}, gosdk.Wrap(typed("wrapped")))
			mcp.AddTool(s, &mcp.Tool{Name: "ok"}, ok)
			return s
		},
	}
	for name, build := range servers {
		t.Run(name, func(t *testing.T) {
			var log adaptertest.Log
			cs := connect(t, build(&log), "")
			log.Records(t)
			tools := []string{"direct", "added", "raw", "wrapped"}
			if name != "Install" {
				tools = []string{"wrapped", "raw"}
			}
			ids := map[string]bool{}
			for range 2 {
				for _, tool := range tools {
					r, _ := call(context.Background(), cs, adaptertest.Case{Tool: tool})
					mu.Lock()
					id := seen[tool]
					mu.Unlock()
					if u, err := uuid.Parse(id); err != nil || u.Version() != 7 {
						t.Fatalf("%s: the handler read request id %q, want a UUID v7", tool, id)
					}
					if ids[id] {
						t.Errorf("%s: request id %s seen twice", tool, id)
					}
					ids[id] = true
					// Without Install, the SDK rebuilds a failing typed
					// handler's result: the text is mcperr's, the envelope
					// is gone (see Wrap).
					if got := r.Envelope()["requestId"]; got != id && (name == "Install" || tool != "wrapped") {
						t.Errorf("%s: envelope requestId %v, the handler read %s", tool, got, id)
					}
					if name == "Install" {
						if recs := log.Records(t); len(recs) != 1 || recs[0]["request_id"] != id {
							t.Errorf("%s: records %v, want one with request_id %s", tool, recs, id)
						}
					}
				}
			}
			if name == "Install" {
				r, _ := call(context.Background(), cs, adaptertest.Case{Tool: "ok"})
				if u, err := uuid.Parse(r.Texts[0]); r.IsError || err != nil || u.Version() != 7 {
					t.Errorf("a successful call's handler read request id %q", r.Texts)
				}
			}
		})
	}
}
