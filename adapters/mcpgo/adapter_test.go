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
// the handler it returns: nothing with the argument check off; with it on,
// the validator's own cost plus, where the schema is looked up on the server,
// the SDK's copy of the tool.
func TestSuccessAllocs(t *testing.T) {
	p := testPipeline(new(adaptertest.Log).Logger())
	s := server.NewMCPServer("t", "1.0.0")
	s.AddTool(divideTool("divide"), succeed())
	tools, err := mcpgo.NewTools(s, mcpgo.WithPipeline(p))
	if err != nil {
		t.Fatal(err)
	}
	if err := tools.AddTool(divideTool("divide_tools"), succeed()); err != nil {
		t.Fatal(err)
	}
	if err := tools.AddTool(divideTool("divide_tools_unchecked"), succeed(), mcpgo.WithoutArgumentCheck()); err != nil {
		t.Fatal(err)
	}
	ctx, req := realCall(t, s, "divide", map[string]any{"a": 6, "b": 3})
	schema, err := inputschema.Compile(adaptertest.DivideSchema)
	if err != nil {
		t.Fatal(err)
	}
	validator := testing.AllocsPerRun(100, func() {
		if v := schema.Check(req.Params.Arguments); v != nil {
			t.Fatal(v)
		}
	})
	handler := func(name string) server.ToolHandlerFunc { return s.GetTool(name).Handler }
	tests := []struct {
		name string
		tool string
		h    server.ToolHandlerFunc
		want float64
	}{
		{"middleware, check off", "divide", mcpgo.Middleware(mcpgo.WithPipeline(p), mcpgo.WithoutArgumentCheck())(succeed()), 0},
		{"wrap, check off", "divide", mcpgo.Wrap(succeed(), mcpgo.WithPipeline(p), mcpgo.WithoutArgumentCheck()), 0},
		{"tools, check off", "divide_tools_unchecked", handler("divide_tools_unchecked"), 0},
		{"middleware, check on", "divide", mcpgo.Middleware(mcpgo.WithPipeline(p))(succeed()), validator + 1},
		{"wrap, check on", "divide", mcpgo.Wrap(succeed(), mcpgo.WithPipeline(p)), validator + 1},
		{"tools, check on", "divide_tools", handler("divide_tools"), validator},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := req
			req.Params.Name = tt.tool
			got := testing.AllocsPerRun(100, func() {
				if res, err := tt.h(ctx, req); err != nil || res.IsError {
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
	p := testPipeline(new(adaptertest.Log).Logger())
	tests := []struct {
		name string
		opts []server.ServerOption
		add  func(*server.MCPServer)
	}{
		{"bare", nil, func(s *server.MCPServer) { s.AddTool(divideTool("divide"), succeed()) }},
		{"bare+WithInputSchemaValidation", []server.ServerOption{server.WithInputSchemaValidation()},
			func(s *server.MCPServer) { s.AddTool(divideTool("divide"), succeed()) }},
		{"middleware", []server.ServerOption{server.WithToolHandlerMiddleware(mcpgo.Middleware(mcpgo.WithPipeline(p)))},
			func(s *server.MCPServer) { s.AddTool(divideTool("divide"), succeed()) }},
		{"middleware,check-off", []server.ServerOption{server.WithToolHandlerMiddleware(mcpgo.Middleware(mcpgo.WithPipeline(p), mcpgo.WithoutArgumentCheck()))},
			func(s *server.MCPServer) { s.AddTool(divideTool("divide"), succeed()) }},
		{"wrap", nil, func(s *server.MCPServer) {
			s.AddTool(divideTool("divide"), mcpgo.Wrap(succeed(), mcpgo.WithPipeline(p)))
		}},
		{"wrap,check-off", nil, func(s *server.MCPServer) {
			s.AddTool(divideTool("divide"), mcpgo.Wrap(succeed(), mcpgo.WithPipeline(p), mcpgo.WithoutArgumentCheck()))
		}},
		{"tools", nil, func(s *server.MCPServer) { addTool(b, s, divideTool("divide"), mcpgo.WithPipeline(p)) }},
		{"tools,check-off", nil, func(s *server.MCPServer) {
			addTool(b, s, divideTool("divide"), mcpgo.WithPipeline(p), mcpgo.WithoutArgumentCheck())
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
	p := testPipeline(new(adaptertest.Log).Logger())
	s := server.NewMCPServer("bench", "1.0.0")
	s.AddTool(divideTool("divide"), succeed())
	tools, err := mcpgo.NewTools(s, mcpgo.WithPipeline(p))
	if err != nil {
		b.Fatal(err)
	}
	if err := tools.AddTool(divideTool("divide_tools"), succeed()); err != nil {
		b.Fatal(err)
	}
	if err := tools.AddTool(divideTool("divide_tools_unchecked"), succeed(), mcpgo.WithoutArgumentCheck()); err != nil {
		b.Fatal(err)
	}
	ctx, req := realCall(b, s, "divide", map[string]any{"a": 6, "b": 3})
	tests := []struct {
		name string
		tool string
		h    server.ToolHandlerFunc
	}{
		{"bare", "divide", succeed()},
		{"middleware", "divide", mcpgo.Middleware(mcpgo.WithPipeline(p))(succeed())},
		{"middleware,check-off", "divide", mcpgo.Middleware(mcpgo.WithPipeline(p), mcpgo.WithoutArgumentCheck())(succeed())},
		{"wrap", "divide", mcpgo.Wrap(succeed(), mcpgo.WithPipeline(p))},
		{"wrap,check-off", "divide", mcpgo.Wrap(succeed(), mcpgo.WithPipeline(p), mcpgo.WithoutArgumentCheck())},
		{"tools", "divide_tools", s.GetTool("divide_tools").Handler},
		{"tools,check-off", "divide_tools_unchecked", s.GetTool("divide_tools_unchecked").Handler},
	}
	for _, tt := range tests {
		b.Run(tt.name, func(b *testing.B) {
			req := req
			req.Params.Name = tt.tool
			b.ReportAllocs()
			for b.Loop() {
				if res, err := tt.h(ctx, req); err != nil || res.IsError {
					b.Fatalf("call failed: %v %v", err, res)
				}
			}
		})
	}
}

// addTool adds tool through a Tools of its own configured by opts.
func addTool(b *testing.B, s *server.MCPServer, tool mcp.Tool, opts ...mcpgo.Option) {
	tools, err := mcpgo.NewTools(s, opts...)
	if err != nil {
		b.Fatal(err)
	}
	if err := tools.AddTool(tool, succeed()); err != nil {
		b.Fatal(err)
	}
}
