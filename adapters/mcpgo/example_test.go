package mcpgo_test

import (
	"github.com/google/uuid"

	"context"
	"encoding/json"
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

// examplePipeline returns a pipeline with a fixed ref and clock that logs to
// stdout without the time, the stack and the session id, which change from
// run to run.
func examplePipeline(opts ...filter.Option) *filter.Pipeline {
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && (a.Key == slog.TimeKey || a.Key == "stack" || a.Key == "session_id") {
				return slog.Attr{}
			}
			if len(groups) == 0 && a.Key == "request_id" {
				a.Value = slog.StringValue(exampleID(a.Value.String()))
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

// callAndPrint calls a tool and prints what the client, and so the model,
// receives: each text block, and the error envelope.
func callAndPrint(c *client.Client, tool string, args map[string]any) {
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		fmt.Println("protocol error:", err)
		return
	}
	for _, content := range res.Content {
		if text, ok := content.(mcp.TextContent); ok {
			fmt.Printf("client: %s\n", text.Text)
		}
	}
	if res.Meta != nil {
		if env, ok := res.Meta.AdditionalFields[filter.MetaKey].(map[string]any); ok {
			if id, ok := env["requestId"].(string); ok {
				env["requestId"] = exampleID(id)
			}
			b, _ := json.Marshal(env)
			fmt.Printf("client: envelope %s\n", b)
		}
	}
}

// getOrder is a plain mcp-go handler.
func getOrder(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	switch id := req.GetString("id", ""); id {
	case "ord_1":
		return mcp.NewToolResultText("shipped"), nil
	case "ord_2":
		return nil, errors.New("dial 10.0.0.5: password=hunter2 refused")
	default:
		return nil, domain.NewNotFound("Order", id)
	}
}

// getOrderTool is the definition of getOrder.
var getOrderTool = mcp.NewTool("get_order", mcp.WithString("id", mcp.Required()))

// Install gives a server its one configuration and puts every tool of the
// server behind it, however the tool was added: a domain error reaches the
// model with its code, a plain error is masked behind a ref that only the
// log can resolve, and arguments that do not fit the input schema are named
// field by field.
func ExampleInstall() {
	s := server.NewMCPServer("orders", "1.0.0", server.WithRecovery())
	if err := mcpgo.Install(s, examplePipeline()); err != nil {
		panic(err)
	}
	s.AddTool(getOrderTool, getOrder)

	c := exampleClient(s)
	callAndPrint(c, "get_order", map[string]any{"id": "ord_1"})
	callAndPrint(c, "get_order", map[string]any{"id": "ord_404"})
	callAndPrint(c, "get_order", map[string]any{"id": "ord_2"})
	callAndPrint(c, "get_order", map[string]any{"id": 2})
	// Output:
	// client: shipped
	// level=INFO msg="tool call failed" tool=get_order code=NOT_FOUND request_id=3 error="Order not found: ord_404" fields.resource_type=Order fields.resource_id=ord_404
	// client: Order not found: ord_404
	// client: Code: NOT_FOUND
	// Details: {"resourceId":"ord_404","resourceType":"Order"}
	// Retry: no, not with the same arguments.
	// client: envelope {"category":"client","code":"NOT_FOUND","details":{"resourceId":"ord_404","resourceType":"Order"},"error":true,"message":"Order not found: ord_404","requestId":"3","retryable":false,"timestamp":"2025-06-01T12:00:00Z","version":1}
	// level=ERROR msg="tool call failed" tool=get_order code=INTERNAL_ERROR ref=5e1f0c2a9b3d7e68 request_id=4 error="dial 10.0.0.5: password=hunter2 refused"
	// client: Internal error in tool "get_order" (ref: 5e1f0c2a9b3d7e68).
	// client: Code: INTERNAL_ERROR
	// Retry: no.
	// client: envelope {"category":"server","code":"INTERNAL_ERROR","error":true,"message":"Internal error in tool \"get_order\" (ref: 5e1f0c2a9b3d7e68).","ref":"5e1f0c2a9b3d7e68","requestId":"4","retryable":false,"timestamp":"2025-06-01T12:00:00Z","version":1}
	// level=INFO msg="tool call failed" tool=get_order code=VALIDATION_ERROR request_id=5 error="Validation failed for id: must be string, not number" fields.id.constraint="must be string, not number" fields.id.value=2
	// client: Validation failed for id: must be string, not number
	// client: Code: VALIDATION_ERROR
	// Details: {"violations":[{"constraint":"must be string, not number","field":"id","pointer":"/id","reason":"type"}]}
	// Retry: no, not with the same arguments.
	// client: envelope {"category":"client","code":"VALIDATION_ERROR","details":{"violations":[{"constraint":"must be string, not number","field":"id","pointer":"/id","reason":"type"}]},"error":true,"message":"Validation failed for id: must be string, not number","requestId":"5","retryable":false,"timestamp":"2025-06-01T12:00:00Z","version":1}
}

// A server has one configuration: a second, different one is refused.
func ExampleInstall_twice() {
	s := server.NewMCPServer("orders", "1.0.0")
	p := examplePipeline()
	fmt.Println(mcpgo.Install(s, p))
	fmt.Println(mcpgo.Install(s, p)) // the same one again: nothing to do
	fmt.Println(mcpgo.Install(s, examplePipeline()))
	// Output:
	// <nil>
	// <nil>
	// mcperr: CONFLICTING_CONFIGURATION: mcperr is already installed on this server with another configuration; call mcpgo.Install once per server and share one *filter.Pipeline
}

// AddTool is the drop-in for s.AddTool: one changed line gives the tool the
// whole contract, with the configuration Install gave the server. Here a
// business rule reaches the model with its registered code, and a panic is
// recovered, masked and logged once.
func ExampleAddTool() {
	reg, err := codes.NewRegistry(codes.Info{Code: "ORDER_ALREADY_DELIVERED", Category: codes.Business,
		Description: "A delivered order cannot be cancelled."})
	if err != nil {
		panic(err)
	}
	s := server.NewMCPServer("orders", "1.0.0")
	if err := mcpgo.Install(s, examplePipeline(filter.WithRegistry(reg))); err != nil {
		panic(err)
	}
	err = mcpgo.AddTool(s, mcp.NewTool("cancel_order", mcp.WithString("id", mcp.Required())),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if req.GetString("id", "") == "ord_1" {
				return nil, domain.NewBusinessRule("ORDER_ALREADY_DELIVERED", "A delivered order cannot be cancelled.", nil)
			}
			var cancelled map[string]bool
			cancelled[req.GetString("id", "")] = true // a bug: the map is nil
			return mcp.NewToolResultText("cancelled"), nil
		})
	if err != nil {
		panic(err)
	}

	c := exampleClient(s)
	callAndPrint(c, "cancel_order", map[string]any{"id": "ord_1"})
	callAndPrint(c, "cancel_order", map[string]any{"id": "ord_2"})
	// Output:
	// level=INFO msg="tool call failed" tool=cancel_order code=ORDER_ALREADY_DELIVERED request_id=2 error="A delivered order cannot be cancelled." fields.rule=ORDER_ALREADY_DELIVERED fields.context=map[]
	// client: A delivered order cannot be cancelled.
	// client: Code: ORDER_ALREADY_DELIVERED
	// Retry: no, not with the same arguments.
	// client: envelope {"category":"business","code":"ORDER_ALREADY_DELIVERED","error":true,"message":"A delivered order cannot be cancelled.","requestId":"2","retryable":false,"timestamp":"2025-06-01T12:00:00Z","version":1}
	// level=ERROR msg="tool call failed" tool=cancel_order code=INTERNAL_ERROR ref=5e1f0c2a9b3d7e68 request_id=3 error="panic: assignment to entry in nil map"
	// client: Internal error in tool "cancel_order" (ref: 5e1f0c2a9b3d7e68).
	// client: Code: INTERNAL_ERROR
	// Retry: no.
	// client: envelope {"category":"server","code":"INTERNAL_ERROR","error":true,"message":"Internal error in tool \"cancel_order\" (ref: 5e1f0c2a9b3d7e68).","ref":"5e1f0c2a9b3d7e68","requestId":"3","retryable":false,"timestamp":"2025-06-01T12:00:00Z","version":1}
}

// AddTool refuses a bad definition when the server starts, instead of
// registering it as the SDK alone does. It sees the tools added with the SDK
// alone too.
func ExampleAddTool_definitionErrors() {
	s := server.NewMCPServer("orders", "1.0.0")
	if err := mcpgo.Install(s, examplePipeline()); err != nil {
		panic(err)
	}
	s.AddTool(mcp.NewTool("list_orders"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ord_1"), nil
	})
	fmt.Println(mcpgo.AddTool(s, getOrderTool, getOrder))
	fmt.Println(mcpgo.AddTool(s, getOrderTool, getOrder))
	fmt.Println(mcpgo.AddTool(s, mcp.NewTool("list_orders"), getOrder))
	fmt.Println(mcpgo.AddTool(s, mcp.NewTool("get order"), getOrder))
	fmt.Println(mcpgo.AddTool(s, mcp.NewTool("cancel_order"), nil))
	fmt.Println(mcpgo.AddTool(s, mcp.NewToolWithRawSchema("find_orders", "", json.RawMessage(`{"type":"array"}`)), getOrder))
	fmt.Println(len(s.ListTools()), "tools registered")
	// Output:
	// <nil>
	// mcperr: DUPLICATE_TOOL: "get_order": a tool with this name is already registered on this server; give each tool its own name
	// mcperr: DUPLICATE_TOOL: "list_orders": a tool with this name is already registered on this server; give each tool its own name
	// mcperr: INVALID_TOOL_NAME: "get order": character ' ' at byte 3 is not allowed; use only ASCII letters, digits, '_', '-' and '.'
	// mcperr: NIL_HANDLER: "cancel_order": the tool has no handler; pass the function that implements it
	// mcperr: INVALID_SCHEMA: "find_orders": the input schema must be a JSON object with "type": "object"; mcp.NewTool makes one
	// 2 tools registered
}

// Wrap keeps s.AddTool compiling, around any handler, here one from
// mcp.NewTypedToolHandler; it runs with the configuration of the server it
// is on. A ToolError's hint reaches the model as a block of its own.
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
	if err := mcpgo.Install(s, examplePipeline()); err != nil {
		panic(err)
	}
	s.AddTool(mcp.NewTool("divide", mcp.WithNumber("a", mcp.Required()), mcp.WithNumber("b", mcp.Required())),
		mcpgo.Wrap(mcp.NewTypedToolHandler(divide)))

	c := exampleClient(s)
	callAndPrint(c, "divide", map[string]any{"a": 1, "b": 4})
	callAndPrint(c, "divide", map[string]any{"a": 1, "b": 0})
	// Output:
	// client: 0.25
	// level=INFO msg="tool call failed" tool=divide code=TOOL_ERROR request_id=3 error="b must not be zero." hints="[Pass a non-zero b.]"
	// client: b must not be zero.
	// client: Code: TOOL_ERROR
	// Retry: no, not with the same arguments.
	// Hint: Pass a non-zero b.
	// client: envelope {"category":"client","code":"TOOL_ERROR","error":true,"hints":["Pass a non-zero b."],"message":"b must not be zero.","requestId":"3","retryable":false,"timestamp":"2025-06-01T12:00:00Z","version":1}
}

// WrapStructured wraps a handler written for mcp.NewStructuredToolHandler,
// which alone would send the raw text of its errors to the client.
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
	if err := mcpgo.Install(s, examplePipeline()); err != nil {
		panic(err)
	}
	s.AddTool(mcp.NewTool("get_order", mcp.WithString("id", mcp.Required()), mcp.WithOutputSchema[order]()),
		mcpgo.WrapStructured(get))

	c := exampleClient(s)
	callAndPrint(c, "get_order", map[string]any{"id": "ord_1"})
	callAndPrint(c, "get_order", map[string]any{"id": "ord_2"})
	// Output:
	// client: {"status":"shipped"}
	// level=ERROR msg="tool call failed" tool=get_order code=INTERNAL_ERROR ref=5e1f0c2a9b3d7e68 request_id=3 error="query orders: connection reset by 10.0.0.5"
	// client: Internal error in tool "get_order" (ref: 5e1f0c2a9b3d7e68).
	// client: Code: INTERNAL_ERROR
	// Retry: no.
	// client: envelope {"category":"server","code":"INTERNAL_ERROR","error":true,"message":"Internal error in tool \"get_order\" (ref: 5e1f0c2a9b3d7e68).","ref":"5e1f0c2a9b3d7e68","requestId":"3","retryable":false,"timestamp":"2025-06-01T12:00:00Z","version":1}
}

// Structured adapts a handler written for mcp.NewStructuredToolHandler to
// AddTool, which maps its errors.
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
	if err := mcpgo.Install(s, examplePipeline()); err != nil {
		panic(err)
	}
	tool := mcp.NewTool("forecast", mcp.WithString("city", mcp.Required()), mcp.WithOutputSchema[forecast]())
	if err := mcpgo.AddTool(s, tool, mcpgo.Structured(get)); err != nil {
		panic(err)
	}

	c := exampleClient(s)
	callAndPrint(c, "forecast", map[string]any{"city": "Paris"})
	callAndPrint(c, "forecast", map[string]any{"city": "Atlantis"})
	// Output:
	// client: {"city":"Paris","tempC":21.5}
	// level=ERROR msg="tool call failed" tool=forecast code=INTERNAL_ERROR ref=5e1f0c2a9b3d7e68 request_id=3 error="weather api: 401 for key sk-live-123"
	// client: Internal error in tool "forecast" (ref: 5e1f0c2a9b3d7e68).
	// client: Code: INTERNAL_ERROR
	// Retry: no.
	// client: envelope {"category":"server","code":"INTERNAL_ERROR","error":true,"message":"Internal error in tool \"forecast\" (ref: 5e1f0c2a9b3d7e68).","ref":"5e1f0c2a9b3d7e68","requestId":"3","retryable":false,"timestamp":"2025-06-01T12:00:00Z","version":1}
}

// Filters given with WithFilters run in order, the first outermost, before
// the global filters of the pipeline; a filter that passes an error on
// leaves it to the next, and one that answers decides what the model reads.
func ExampleWithFilters() {
	trace := func(name string) filter.Filter {
		return filter.Func(func(context.Context, filter.Call, error) (*filter.Response, error) {
			fmt.Println("filter:", name)
			return nil, nil // pass the error on
		})
	}
	suggest := filter.Catch(func(_ context.Context, _ filter.Call, e *domain.NotFound) (*filter.Response, error) {
		return &filter.Response{
			Code:    codes.NotFound,
			Message: "There is no order " + e.ID + ".",
			Hints:   []string{"Order ids look like ord_1; call list_orders to see them."},
		}, nil
	})
	s := server.NewMCPServer("orders", "1.0.0")
	if err := mcpgo.Install(s, examplePipeline(filter.WithFilters(trace("global")))); err != nil {
		panic(err)
	}
	if err := mcpgo.AddTool(s, getOrderTool, getOrder, mcpgo.WithFilters(trace("first"), trace("second"))); err != nil {
		panic(err)
	}
	s.AddTool(mcp.NewTool("find_order", mcp.WithString("id", mcp.Required())), mcpgo.Wrap(getOrder, mcpgo.WithFilters(suggest)))

	c := exampleClient(s)
	callAndPrint(c, "get_order", map[string]any{"id": "ord_9"})
	callAndPrint(c, "find_order", map[string]any{"id": "42"})
	// Output:
	// filter: first
	// filter: second
	// filter: global
	// level=INFO msg="tool call failed" tool=get_order code=NOT_FOUND request_id=2 error="Order not found: ord_9" fields.resource_type=Order fields.resource_id=ord_9
	// client: Order not found: ord_9
	// client: Code: NOT_FOUND
	// Details: {"resourceId":"ord_9","resourceType":"Order"}
	// Retry: no, not with the same arguments.
	// client: envelope {"category":"client","code":"NOT_FOUND","details":{"resourceId":"ord_9","resourceType":"Order"},"error":true,"message":"Order not found: ord_9","requestId":"2","retryable":false,"timestamp":"2025-06-01T12:00:00Z","version":1}
	// level=INFO msg="tool call failed" tool=find_order code=NOT_FOUND request_id=3 error="Order not found: 42" fields.resource_type=Order fields.resource_id=42 hints="[Order ids look like ord_1; call list_orders to see them.]"
	// client: There is no order 42.
	// client: Code: NOT_FOUND
	// Retry: no, not with the same arguments.
	// Hint: Order ids look like ord_1; call list_orders to see them.
	// client: envelope {"category":"client","code":"NOT_FOUND","error":true,"hints":["Order ids look like ord_1; call list_orders to see them."],"message":"There is no order 42.","requestId":"3","retryable":false,"timestamp":"2025-06-01T12:00:00Z","version":1}
}

// WithoutArgumentCheck leaves a tool's arguments to its handler, for a tool
// whose schema does not describe all it accepts. Given to Install, it turns
// the check off for the whole server.
func ExampleWithoutArgumentCheck() {
	s := server.NewMCPServer("search", "1.0.0")
	if err := mcpgo.Install(s, examplePipeline()); err != nil {
		panic(err)
	}
	// The schema says limit is a number, but the handler accepts "all" too.
	err := mcpgo.AddTool(s, mcp.NewTool("search", mcp.WithNumber("limit")),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(fmt.Sprint("limit: ", req.GetArguments()["limit"])), nil
		}, mcpgo.WithoutArgumentCheck())
	if err != nil {
		panic(err)
	}
	callAndPrint(exampleClient(s), "search", map[string]any{"limit": "all"})
	// Output:
	// client: limit: all
}

// Every call carries its JSON-RPC id, with or without WithRequestIDs, which
// changes nothing now: the handler reads it from its context, and the
// envelope and the log record of a failure carry it.
func ExampleWithRequestIDs() {
	s := server.NewMCPServer("orders", "1.0.0")
	if err := mcpgo.Install(s, examplePipeline()); err != nil {
		panic(err)
	}
	s.AddTool(mcp.NewTool("sync"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		fmt.Println("handler: request", filter.RequestIDFromContext(ctx))
		return nil, errors.New("upstream timed out")
	})
	callAndPrint(exampleClient(s), "sync", nil)
	// Output:
	// handler: request 2
	// level=ERROR msg="tool call failed" tool=sync code=INTERNAL_ERROR ref=5e1f0c2a9b3d7e68 request_id=2 error="upstream timed out"
	// client: Internal error in tool "sync" (ref: 5e1f0c2a9b3d7e68).
	// client: Code: INTERNAL_ERROR
	// Retry: no.
	// client: envelope {"category":"server","code":"INTERNAL_ERROR","error":true,"message":"Internal error in tool \"sync\" (ref: 5e1f0c2a9b3d7e68).","ref":"5e1f0c2a9b3d7e68","requestId":"2","retryable":false,"timestamp":"2025-06-01T12:00:00Z","version":1}
}

// A client reads a failure's envelope typed, instead of type-asserting
// _meta: here, how long a rate-limited call should wait.
func ExampleEnvelopeOf() {
	s := server.NewMCPServer("quotes", "1.0.0")
	if err := mcpgo.Install(s, examplePipeline(filter.WithLogger(slog.New(slog.DiscardHandler)))); err != nil {
		panic(err)
	}
	s.AddTool(mcp.NewTool("quote"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, domain.NewRateLimited(30 * time.Second)
	})
	c := exampleClient(s)
	req := mcp.CallToolRequest{}
	req.Params.Name = "quote"
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		panic(err)
	}
	if env, ok := mcpgo.EnvelopeOf(res); ok {
		fmt.Println(env.Code, env.Category, env.Retryable, env.RetryAfter())
	}
	// Output: RATE_LIMITED client true 30s
}

// exampleID shows a request id minted as a UUID, which changes from run to
// run, as the placeholder UUID-v7; a JSON-RPC id as it is.
func exampleID(id string) string {
	if u, err := uuid.Parse(id); err == nil && u.Version() == 7 {
		return "UUID-v7"
	}
	return id
}
