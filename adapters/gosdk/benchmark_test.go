package gosdk_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
)

func shipOrder(_ context.Context, _ *mcp.CallToolRequest, in order) (*mcp.CallToolResult, textOut, error) {
	return nil, textOut{Text: "shipped " + in.ID}, nil
}

// BenchmarkSuccessfulCall measures a successful call of a typed tool through
// a real client and server over in-memory transports: with the SDK alone,
// with mcperr installed, with Wrap, and with AddTool.
func BenchmarkSuccessfulCall(b *testing.B) {
	for _, bc := range []struct {
		name  string
		setup func(*mcp.Server)
	}{
		{"bare", func(s *mcp.Server) { mcp.AddTool(s, &mcp.Tool{Name: "ship"}, shipOrder) }},
		{"Install", func(s *mcp.Server) {
			orPanic(gosdk.Install(s, nil))
			mcp.AddTool(s, &mcp.Tool{Name: "ship"}, shipOrder)
		}},
		{"Install+Wrap", func(s *mcp.Server) {
			orPanic(gosdk.Install(s, nil))
			mcp.AddTool(s, &mcp.Tool{Name: "ship"}, gosdk.Wrap(shipOrder))
		}},
		{"AddTool", func(s *mcp.Server) { orPanic(gosdk.AddTool(s, &mcp.Tool{Name: "ship"}, shipOrder)) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1.0.0"}, nil)
			bc.setup(s)
			cs := connect(b, s, "")
			ctx := context.Background()
			params := &mcp.CallToolParams{Name: "ship", Arguments: map[string]any{"id": "ord_1", "count": 2}}
			b.ReportAllocs()
			for b.Loop() {
				res, err := cs.CallTool(ctx, params)
				if err != nil || res.IsError {
					b.Fatalf("call failed: %v %v", res, err)
				}
			}
		})
	}
}
