package mcperrtest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/adapters/gosdk/gosdktest"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/mcperrtest"
	"github.com/mcperr/mcperr/toolerr"
)

// The examples test a small order server on go-sdk; with mcp-go, connect
// with mcpgotest.Connect instead and the assertions are the same. Each
// example's fakeTB stands for the *testing.T of a test, so that the
// examples can show a failure message.

type orderArgs struct {
	ID string `json:"id"`
}

type divideArgs struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

// newOrderServer returns the server under test, logging into log. Its refs
// count up from 0000000000000001, so that the examples' output is stable.
func newOrderServer(t testing.TB, log *mcperrtest.Log) *mcp.Server {
	var n int
	pipeline, err := filter.New(filter.WithLogger(log.Logger()),
		filter.WithRefGenerator(func() string { n++; return fmt.Sprintf("%016x", n) }))
	if err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1.0.0"}, nil)
	if err := gosdk.Install(s, pipeline); err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{
		gosdk.AddTool(s, &mcp.Tool{Name: "get_order"}, func(_ context.Context, _ *mcp.CallToolRequest, in orderArgs) (*mcp.CallToolResult, any, error) {
			if in.ID != "ord_1" {
				return nil, nil, domain.NewNotFound("Order", in.ID)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ord_1: shipped"}}}, nil, nil
		}),
		gosdk.AddTool(s, &mcp.Tool{Name: "lookup"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return nil, nil, errors.New("dial 10.0.0.12:5432: password=hunter2 refused")
		}),
		gosdk.AddTool(s, &mcp.Tool{Name: "divide"}, func(_ context.Context, _ *mcp.CallToolRequest, in divideArgs) (*mcp.CallToolResult, any, error) {
			if in.B == 0 {
				return nil, nil, toolerr.New("b must not be zero.")
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(in.A / in.B)}}}, nil, nil
		}),
		gosdk.AddTool(s, &mcp.Tool{Name: "leaky"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			// A ToolError is sent as written: never put a secret in one.
			return nil, nil, toolerr.New("Login as admin:hunter2 failed.")
		}),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func ExampleAssertToolError() {
	t := &fakeTB{}
	t.Run(func(t testing.TB) {
		c := gosdktest.Connect(t, newOrderServer(t, mcperrtest.NewLog(t)))
		res := c.Call("get_order", map[string]any{"id": "ord_404"})
		fmt.Println(mcperrtest.AssertToolError(t, res, codes.NotFound, "Order not found: ord_404"))

		// A wrong expectation fails, and says what the client received.
		fmt.Println(mcperrtest.AssertToolError(t, res, codes.Conflict, "Order not found: ord_404"))
	})
	fmt.Println(t.Headline())
	// Output:
	// true
	// false
	// mcperrtest.AssertToolError(CONFLICT, "Order not found: ord_404") failed:
	//   - the envelope's code is NOT_FOUND, want CONFLICT
}

func ExampleAssertMasked() {
	t := &fakeTB{}
	t.Run(func(t testing.TB) {
		log := mcperrtest.NewLog(t)
		c := gosdktest.Connect(t, newOrderServer(t, log))
		res := c.Call("lookup", nil)
		ref := mcperrtest.AssertMasked(t, res, log)
		fmt.Println(res.Text())
		fmt.Println(log.WithRef(ref)[0].Attrs["error"])

		// A tool error is not masked.
		fmt.Printf("%q\n", mcperrtest.AssertMasked(t, c.Call("divide", map[string]any{"a": 1, "b": 0}), log))
	})
	fmt.Println(t.Headline())
	// Output:
	// Internal error in tool "lookup" (ref: 0000000000000001).
	// dial 10.0.0.12:5432: password=hunter2 refused
	// ""
	// mcperrtest.AssertMasked failed:
	//   - the envelope's code is TOOL_ERROR, want INTERNAL_ERROR
	//   - the message (content[0]) is "b must not be zero.", want exactly Internal error in tool "x" (ref: R).
}

func ExampleAssertValidation() {
	t := &fakeTB{}
	t.Run(func(t testing.TB) {
		c := gosdktest.Connect(t, newOrderServer(t, mcperrtest.NewLog(t)))
		res := c.Call("divide", map[string]any{"a": 1})
		fmt.Println(mcperrtest.AssertValidation(t, res, "b"))
		fmt.Println(res.Text())

		// The wrong field fails.
		fmt.Println(mcperrtest.AssertValidation(t, res, "a"))
	})
	fmt.Println(t.Headline())
	// Output:
	// true
	// Validation failed for b: is required
	// false
	// mcperrtest.AssertValidation(a) failed:
	//   - the violated fields are ["b"], want ["a"]
}

func ExampleAssertNoCanary() {
	t := &fakeTB{}
	t.Run(func(t testing.TB) {
		c := gosdktest.Connect(t, newOrderServer(t, mcperrtest.NewLog(t)))
		// The secret is in the log only.
		fmt.Println(mcperrtest.AssertNoCanary(t, c.Call("lookup", nil), "hunter2"))

		// A tool that puts it in a ToolError sends it.
		fmt.Println(mcperrtest.AssertNoCanary(t, c.Call("leaky", nil), "hunter2"))
	})
	fmt.Println(t.Headline())
	// Output:
	// true
	// false
	// mcperrtest.AssertNoCanary("hunter2") failed:
	//   - the client received the canary as "hunter2"
	//   - the client received the canary in result._meta.io.github.mcperr/error.message
	//   - the client received the canary in result.content[0].text
}

func ExampleAssertSuccess() {
	t := &fakeTB{}
	t.Run(func(t testing.TB) {
		c := gosdktest.Connect(t, newOrderServer(t, mcperrtest.NewLog(t)))
		res := c.Call("get_order", map[string]any{"id": "ord_1"})
		fmt.Println(mcperrtest.AssertSuccess(t, res))
		fmt.Println(res.Text())

		fmt.Println(mcperrtest.AssertSuccess(t, c.Call("get_order", map[string]any{"id": "ord_2"})))
	})
	fmt.Println(t.Headline())
	// Output:
	// true
	// ord_1: shipped
	// false
	// mcperrtest.AssertSuccess failed:
	//   - isError is true, want false
	//   - the model read "Order not found: ord_2"
	//   - the result carries an mcperr envelope in _meta["io.github.mcperr/error"]
}

func ExampleAssertProtocolError() {
	t := &fakeTB{}
	t.Run(func(t testing.TB) {
		c := gosdktest.Connect(t, newOrderServer(t, mcperrtest.NewLog(t)))
		res := c.Call("cancel_order", nil)
		fmt.Println(mcperrtest.AssertProtocolError(t, res, -32602))
		fmt.Println(res.ProtocolError)

		fmt.Println(mcperrtest.AssertProtocolError(t, c.Call("get_order", map[string]any{"id": "ord_1"}), -32602))
	})
	fmt.Println(t.Headline())
	// Output:
	// true
	// JSON-RPC error -32602: unknown tool "cancel_order"
	// false
	// mcperrtest.AssertProtocolError(-32602) failed:
	//   - the server answered with a tool result (isError: false), not a JSON-RPC error
}

func ExampleNewLog() {
	t := &fakeTB{}
	t.Run(func(t testing.TB) {
		log := mcperrtest.NewLog(t) // give log.Logger() to filter.WithLogger
		c := gosdktest.Connect(t, newOrderServer(t, log))
		c.Call("get_order", map[string]any{"id": "ord_404"})
		c.Call("lookup", nil)
		for _, r := range log.Records() {
			fmt.Println(r.Level, r.Message, r.Attrs["tool"], r.Attrs["code"], r.Attrs["error"])
		}
	})
	// Output:
	// INFO tool call failed get_order NOT_FOUND Order not found: ord_404
	// ERROR tool call failed lookup INTERNAL_ERROR dial 10.0.0.12:5432: password=hunter2 refused
}

func ExampleLog_Logger() {
	t := &fakeTB{}
	t.Run(func(t testing.TB) {
		log := mcperrtest.NewLog(t)
		pipeline, err := filter.New(filter.WithLogger(log.Logger()))
		if err != nil {
			t.Fatal(err)
		}
		pipeline.Handle(context.Background(), filter.Call{Tool: "lookup"}, errors.New("connection refused"))
		fmt.Println(log.Records()[0].Attrs["error"])
	})
	// Output:
	// connection refused
}

func ExampleLog_Records() {
	t := &fakeTB{}
	t.Run(func(t testing.TB) {
		log := mcperrtest.NewLog(t)
		log.Logger().With("tool", "lookup").Error("tool call failed", slog.Group("fields", slog.String("host", "10.0.0.12")))
		fmt.Println(log.Records()[0].Attrs)
	})
	// Output:
	// map[fields.host:10.0.0.12 tool:lookup]
}

func ExampleLog_WithRef() {
	t := &fakeTB{}
	t.Run(func(t testing.TB) {
		log := mcperrtest.NewLog(t)
		c := gosdktest.Connect(t, newOrderServer(t, log))
		ref := c.Call("lookup", nil).Envelope.Ref
		for _, r := range log.WithRef(ref) {
			fmt.Println(r.Level, r.Attrs["ref"], r.Attrs["error"])
		}
	})
	// Output:
	// ERROR 0000000000000001 dial 10.0.0.12:5432: password=hunter2 refused
}

func ExampleRecord_String() {
	r := mcperrtest.Record{Level: slog.LevelInfo, Message: "tool call failed", Attrs: map[string]any{"tool": "divide", "code": "TOOL_ERROR"}}
	fmt.Println(r)
	// Output:
	// INFO "tool call failed" code="TOOL_ERROR" tool="divide"
}

// response is a JSON-RPC response as a client reads it off the wire.
const response = `{"jsonrpc":"2.0","id":3,"result":{` +
	`"_meta":{"io.github.mcperr/error":{"error":true,"code":"NOT_FOUND","message":"Order not found: ord_404",` +
	`"details":{"resourceType":"Order","resourceId":"ord_404"},"timestamp":"2026-01-15T10:30:00Z","retryable":false}},` +
	`"content":[{"type":"text","text":"Order not found: ord_404"},{"type":"text","text":"Hint: List the orders first."}],"isError":true}}`

func ExampleParseResponse() {
	res, err := mcperrtest.ParseResponse("get_order", []byte(response))
	if err != nil {
		panic(err)
	}
	var details map[string]any // the details are JSON, as sent
	if err := json.Unmarshal(res.Envelope.Details, &details); err != nil {
		panic(err)
	}
	fmt.Println(res.IsError, res.Envelope.Code, details["resourceId"])
	// Output:
	// true NOT_FOUND ord_404
}

func ExampleResult_String() {
	res, err := mcperrtest.ParseResponse("cancel_order", []byte(`{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"unknown tool \"cancel_order\""}}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(strings.ReplaceAll(res.String(), "\t", "  "))
	// Output:
	// the client received, for tools/call "cancel_order", a JSON-RPC error (code -32602):
	//   {
	//     "jsonrpc": "2.0",
	//     "id": 4,
	//     "error": {
	//       "code": -32602,
	//       "message": "unknown tool \"cancel_order\""
	//     }
	//   }
}

func ExampleResult_Text() {
	res, err := mcperrtest.ParseResponse("get_order", []byte(response))
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Text())
	// Output:
	// Order not found: ord_404
}

func ExampleResult_Texts() {
	res, err := mcperrtest.ParseResponse("get_order", []byte(response))
	if err != nil {
		panic(err)
	}
	fmt.Printf("%q\n", res.Texts())
	// Output:
	// ["Order not found: ord_404" "Hint: List the orders first."]
}

func ExampleProtocolError_Error() {
	err := &mcperrtest.ProtocolError{Code: -32602, Message: `unknown tool "cancel_order"`}
	fmt.Println(err)
	// Output:
	// JSON-RPC error -32602: unknown tool "cancel_order"
}
