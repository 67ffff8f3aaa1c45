package mcpgotest_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/adapters/mcpgo/mcpgotest"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/mcperrtest"
	"github.com/mcperr/mcperr/toolerr"
)

// In these examples, fakeTB stands for the *testing.T of a test.

// newDivideServer returns an mcp-go server with mcperr and one tool,
// divide, logging into log.
func newDivideServer(t testing.TB, log *mcperrtest.Log) *server.MCPServer {
	pipeline, err := filter.New(filter.WithLogger(log.Logger()))
	if err != nil {
		t.Fatal(err)
	}
	s := server.NewMCPServer("calc", "1.0.0")
	if err := mcpgo.Install(s, pipeline); err != nil {
		t.Fatal(err)
	}
	divide := mcp.NewTool("divide", mcp.WithNumber("a", mcp.Required()), mcp.WithNumber("b", mcp.Required()))
	err = mcpgo.AddTool(s, divide, func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		a, err := req.RequireFloat("a")
		if err != nil {
			return nil, err
		}
		b, err := req.RequireFloat("b")
		if err != nil {
			return nil, err
		}
		if b == 0 {
			return nil, toolerr.New("b must not be zero.")
		}
		return mcp.NewToolResultText(fmt.Sprint(a / b)), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func ExampleConnect() {
	t := &fakeTB{}
	t.Run(func(t testing.TB) {
		log := mcperrtest.NewLog(t)
		c := mcpgotest.Connect(t, newDivideServer(t, log))
		mcperrtest.AssertToolError(t, c.Call("divide", map[string]any{"a": 1, "b": 0}), codes.ToolFailed, "b must not be zero.")
		fmt.Println(len(log.Records()), "record")
	})
	fmt.Println(t.Failed())
	// Output:
	// 1 record
	// false
}

func ExampleClient_Call() {
	t := &fakeTB{}
	t.Run(func(t testing.TB) {
		c := mcpgotest.Connect(t, newDivideServer(t, mcperrtest.NewLog(t)))
		res := c.Call("divide", map[string]any{"a": 1, "b": 4})
		fmt.Println(res.IsError, res.Text())

		// A JSON-RPC error is a Result too.
		fmt.Println(c.Call("multiply", nil).ProtocolError)
	})
	// Output:
	// false 0.25
	// JSON-RPC error -32602: tool 'multiply' not found: tool not found
}

func ExampleWithProtocolVersion() {
	t := &fakeTB{}
	t.Run(func(t testing.TB) {
		c := mcpgotest.Connect(t, newDivideServer(t, mcperrtest.NewLog(t)), mcpgotest.WithProtocolVersion(mcp.LATEST_LEGACY_PROTOCOL_VERSION))
		mcperrtest.AssertSuccess(t, c.Call("divide", map[string]any{"a": 1, "b": 2}))
	})
	fmt.Println(t.Failed())
	// Output:
	// false
}

func ExampleProtocolVersions() {
	t := &fakeTB{}
	t.Run(func(t testing.TB) {
		for _, v := range mcpgotest.ProtocolVersions() {
			c := mcpgotest.Connect(t, newDivideServer(t, mcperrtest.NewLog(t)), mcpgotest.WithProtocolVersion(v))
			fmt.Println(v, mcperrtest.AssertValidation(t, c.Call("divide", map[string]any{"a": 1}), "b"))
		}
	})
	// Output:
	// 2026-07-28 true
	// 2025-11-25 true
}

func ExampleClient_SDKClient() {
	t := &fakeTB{}
	t.Run(func(t testing.TB) {
		c := mcpgotest.Connect(t, newDivideServer(t, mcperrtest.NewLog(t)))
		tools, err := c.SDKClient().ListTools(context.Background(), mcp.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println(tools.Tools[0].Name)
	})
	// Output:
	// divide
}

func ExampleClient_ReadResource() {
	t := &fakeTB{}
	t.Run(func(t testing.TB) {
		log := mcperrtest.NewLog(t)
		s := newDivideServer(t, log)
		s.AddResource(mcp.NewResource("db://orders", "orders"), func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return nil, fmt.Errorf("dial 10.0.0.12:5432: connection refused")
		})
		res := mcpgotest.Connect(t, s).ReadResource("db://orders")
		ref := mcperrtest.AssertMasked(t, res, log)
		fmt.Println(res.ProtocolError.Code, ref != "")
	})
	fmt.Println(t.Failed())
	// Output:
	// -32603 true
	// false
}

func ExampleClient_GetPrompt() {
	t := &fakeTB{}
	t.Run(func(t testing.TB) {
		log := mcperrtest.NewLog(t)
		s := newDivideServer(t, log)
		s.AddPrompt(mcp.NewPrompt("summarize"), func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return nil, toolerr.New("Say which order to summarize.")
		})
		res := mcpgotest.Connect(t, s).GetPrompt("summarize", nil)
		fmt.Println(res.ProtocolError.Code, res.ProtocolError.Message)
	})
	// Output:
	// -32603 Say which order to summarize.
}
