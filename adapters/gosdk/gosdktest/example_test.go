package gosdktest_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/adapters/gosdk/gosdktest"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/mcperrtest"
	"github.com/mcperr/mcperr/toolerr"
)

// In these examples, fakeTB stands for the *testing.T of a test.

// newDivideServer returns a go-sdk server with mcperr and one tool,
// divide, logging into log.
func newDivideServer(t testing.TB, log *mcperrtest.Log) *mcp.Server {
	pipeline, err := filter.New(filter.WithLogger(log.Logger()))
	if err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "calc", Version: "1.0.0"}, nil)
	if err := gosdk.Install(s, pipeline); err != nil {
		t.Fatal(err)
	}
	err = gosdk.AddTool(s, &mcp.Tool{Name: "divide"}, func(_ context.Context, _ *mcp.CallToolRequest, in divideArgs) (*mcp.CallToolResult, any, error) {
		if in.B == 0 {
			return nil, nil, toolerr.New("b must not be zero.")
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(in.A / in.B)}}}, nil, nil
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
		c := gosdktest.Connect(t, newDivideServer(t, log))
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
		c := gosdktest.Connect(t, newDivideServer(t, mcperrtest.NewLog(t)))
		res := c.Call("divide", map[string]any{"a": 1, "b": 4})
		fmt.Println(res.IsError, res.Text())

		// A JSON-RPC error is a Result too.
		fmt.Println(c.Call("multiply", nil).ProtocolError)
	})
	// Output:
	// false 0.25
	// JSON-RPC error -32602: unknown tool "multiply"
}

func ExampleWithProtocolVersion() {
	t := &fakeTB{}
	t.Run(func(t testing.TB) {
		c := gosdktest.Connect(t, newDivideServer(t, mcperrtest.NewLog(t)), gosdktest.WithProtocolVersion("2025-11-25"))
		fmt.Println(c.SDKClient().InitializeResult().ProtocolVersion)
	})
	// Output:
	// 2025-11-25
}

func ExampleProtocolVersions() {
	t := &fakeTB{}
	t.Run(func(t testing.TB) {
		for _, v := range gosdktest.ProtocolVersions() {
			c := gosdktest.Connect(t, newDivideServer(t, mcperrtest.NewLog(t)), gosdktest.WithProtocolVersion(v))
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
		c := gosdktest.Connect(t, newDivideServer(t, mcperrtest.NewLog(t)))
		tools, err := c.SDKClient().ListTools(context.Background(), nil)
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
		s.AddResource(&mcp.Resource{URI: "db://orders", Name: "orders"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return nil, fmt.Errorf("dial 10.0.0.12:5432: connection refused")
		})
		res := gosdktest.Connect(t, s).ReadResource("db://orders")
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
		s.AddPrompt(&mcp.Prompt{Name: "summarize"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return nil, toolerr.New("Say which order to summarize.")
		})
		res := gosdktest.Connect(t, s).GetPrompt("summarize", nil)
		fmt.Println(res.ProtocolError.Code, res.ProtocolError.Message)
	})
	// Output:
	// -32602 Say which order to summarize.
}
