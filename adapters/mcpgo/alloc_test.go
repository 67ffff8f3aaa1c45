package mcpgo_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

// succeed is a handler whose success path allocates nothing.
func succeed() server.ToolHandlerFunc {
	res := mcp.NewToolResultText("2")
	return func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return res, nil }
}

// divideTool is the table's divide tool, with its input schema.
func divideTool(name string) mcp.Tool {
	return mcp.NewToolWithRawSchema(name, "Divides a by b.", adaptertest.DivideSchema)
}

// realCall returns the context and request of a real call to tool on s, as
// the SDK hands them to a handler: with the server and the session in the
// context. On a server without mcperr, the context is the SDK's alone, as
// mcperr's middleware receives it.
func realCall(t testing.TB, s *server.MCPServer, tool string, args map[string]any) (context.Context, mcp.CallToolRequest) {
	t.Helper()
	var ctx context.Context
	var req mcp.CallToolRequest
	s.AddTool(mcp.NewTool("capture"), func(c context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx, req = c, r
		return mcp.NewToolResultText("captured"), nil
	})
	if r := call(t, inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION), "capture", args); r.ProtocolErr != nil || r.IsError {
		t.Fatalf("capture: %v %s", r.ProtocolErr, r.Raw)
	}
	req.Params.Name = tool
	return ctx, req
}

// chains returns, for a server s with mcperr installed and the tools
// divide (added with s.AddTool) and divide_added (added with AddTool), the
// handler the SDK runs for a call of each entry point: mcperr's middleware
// around what was registered. Wrap alone is a tool wrapped on a server
// without mcperr, where no middleware runs.
func chains(s *server.MCPServer) []struct {
	name string
	h    server.ToolHandlerFunc
} {
	mw := mcpgo.MiddlewareOf(s)
	return []struct {
		name string
		h    server.ToolHandlerFunc
	}{
		{"install", mw(succeed())},
		{"install+wrap", mw(mcpgo.Wrap(succeed()))},
		{"install+addtool", mw(s.GetTool("divide_added").Handler)},
	}
}

// TestSuccessAllocs pins what mcperr adds to a successful call over the
// bare SDK, measured on the handler chain the SDK runs, called with the
// context and request of a real call as the SDK hands them over. Whatever
// the entry point, that is exactly one allocation: the request's context,
// which carries its request id (minted only if asked for) and the server's
// configuration. A wrapped handler under the middleware reuses it; without
// the middleware, Wrap adds nothing, and gives nothing. Nothing is
// checked or encoded on the success path: the arguments are checked only
// when a call fails. BenchmarkCall measures the whole call.
func TestSuccessAllocs(t *testing.T) {
	s := server.NewMCPServer("installed", "1.0.0")
	if err := mcpgo.Install(s, testPipeline(new(adaptertest.Log).Logger())); err != nil {
		t.Fatal(err)
	}
	if err := mcpgo.AddTool(s, divideTool("divide_added"), succeed()); err != nil {
		t.Fatal(err)
	}
	bare := server.NewMCPServer("bare", "1.0.0")
	ctx, req := realCall(t, bare, "divide", map[string]any{"a": 6, "b": 3})
	run := func(h server.ToolHandlerFunc, tool string) float64 {
		req := req
		req.Params.Name = tool
		return testing.AllocsPerRun(100, func() {
			if res, err := h(ctx, req); err != nil || res.IsError {
				t.Fatalf("call failed: %v %v", err, res)
			}
		})
	}
	if got := run(succeed(), "divide"); got != 0 {
		t.Fatalf("the bare handler allocates %v times a call; the measure is off", got)
	}
	for _, c := range chains(s) {
		t.Run(c.name, func(t *testing.T) {
			tool := "divide"
			if c.name == "install+addtool" {
				tool = "divide_added"
			}
			// 1: the request's context.
			if got := run(c.h, tool); got != 1 {
				t.Errorf("%v allocations a call over the bare SDK, want 1: the request's context", got)
			}
		})
	}
	t.Run("install with retries", func(t *testing.T) {
		retrying := server.NewMCPServer("retrying", "1.0.0")
		if err := mcpgo.Install(retrying, testPipeline(new(adaptertest.Log).Logger(), filter.WithRetries(2))); err != nil {
			t.Fatal(err)
		}
		// The request's context, and the copy of the arguments that a
		// retried attempt gets, since mcp-go hands every attempt the same map.
		copied := testing.AllocsPerRun(100, func() { mcpgo.CloneArguments(req.Params.Arguments) })
		if got := run(mcpgo.MiddlewareOf(retrying)(succeed()), "divide"); copied == 0 || got != 1+copied {
			t.Errorf("%v allocations a call over the bare SDK, want 1 + %v: the request's context and the copy of the arguments", got, copied)
		}
	})
}

// BenchmarkCall measures a successful call through the SDK's in-process
// client, on the bare SDK and with mcperr in place each way.
func BenchmarkCall(b *testing.B) {
	install := func(s *server.MCPServer) {
		if err := mcpgo.Install(s, testPipeline(new(adaptertest.Log).Logger())); err != nil {
			b.Fatal(err)
		}
	}
	tests := []struct {
		name string
		opts []server.ServerOption
		add  func(*server.MCPServer)
	}{
		{"bare", nil, func(s *server.MCPServer) { s.AddTool(divideTool("divide"), succeed()) }},
		{"bare+WithInputSchemaValidation", []server.ServerOption{server.WithInputSchemaValidation()},
			func(s *server.MCPServer) { s.AddTool(divideTool("divide"), succeed()) }},
		{"install", nil, func(s *server.MCPServer) {
			install(s)
			s.AddTool(divideTool("divide"), succeed())
		}},
		{"install+wrap", nil, func(s *server.MCPServer) {
			install(s)
			s.AddTool(divideTool("divide"), mcpgo.Wrap(succeed()))
		}},
		{"install+addtool", nil, func(s *server.MCPServer) {
			install(s)
			if err := mcpgo.AddTool(s, divideTool("divide"), succeed()); err != nil {
				b.Fatal(err)
			}
		}},
		{"wrap", nil, func(s *server.MCPServer) { s.AddTool(divideTool("divide"), mcpgo.Wrap(succeed())) }},
	}
	for _, tt := range tests {
		b.Run(tt.name, func(b *testing.B) {
			s := server.NewMCPServer("bench", "1.0.0", tt.opts...)
			tt.add(s)
			c := inProcess(b, s, mcp.LATEST_PROTOCOL_VERSION)
			req := mcp.CallToolRequest{}
			req.Params.Name = "divide"
			req.Params.Arguments = map[string]any{"a": 6, "b": 3}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				res, err := c.CallTool(ctx, req)
				if err != nil || res.IsError {
					b.Fatalf("call failed: %v %v", err, res)
				}
			}
		})
	}
}

// BenchmarkHandler measures what mcperr adds to a successful call, on the
// handler chain the SDK runs, called with the context and request of a
// real call.
func BenchmarkHandler(b *testing.B) {
	s := server.NewMCPServer("bench", "1.0.0")
	if err := mcpgo.Install(s, testPipeline(new(adaptertest.Log).Logger())); err != nil {
		b.Fatal(err)
	}
	if err := mcpgo.AddTool(s, divideTool("divide_added"), succeed()); err != nil {
		b.Fatal(err)
	}
	ctx, req := realCall(b, server.NewMCPServer("bare", "1.0.0"), "divide", map[string]any{"a": 6, "b": 3})
	all := append([]struct {
		name string
		h    server.ToolHandlerFunc
	}{{"bare", succeed()}}, chains(s)...)
	for _, tt := range all {
		b.Run(tt.name, func(b *testing.B) {
			req := req
			if tt.name == "install+addtool" {
				req.Params.Name = "divide_added"
			}
			b.ReportAllocs()
			for b.Loop() {
				if res, err := tt.h(ctx, req); err != nil || res.IsError {
					b.Fatalf("call failed: %v %v", err, res)
				}
			}
		})
	}
}

// TestMaskedAllocs pins that telling a call that did not fit from a fault
// of the server does not encode the tool's input schema again on every
// failure: a masked failure of a tool with 41 properties costs about what
// one of a tool with 1 costs, with the same arguments, measured on the handler
// chain the SDK runs. The compiled schema is found by the identity of the
// schema the SDK hands out (TestCheckArgumentsFollowsTheRegisteredSchema
// checks that a changed schema is seen).
func TestMaskedAllocs(t *testing.T) {
	s := server.NewMCPServer("installed", "1.0.0")
	if err := mcpgo.Install(s, testPipeline(new(adaptertest.Log).Logger())); err != nil {
		t.Fatal(err)
	}
	fail := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("dial 10.0.0.5: refused")
	}
	s.AddTool(mcp.NewTool("small", mcp.WithNumber("a", mcp.Required())), fail)
	opts := []mcp.ToolOption{mcp.WithNumber("a", mcp.Required())}
	for i := range 40 {
		opts = append(opts, mcp.WithString(fmt.Sprintf("option%d", i), mcp.Description("An option."), mcp.Enum("x", "y", "z")))
	}
	s.AddTool(mcp.NewTool("large", opts...), fail)
	ctx, req := realCall(t, s, "small", map[string]any{"a": 1})
	mw := mcpgo.MiddlewareOf(s)
	run := func(tool string) float64 {
		req := req
		req.Params.Name = tool
		h := mw(s.GetTool(tool).Handler)
		return testing.AllocsPerRun(100, func() {
			if res, err := h(ctx, req); err != nil || !res.IsError {
				t.Fatalf("call did not fail: %v %v", err, res)
			}
		})
	}
	// Encoding the larger schema again cost about 360 allocations more; the
	// check of the arguments against it may cost one or two more (the race
	// detector's build varies by one), which is not what this pins.
	small, large := run("small"), run("large")
	if large > small+8 {
		t.Errorf("a masked failure costs %v allocations on a tool of 41 properties, %v on a tool of 1: the schema is encoded again on each failure", large, small)
	}
}

// TestRefusalCostIndependentOfTools pins that a failure whose arguments do
// not fit the schema, answered VALIDATION_ERROR, costs what it costs
// whatever the number of tools the server has.
func TestRefusalCostIndependentOfTools(t *testing.T) {
	if testing.Short() {
		t.Skip("measures real calls")
	}
	if raceEnabled {
		t.Skip("the race detector's own allocations vary from call to call")
	}
	h := func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if _, err := req.RequireFloat("count"); err != nil {
			return nil, err
		}
		return mcp.NewToolResultText("ok"), nil
	}
	measure := func(tools int) float64 {
		s := server.NewMCPServer("pin", "1.0.0")
		if err := mcpgo.Install(s, testPipeline(new(adaptertest.Log).Logger())); err != nil {
			t.Fatal(err)
		}
		for i := range tools {
			s.AddTool(mcp.NewTool(fmt.Sprintf("ship%d", i), mcp.WithNumber("count", mcp.Required())), h)
		}
		c := inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION)
		req := mcp.CallToolRequest{}
		req.Params.Name = "ship1"
		req.Params.Arguments = map[string]any{"count": "two"}
		return testing.AllocsPerRun(100, func() {
			res, err := c.CallTool(context.Background(), req)
			if err != nil || !res.IsError {
				t.Fatalf("the call was not refused: %v %v", res, err)
			}
		})
	}
	few, many := measure(3), measure(2000)
	t.Logf("a refusal: %.0f allocations on 3 tools, %.0f on 2000", few, many)
	if many > few+2 {
		t.Errorf("a refusal on a server of 2000 tools costs %.0f allocations, %.0f on 3 tools", many, few)
	}
}
