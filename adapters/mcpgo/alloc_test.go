package mcpgo_test

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/internal/adaptertest"
	"github.com/mcperr/mcperr/internal/inputschema"
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
// context.
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

// TestSuccessAllocs pins what mcperr adds to a successful call, measured on
// the handler it returns, called with the context and request of a real
// call, which carry the request id already where mcperr is installed:
// nothing with the argument check off, whichever entry point and wherever
// the check was turned off; with it on, the validator's own cost plus,
// where the schema is looked up on the server, the SDK's copy of the tool.
// Where no middleware gave the call its request id, the wrapper does, for
// one allocation. BenchmarkCall measures the whole call, hooks included.
func TestSuccessAllocs(t *testing.T) {
	p := testPipeline(new(adaptertest.Log).Logger())
	checked := server.NewMCPServer("checked", "1.0.0")
	if err := mcpgo.Install(checked, p); err != nil {
		t.Fatal(err)
	}
	unchecked := server.NewMCPServer("unchecked", "1.0.0")
	if err := mcpgo.Install(unchecked, testPipeline(new(adaptertest.Log).Logger()), mcpgo.WithoutArgumentCheck()); err != nil {
		t.Fatal(err)
	}
	bare := server.NewMCPServer("bare", "1.0.0")
	for _, s := range []*server.MCPServer{checked, unchecked, bare} {
		s.AddTool(divideTool("divide"), succeed())
	}
	for _, s := range []*server.MCPServer{checked, unchecked} {
		if err := mcpgo.AddTool(s, divideTool("divide_added"), succeed()); err != nil {
			t.Fatal(err)
		}
	}
	if err := mcpgo.AddTool(checked, divideTool("divide_added_unchecked"), succeed(), mcpgo.WithoutArgumentCheck()); err != nil {
		t.Fatal(err)
	}
	args := map[string]any{"a": 6, "b": 3}
	onChecked, req := realCall(t, checked, "divide", args)
	onUnchecked, _ := realCall(t, unchecked, "divide", args)
	onBare, _ := realCall(t, bare, "divide", args)
	schema, err := inputschema.Compile(adaptertest.DivideSchema)
	if err != nil {
		t.Fatal(err)
	}
	validator := testing.AllocsPerRun(100, func() {
		if v := schema.Check(req.Params.Arguments); v != nil {
			t.Fatal(v)
		}
	})
	added := func(s *server.MCPServer, name string) server.ToolHandlerFunc { return s.GetTool(name).Handler }
	tests := []struct {
		name string
		ctx  context.Context
		tool string
		h    server.ToolHandlerFunc
		want float64
	}{
		{"install, check off", onUnchecked, "divide", mcpgo.MiddlewareOf(unchecked)(succeed()), 0},
		{"wrap, check off", onChecked, "divide", mcpgo.Wrap(succeed(), mcpgo.WithoutArgumentCheck()), 0},
		{"wrap, check off by Install", onUnchecked, "divide", mcpgo.Wrap(succeed()), 0},
		// Where no middleware gave the call its request id, Wrap does: the
		// context that carries it.
		{"wrap, no mcperr on the server, check off", onBare, "divide", mcpgo.Wrap(succeed(), mcpgo.WithoutArgumentCheck()), 1},
		{"addtool, check off", onChecked, "divide_added_unchecked", added(checked, "divide_added_unchecked"), 0},
		{"addtool, check off by Install", onUnchecked, "divide_added", added(unchecked, "divide_added"), 0},
		{"install, check on", onChecked, "divide", mcpgo.MiddlewareOf(checked)(succeed()), validator + 1},
		{"wrap, check on", onChecked, "divide", mcpgo.Wrap(succeed()), validator + 1},
		{"addtool, check on", onChecked, "divide_added", added(checked, "divide_added"), validator},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := req
			req.Params.Name = tt.tool
			got := testing.AllocsPerRun(100, func() {
				if res, err := tt.h(tt.ctx, req); err != nil || res.IsError {
					t.Fatalf("call failed: %v %v", err, res)
				}
			})
			if got != tt.want {
				t.Errorf("%v allocations a call, want %v (the validator's own: %v)", got, tt.want, validator)
			}
		})
	}
	t.Logf("the validator allocates %v times to check the arguments of divide", validator)
}

// BenchmarkCall measures a successful call through the SDK's in-process
// client, on the bare SDK and with mcperr in place each way.
func BenchmarkCall(b *testing.B) {
	install := func(s *server.MCPServer, opts ...mcpgo.Option) {
		if err := mcpgo.Install(s, testPipeline(new(adaptertest.Log).Logger()), opts...); err != nil {
			b.Fatal(err)
		}
	}
	add := func(s *server.MCPServer, opts ...mcpgo.Option) {
		if err := mcpgo.AddTool(s, divideTool("divide"), succeed(), opts...); err != nil {
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
		{"install,check-off", nil, func(s *server.MCPServer) {
			install(s, mcpgo.WithoutArgumentCheck())
			s.AddTool(divideTool("divide"), succeed())
		}},
		{"install+wrap", nil, func(s *server.MCPServer) {
			install(s)
			s.AddTool(divideTool("divide"), mcpgo.Wrap(succeed()))
		}},
		{"install+wrap,check-off", nil, func(s *server.MCPServer) {
			install(s)
			s.AddTool(divideTool("divide"), mcpgo.Wrap(succeed(), mcpgo.WithoutArgumentCheck()))
		}},
		{"install+addtool", nil, func(s *server.MCPServer) {
			install(s)
			add(s)
		}},
		{"install+addtool,check-off", nil, func(s *server.MCPServer) {
			install(s)
			add(s, mcpgo.WithoutArgumentCheck())
		}},
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
// handler it returns, called with the context and request of a real call.
func BenchmarkHandler(b *testing.B) {
	s := server.NewMCPServer("bench", "1.0.0")
	if err := mcpgo.Install(s, testPipeline(new(adaptertest.Log).Logger())); err != nil {
		b.Fatal(err)
	}
	s.AddTool(divideTool("divide"), succeed())
	if err := mcpgo.AddTool(s, divideTool("divide_added"), succeed()); err != nil {
		b.Fatal(err)
	}
	if err := mcpgo.AddTool(s, divideTool("divide_added_unchecked"), succeed(), mcpgo.WithoutArgumentCheck()); err != nil {
		b.Fatal(err)
	}
	unchecked := server.NewMCPServer("bench", "1.0.0")
	if err := mcpgo.Install(unchecked, testPipeline(new(adaptertest.Log).Logger()), mcpgo.WithoutArgumentCheck()); err != nil {
		b.Fatal(err)
	}
	ctx, req := realCall(b, s, "divide", map[string]any{"a": 6, "b": 3})
	uctx, _ := realCall(b, unchecked, "divide", map[string]any{"a": 6, "b": 3})
	tests := []struct {
		name string
		ctx  context.Context
		tool string
		h    server.ToolHandlerFunc
	}{
		{"bare", ctx, "divide", succeed()},
		{"install", ctx, "divide", mcpgo.MiddlewareOf(s)(succeed())},
		{"install,check-off", uctx, "divide", mcpgo.MiddlewareOf(unchecked)(succeed())},
		{"wrap", ctx, "divide", mcpgo.Wrap(succeed())},
		{"wrap,check-off", ctx, "divide", mcpgo.Wrap(succeed(), mcpgo.WithoutArgumentCheck())},
		{"addtool", ctx, "divide_added", s.GetTool("divide_added").Handler},
		{"addtool,check-off", ctx, "divide_added_unchecked", s.GetTool("divide_added_unchecked").Handler},
	}
	for _, tt := range tests {
		b.Run(tt.name, func(b *testing.B) {
			req := req
			req.Params.Name = tt.tool
			b.ReportAllocs()
			for b.Loop() {
				if res, err := tt.h(tt.ctx, req); err != nil || res.IsError {
					b.Fatalf("call failed: %v %v", err, res)
				}
			}
		})
	}
}
