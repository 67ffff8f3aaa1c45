package gosdk_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/filter"
)

func shipOrder(_ context.Context, _ *mcp.CallToolRequest, in order) (*mcp.CallToolResult, textOut, error) {
	return nil, textOut{Text: "shipped " + in.ID}, nil
}

// BenchmarkSuccessfulCall measures a successful call of a typed tool through
// a real client and server over in-memory transports: with the SDK alone,
// with mcperr installed, with Wrap, and with AddTool.
//
//	go test -run='^$' -bench=SuccessfulCall -benchmem ./adapters/gosdk
func BenchmarkSuccessfulCall(b *testing.B) {
	for _, bc := range []struct {
		name  string
		setup func(*mcp.Server)
	}{
		{"bare", func(s *mcp.Server) { mcp.AddTool(s, &mcp.Tool{Name: "ship"}, shipOrder) }},
		{"Install", func(s *mcp.Server) {
			orPanic(gosdk.Install(s, defaults()))
			mcp.AddTool(s, &mcp.Tool{Name: "ship"}, shipOrder)
		}},
		{"Install+Wrap", func(s *mcp.Server) {
			orPanic(gosdk.Install(s, defaults()))
			mcp.AddTool(s, &mcp.Tool{Name: "ship"}, gosdk.Wrap(shipOrder))
		}},
		{"Install+AddTool", func(s *mcp.Server) {
			orPanic(gosdk.Install(s, defaults()))
			orPanic(gosdk.AddTool(s, &mcp.Tool{Name: "ship"}, shipOrder))
		}},
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

// TestSuccessfulCallAllocs pins what mcperr adds to a successful call
// through a real client and server: at most one allocation, the context
// that carries the server's configuration and the request's id, whether
// the tool was added with the SDK alone, wrapped with Wrap or added with
// AddTool. The success path is otherwise the SDK's own.
func TestSuccessfulCallAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("measures real calls")
	}
	if raceEnabled {
		t.Skip("the race detector's own allocations in the SDK vary from call to call")
	}
	measure := func(setup func(*mcp.Server)) float64 {
		s := mcp.NewServer(&mcp.Implementation{Name: "pin", Version: "1.0.0"}, nil)
		setup(s)
		cs := connect(t, s, "")
		params := &mcp.CallToolParams{Name: "ship", Arguments: map[string]any{"id": "ord_1", "count": 2}}
		return testing.AllocsPerRun(500, func() {
			if res, err := cs.CallTool(context.Background(), params); err != nil || res.IsError {
				t.Fatalf("call failed: %v %v", res, err)
			}
		})
	}
	bare := measure(func(s *mcp.Server) { mcp.AddTool(s, &mcp.Tool{Name: "ship"}, shipOrder) })
	for _, tc := range []struct {
		name  string
		setup func(*mcp.Server)
	}{
		{"Install", func(s *mcp.Server) {
			orPanic(gosdk.Install(s, defaults()))
			mcp.AddTool(s, &mcp.Tool{Name: "ship"}, shipOrder)
		}},
		{"Install+Wrap", func(s *mcp.Server) {
			orPanic(gosdk.Install(s, defaults()))
			mcp.AddTool(s, &mcp.Tool{Name: "ship"}, gosdk.Wrap(shipOrder))
		}},
		{"Install+AddTool", func(s *mcp.Server) {
			orPanic(gosdk.Install(s, defaults()))
			orPanic(gosdk.AddTool(s, &mcp.Tool{Name: "ship"}, shipOrder))
		}},
		{"Install with retries, a read-only tool", func(s *mcp.Server) {
			p, err := filter.New(filter.WithRetries(2))
			orPanic(err)
			orPanic(gosdk.Install(s, p))
			mcp.AddTool(s, &mcp.Tool{Name: "ship", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, shipOrder)
		}},
	} {
		if got := measure(tc.setup); got > bare+1 {
			t.Errorf("%s: a successful call costs %v allocations, the SDK alone %v; want at most 1 more", tc.name, got, bare)
		}
	}
}
