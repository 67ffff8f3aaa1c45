package mcpgo_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
	"github.com/mcperr/mcperr/toolerr"
)

// BenchmarkErrorCall measures a failing call through the SDK's in-process
// client, side by side: the SDK alone answering with its own error result
// (mcp.NewToolResultError), and mcperr answering a ToolError, on a server
// of 3 tools and of 200; that same result, built by the handler, passed
// through by mcperr; and, to tell what mcperr's code costs from what its
// bytes cost, the SDK alone sending mcperr's answer, made once beforehand.
//
//	go test -run='^$' -bench=ErrorCall -benchmem ./adapters/mcpgo
func BenchmarkErrorCall(b *testing.B) {
	sdkError := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultError(fmt.Sprintf("Not enough stock for order %s.", "ord_1")), nil
	}
	toolError := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, toolerr.New("Not enough stock for order ord_1.")
	}
	logger := slog.New(slog.NewJSONHandler(io.Discard, nil))
	f := testPipeline(logger).Handle(context.Background(), filter.Call{Tool: "divide1"}, toolerr.New("Not enough stock for order ord_1."))
	ready := &mcp.CallToolResult{
		Result:  mcp.Result{Meta: &mcp.Meta{AdditionalFields: map[string]any{filter.MetaKey: f.Envelope}}},
		Content: []mcp.Content{mcp.NewTextContent(f.Texts[0]), mcp.NewTextContent(f.Texts[1])},
		IsError: true,
	}
	mcperrBytes := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return ready, nil }
	for _, tools := range []int{3, 200} {
		for _, bc := range []struct {
			name string
			add  func(s *server.MCPServer, name string)
		}{
			{"bare NewToolResultError", func(s *server.MCPServer, name string) { s.AddTool(divideTool(name), sdkError) }},
			{"bare mcperr's answer", func(s *server.MCPServer, name string) { s.AddTool(divideTool(name), mcperrBytes) }},
			{"Install ToolError", func(s *server.MCPServer, name string) { s.AddTool(divideTool(name), toolError) }},
			{"Install ToolError message only", func(s *server.MCPServer, name string) { s.AddTool(divideTool(name), toolError) }},
			{"AddTool ToolError", func(s *server.MCPServer, name string) {
				if err := mcpgo.AddTool(s, divideTool(name), toolError); err != nil {
					b.Fatal(err)
				}
			}},
			// A result the handler built itself, passed through (the default).
			{"Install NewToolResultError", func(s *server.MCPServer, name string) { s.AddTool(divideTool(name), sdkError) }},
		} {
			b.Run(fmt.Sprintf("%s/%d tools", bc.name, tools), func(b *testing.B) {
				s := server.NewMCPServer("bench", "1.0.0")
				switch bc.name {
				case "bare NewToolResultError", "bare mcperr's answer":
				case "Install ToolError message only":
					if err := mcpgo.Install(s, testPipeline(logger, filter.WithRenderer(adaptertest.MessageOnly))); err != nil {
						b.Fatal(err)
					}
				default:
					if err := mcpgo.Install(s, testPipeline(logger)); err != nil {
						b.Fatal(err)
					}
				}
				for i := range tools {
					bc.add(s, fmt.Sprintf("divide%d", i))
				}
				c := inProcess(b, s, mcp.LATEST_PROTOCOL_VERSION)
				req := mcp.CallToolRequest{}
				req.Params.Name = "divide1"
				req.Params.Arguments = map[string]any{"a": 6, "b": 3}
				ctx := context.Background()
				b.ReportAllocs()
				for b.Loop() {
					res, err := c.CallTool(ctx, req)
					if err != nil || !res.IsError {
						b.Fatalf("call did not fail: %v %v", err, res)
					}
				}
			})
		}
	}
}

// TestErrorCallAllocs pins the cost of a failing call, on a server of 3
// tools and of 200 alike: a ToolError through mcperr costs at most 1.20
// times the allocations of the SDK's own mcp.NewToolResultError when it
// sends the same one text block (a message-only renderer), and at most 1.25 times
// with the default rendering, whose second block, read by the model, the
// SDK must encode and the client decode.
func TestErrorCallAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("measures real calls")
	}
	sdkError := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultError(fmt.Sprintf("Not enough stock for order %s.", "ord_1")), nil
	}
	toolError := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, toolerr.New("Not enough stock for order ord_1.")
	}
	logger := filter.WithLogger(slog.New(slog.NewJSONHandler(io.Discard, nil)))
	model, err := filter.New(logger)
	if err != nil {
		t.Fatal(err)
	}
	messageOnly, err := filter.New(logger, filter.WithRenderer(adaptertest.MessageOnly))
	if err != nil {
		t.Fatal(err)
	}
	measure := func(tools int, p *filter.Pipeline) float64 {
		s := server.NewMCPServer("pin", "1.0.0")
		if p != nil {
			if err := mcpgo.Install(s, p); err != nil {
				t.Fatal(err)
			}
		}
		for i := range tools {
			name := fmt.Sprintf("divide%d", i)
			if p != nil {
				if err := mcpgo.AddTool(s, divideTool(name), toolError); err != nil {
					t.Fatal(err)
				}
			} else {
				s.AddTool(divideTool(name), sdkError)
			}
		}
		c := inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION)
		req := mcp.CallToolRequest{}
		req.Params.Name = "divide1"
		req.Params.Arguments = map[string]any{"a": 6, "b": 3}
		return testing.AllocsPerRun(200, func() {
			if res, err := c.CallTool(context.Background(), req); err != nil || !res.IsError {
				t.Fatalf("call did not fail: %v %v", err, res)
			}
		})
	}
	for _, tools := range []int{3, 200} {
		bare, plain, ours := measure(tools, nil), measure(tools, messageOnly), measure(tools, model)
		t.Logf("%d tools: SDK error result %.0f allocations, mcperr ToolError %.0f message only, %.0f rendered for the model", tools, bare, plain, ours)
		if plain > 1.20*bare {
			t.Errorf("%d tools: a ToolError sent as its message alone costs %.0f allocations, more than 1.20 × the SDK's %.0f", tools, plain, bare)
		}
		if ours > 1.25*bare {
			t.Errorf("%d tools: a ToolError rendered for the model costs %.0f allocations, more than 1.25 × the SDK's %.0f", tools, ours, bare)
		}
	}
}

// BenchmarkRetriedFailure measures ten successful calls and one whose
// first attempt fails transiently, side by side: the SDK alone, where the
// client calls again, and mcperr with retries, where the server does (the
// failure asks for a wait of 1 ns, so that the time is the calls'). The
// successes keep the server's retry budget full, as real traffic does.
//
//	go test -run='^$' -bench=RetriedFailure -benchmem ./adapters/mcpgo
func BenchmarkRetriedFailure(b *testing.B) {
	errFlaky := errors.New("replica busy")
	var failNext atomic.Bool
	flaky := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if failNext.Swap(false) {
			return nil, errFlaky
		}
		return mcp.NewToolResultText("ok"), nil
	}
	run := func(b *testing.B, s *server.MCPServer, clientRetries bool) {
		s.AddTool(mcp.NewTool("ship", mcp.WithReadOnlyHintAnnotation(true)), flaky)
		c := inProcess(b, s, mcp.LATEST_PROTOCOL_VERSION)
		req := mcp.CallToolRequest{}
		req.Params.Name = "ship"
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			for range 10 {
				if res, err := c.CallTool(ctx, req); err != nil || res.IsError {
					b.Fatalf("a call failed: %v %v", res, err)
				}
			}
			failNext.Store(true)
			res, err := c.CallTool(ctx, req)
			if clientRetries {
				if err == nil && !res.IsError {
					b.Fatalf("the first attempt did not fail: %v", res)
				}
				res, err = c.CallTool(ctx, req)
			}
			if err != nil || res.IsError {
				b.Fatalf("the call failed: %v %v", res, err)
			}
		}
	}
	b.Run("bare, the client calls again", func(b *testing.B) {
		run(b, server.NewMCPServer("bench", "1.0.0"), true)
	})
	b.Run("mcperr, the server retries", func(b *testing.B) {
		p, err := filter.New(filter.WithLogger(slog.New(slog.NewJSONHandler(io.Discard, nil))), filter.WithRetries(1),
			filter.WithFilters(filter.Is(errFlaky, filter.Response{Code: codes.Unavailable, Message: "Busy.", RetryAfter: time.Nanosecond})))
		if err != nil {
			b.Fatal(err)
		}
		s := server.NewMCPServer("bench", "1.0.0")
		if err := mcpgo.Install(s, p); err != nil {
			b.Fatal(err)
		}
		run(b, s, false)
	})
}
