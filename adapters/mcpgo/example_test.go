package mcpgo_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/toolerr"
)

// examplePipeline returns a pipeline with a fixed ref and clock, logging to
// standard output without the time and the session id, which change from run
// to run.
func examplePipeline(opts ...filter.Option) *filter.Pipeline {
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == "session_id" {
				return slog.Attr{}
			}
			return a
		},
	}))
	p, err := filter.New(append([]filter.Option{
		filter.WithLogger(logger),
		filter.WithRefGenerator(func() string { return "5e1f0c2a9b3d7e68" }),
		filter.WithClock(func() time.Time { return time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC) }),
	}, opts...)...)
	if err != nil {
		panic(err)
	}
	return p
}

// exampleClient returns an in-process client of s.
func exampleClient(s *server.MCPServer) *client.Client {
	c, err := client.NewInProcessClient(s)
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		panic(err)
	}
	ir := mcp.InitializeRequest{}
	ir.Params.ClientInfo = mcp.Implementation{Name: "example", Version: "1.0.0"}
	if _, err := c.Initialize(ctx, ir); err != nil {
		panic(err)
	}
	return c
}

// show calls tool and prints what the client, and so the model, receives.
func show(c *client.Client, tool string, args map[string]any) {
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		fmt.Printf("%s: protocol error: %v\n", tool, err)
		return
	}
	code := ""
	if res.Meta != nil {
		if env, ok := res.Meta.AdditionalFields[filter.MetaKey].(map[string]any); ok {
			code = fmt.Sprint(env["code"])
		}
	}
	for _, content := range res.Content {
		if text, ok := content.(mcp.TextContent); ok {
			fmt.Printf("%s: isError=%v code=%s text=%q\n", tool, res.IsError, code, text.Text)
		}
	}
}

func ExampleMiddleware() {
	s := server.NewMCPServer("orders", "1.0.0",
		server.WithRecovery(),
		server.WithToolHandlerMiddleware(mcpgo.Middleware(mcpgo.WithPipeline(examplePipeline()))))
	s.AddTool(mcp.NewTool("get_order", mcp.WithString("id", mcp.Required())),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			switch id := req.GetString("id", ""); id {
			case "ord_404":
				return nil, domain.NewNotFound("Order", id)
			case "ord_1":
				return mcp.NewToolResultText("shipped"), nil
			}
			return nil, errors.New("dial 10.0.0.5: password=hunter2 refused")
		})
	c := exampleClient(s)
	show(c, "get_order", map[string]any{"id": "ord_1"})
	show(c, "get_order", map[string]any{"id": "ord_404"})
	show(c, "get_order", map[string]any{"id": "ord_2"})
	show(c, "get_order", map[string]any{"id": 2})
	// Output:
	// get_order: isError=false code= text="shipped"
	// level=INFO msg="tool call failed" tool=get_order code=NOT_FOUND error="Order not found: ord_404" fields.resource_type=Order fields.resource_id=ord_404
	// get_order: isError=true code=NOT_FOUND text="Order not found: ord_404"
	// level=ERROR msg="tool call failed" tool=get_order code=INTERNAL_ERROR ref=5e1f0c2a9b3d7e68 error="dial 10.0.0.5: password=hunter2 refused"
	// get_order: isError=true code=INTERNAL_ERROR text="Internal error in tool \"get_order\" (ref: 5e1f0c2a9b3d7e68)."
	// level=INFO msg="tool call failed" tool=get_order code=VALIDATION_ERROR error="Validation failed for id: must be string, not number" fields.id.constraint="must be string, not number" fields.id.value=2
	// get_order: isError=true code=VALIDATION_ERROR text="Validation failed for id: must be string, not number"
}

func ExampleWrap() {
	type args struct {
		A float64 `json:"a"`
		B float64 `json:"b"`
	}
	divide := func(_ context.Context, _ mcp.CallToolRequest, in args) (*mcp.CallToolResult, error) {
		if in.B == 0 {
			return nil, toolerr.New("b must not be zero.").WithHint("Pass a non-zero b.")
		}
		return mcp.NewToolResultText(fmt.Sprint(in.A / in.B)), nil
	}
	s := server.NewMCPServer("calc", "1.0.0")
	s.AddTool(mcp.NewTool("divide", mcp.WithNumber("a", mcp.Required()), mcp.WithNumber("b", mcp.Required())),
		mcpgo.Wrap(mcp.NewTypedToolHandler(divide), mcpgo.WithPipeline(examplePipeline())))
	c := exampleClient(s)
	show(c, "divide", map[string]any{"a": 1, "b": 4})
	show(c, "divide", map[string]any{"a": 1, "b": 0})
	// Output:
	// divide: isError=false code= text="0.25"
	// level=INFO msg="tool call failed" tool=divide code=TOOL_ERROR error="b must not be zero." hints="[Pass a non-zero b.]"
	// divide: isError=true code=TOOL_ERROR text="b must not be zero."
	// divide: isError=true code=TOOL_ERROR text="Hint: Pass a non-zero b."
}

func ExampleWrapStructured() {
	type args struct {
		ID string `json:"id"`
	}
	type order struct {
		Status string `json:"status"`
	}
	get := func(_ context.Context, _ mcp.CallToolRequest, in args) (order, error) {
		if in.ID != "ord_1" {
			return order{}, fmt.Errorf("query orders: connection reset by 10.0.0.5")
		}
		return order{Status: "shipped"}, nil
	}
	s := server.NewMCPServer("orders", "1.0.0")
	s.AddTool(mcp.NewTool("get_order", mcp.WithString("id", mcp.Required()), mcp.WithOutputSchema[order]()),
		mcpgo.WrapStructured(get, mcpgo.WithPipeline(examplePipeline())))
	c := exampleClient(s)
	show(c, "get_order", map[string]any{"id": "ord_1"})
	show(c, "get_order", map[string]any{"id": "ord_2"})
	// Output:
	// get_order: isError=false code= text="{\"status\":\"shipped\"}"
	// level=ERROR msg="tool call failed" tool=get_order code=INTERNAL_ERROR ref=5e1f0c2a9b3d7e68 error="query orders: connection reset by 10.0.0.5"
	// get_order: isError=true code=INTERNAL_ERROR text="Internal error in tool \"get_order\" (ref: 5e1f0c2a9b3d7e68)."
}

func ExampleNewTools() {
	s := server.NewMCPServer("orders", "1.0.0")
	tools, err := mcpgo.NewTools(s, mcpgo.WithPipeline(examplePipeline()))
	if err != nil {
		fmt.Println(err)
		return
	}
	err = tools.AddTool(mcp.NewTool("cancel_order", mcp.WithString("id", mcp.Required())),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, domain.NewBusinessRule("ORDER_ALREADY_DELIVERED", "A delivered order cannot be cancelled.", nil)
		})
	if err != nil {
		fmt.Println(err)
		return
	}
	show(exampleClient(s), "cancel_order", map[string]any{"id": "ord_1"})
	// Output:
	// level=INFO msg="tool call failed" tool=cancel_order code=ORDER_ALREADY_DELIVERED error="A delivered order cannot be cancelled." fields.rule=ORDER_ALREADY_DELIVERED fields.context=map[]
	// cancel_order: isError=true code=ORDER_ALREADY_DELIVERED text="A delivered order cannot be cancelled."
}

func ExampleTools_AddTool() {
	s := server.NewMCPServer("orders", "1.0.0")
	tools, err := mcpgo.NewTools(s)
	if err != nil {
		fmt.Println(err)
		return
	}
	h := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	}
	fmt.Println(tools.AddTool(mcp.NewTool("get_order"), h))
	for _, err := range []error{
		tools.AddTool(mcp.NewTool("get_order"), h),
		tools.AddTool(mcp.NewTool("get order"), h),
		tools.AddTool(mcp.NewTool("list_orders"), nil),
		tools.AddTool(mcp.NewToolWithRawSchema("find", "", []byte(`{"type":"array"}`)), h),
	} {
		var de *toolerr.DefinitionError
		if errors.As(err, &de) {
			fmt.Println(de.Code, de.Subject)
		}
	}
	fmt.Println(len(s.ListTools()), "tool registered")
	// Output:
	// <nil>
	// DUPLICATE_TOOL get_order
	// INVALID_TOOL_NAME get order
	// NIL_HANDLER list_orders
	// INVALID_SCHEMA find
	// 1 tool registered
}

func ExampleWithPipeline() {
	registry, err := codes.NewRegistry(codes.Info{Code: "PAYMENT_GATEWAY_DOWN", Category: codes.Server,
		Description: "The payment gateway is down.", Retryable: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	p := examplePipeline(filter.WithRegistry(registry))
	s := server.NewMCPServer("payments", "1.0.0", server.WithToolHandlerMiddleware(mcpgo.Middleware(mcpgo.WithPipeline(p))))
	s.AddTool(mcp.NewTool("charge"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, toolerr.New("The payment gateway is down; try again in a minute.").WithCode("PAYMENT_GATEWAY_DOWN")
	})
	show(exampleClient(s), "charge", nil)
	// Output:
	// level=ERROR msg="tool call failed" tool=charge code=PAYMENT_GATEWAY_DOWN ref=5e1f0c2a9b3d7e68 error="The payment gateway is down; try again in a minute."
	// charge: isError=true code=PAYMENT_GATEWAY_DOWN text="The payment gateway is down; try again in a minute."
}

func ExampleWithFilters() {
	notFound := filter.Catch(func(_ context.Context, _ filter.Call, e *domain.NotFound) (*filter.Response, error) {
		return &filter.Response{Code: codes.NotFound, Message: "No order " + e.ID + ". List the orders to find its id."}, nil
	})
	s := server.NewMCPServer("orders", "1.0.0")
	s.AddTool(mcp.NewTool("get_order", mcp.WithString("id", mcp.Required())),
		mcpgo.Wrap(func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, domain.NewNotFound("Order", req.GetString("id", ""))
		}, mcpgo.WithPipeline(examplePipeline()), mcpgo.WithFilters(notFound)))
	show(exampleClient(s), "get_order", map[string]any{"id": "ord_9"})
	// Output:
	// level=INFO msg="tool call failed" tool=get_order code=NOT_FOUND error="Order not found: ord_9" fields.resource_type=Order fields.resource_id=ord_9
	// get_order: isError=true code=NOT_FOUND text="No order ord_9. List the orders to find its id."
}

func ExampleWithoutArgumentCheck() {
	s := server.NewMCPServer("search", "1.0.0",
		server.WithToolHandlerMiddleware(mcpgo.Middleware(mcpgo.WithPipeline(examplePipeline()))))
	// The schema says limit is a number, but the handler accepts "all" too.
	s.AddTool(mcp.NewTool("search", mcp.WithNumber("limit")),
		mcpgo.Wrap(func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(fmt.Sprint("limit: ", req.GetArguments()["limit"])), nil
		}, mcpgo.WithoutArgumentCheck()))
	show(exampleClient(s), "search", map[string]any{"limit": "all"})
	// Output:
	// search: isError=false code= text="limit: all"
}

func ExampleWithRequestIDs() {
	hooks := &server.Hooks{}
	ids := mcpgo.WithRequestIDs(hooks)
	s := server.NewMCPServer("orders", "1.0.0", server.WithHooks(hooks),
		server.WithToolHandlerMiddleware(mcpgo.Middleware(ids, mcpgo.WithPipeline(examplePipeline()))))
	s.AddTool(mcp.NewTool("sync"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("upstream timed out")
	})
	c := exampleClient(s)
	req := mcp.CallToolRequest{}
	req.Params.Name = "sync"
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		fmt.Println(err)
		return
	}
	env := res.Meta.AdditionalFields[filter.MetaKey].(map[string]any)
	fmt.Println("requestId:", env["requestId"])
	// Output:
	// level=ERROR msg="tool call failed" tool=sync code=INTERNAL_ERROR ref=5e1f0c2a9b3d7e68 request_id=2 error="upstream timed out"
	// requestId: 2
}

func ExampleStructured() {
	type cityArgs struct {
		City string `json:"city"`
	}
	type forecast struct {
		City  string  `json:"city"`
		TempC float64 `json:"tempC"`
	}
	get := func(_ context.Context, _ mcp.CallToolRequest, args cityArgs) (forecast, error) {
		if args.City == "Atlantis" {
			return forecast{}, errors.New("weather api: 401 for key sk-live-123")
		}
		return forecast{City: args.City, TempC: 21.5}, nil
	}
	s := server.NewMCPServer("weather", "1.0.0")
	tools, err := mcpgo.NewTools(s, mcpgo.WithPipeline(examplePipeline()))
	if err != nil {
		panic(err)
	}
	tool := mcp.NewTool("forecast", mcp.WithString("city", mcp.Required()), mcp.WithOutputSchema[forecast]())
	if err := tools.AddTool(tool, mcpgo.Structured(get)); err != nil {
		panic(err)
	}
	c := exampleClient(s)
	defer c.Close()
	show(c, "forecast", map[string]any{"city": "Paris"})
	show(c, "forecast", map[string]any{"city": "Atlantis"})
	// Output:
	// forecast: isError=false code= text="{\"city\":\"Paris\",\"tempC\":21.5}"
	// level=ERROR msg="tool call failed" tool=forecast code=INTERNAL_ERROR ref=5e1f0c2a9b3d7e68 error="weather api: 401 for key sk-live-123"
	// forecast: isError=true code=INTERNAL_ERROR text="Internal error in tool \"forecast\" (ref: 5e1f0c2a9b3d7e68)."
}
