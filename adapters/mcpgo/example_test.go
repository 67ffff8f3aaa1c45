package mcpgo_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"time"

	"github.com/google/uuid"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/toolerr"
)

// examplePipeline returns a pipeline with a fixed ref that logs to stdout
// without the time, the stack and the session id, and with the request id
// shown as a placeholder, so that the examples print the same every time.
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

// callTool calls a tool and returns what the client received.
func callTool(c *client.Client, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	if args != nil {
		req.Params.Arguments = args
	}
	return c.CallTool(context.Background(), req)
}

// callAndPrint calls a tool and prints what the client, and so the model,
// receives: each text block, and the error envelope.
func callAndPrint(c *client.Client, tool string, args map[string]any) {
	res, err := callTool(c, tool, args)
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
			b, _ := json.Marshal(env)
			fmt.Printf("client: envelope %s\n", exampleStable(string(b)))
		}
	}
}

// getOrder is a plain mcp-go handler.
func getOrder(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	id, err := req.RequireString("id")
	if err != nil {
		return nil, err
	}
	switch id {
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
// log can resolve, and a call that fails with arguments that do not fit the
// input schema is told which fields are wrong.
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
	// level=INFO msg="tool call failed" tool=get_order code=NOT_FOUND request_id=UUID-v7 error="Order not found: ord_404"
	// client: Order not found: ord_404
	// client: Code: NOT_FOUND
	// Details: {"resourceId":"ord_404","resourceType":"Order"}
	// Retry: no, not with the same arguments.
	// client: envelope {"category":"client","code":"NOT_FOUND","details":{"resourceId":"ord_404","resourceType":"Order"},"error":true,"message":"Order not found: ord_404","requestId":"UUID-v7","retryable":false,"timestamp":"RFC3339-UTC","version":1}
	// level=ERROR msg="tool call failed" tool=get_order code=INTERNAL_ERROR ref=5e1f0c2a9b3d7e68 request_id=UUID-v7 error="dial 10.0.0.5: password=hunter2 refused"
	// client: Internal error in tool "get_order" (ref: 5e1f0c2a9b3d7e68).
	// client: Code: INTERNAL_ERROR
	// Retry: no.
	// client: envelope {"category":"server","code":"INTERNAL_ERROR","error":true,"message":"Internal error in tool \"get_order\" (ref: 5e1f0c2a9b3d7e68).","ref":"5e1f0c2a9b3d7e68","requestId":"UUID-v7","retryable":false,"timestamp":"RFC3339-UTC","version":1}
	// level=INFO msg="tool call failed" tool=get_order code=VALIDATION_ERROR request_id=UUID-v7 error="argument \"id\" is not a string" fields.id.constraint="must be string, not number" fields.id.value=2
	// client: Validation failed for id: must be string, not number
	// client: Code: VALIDATION_ERROR
	// Details: {"violations":[{"constraint":"must be string, not number","field":"id","pointer":"/id","reason":"type"}]}
	// Retry: no, not with the same arguments.
	// client: envelope {"category":"client","code":"VALIDATION_ERROR","details":{"violations":[{"constraint":"must be string, not number","field":"id","pointer":"/id","reason":"type"}]},"error":true,"message":"Validation failed for id: must be string, not number","requestId":"UUID-v7","retryable":false,"timestamp":"RFC3339-UTC","version":1}
}

// A server has one configuration: the same one again is nothing to do, a
// different one is refused.
func ExampleInstall_twice() {
	s := server.NewMCPServer("orders", "1.0.0")
	p := examplePipeline()
	fmt.Println(mcpgo.Install(s, p))
	fmt.Println(mcpgo.Install(s, p))
	fmt.Println(mcpgo.Install(s, examplePipeline()))
	// Output:
	// <nil>
	// <nil>
	// mcperr: CONFLICTING_CONFIGURATION: mcperr is already installed on this server with another pipeline; call mcpgo.Install once per server and share one *filter.Pipeline
}

// Install's middleware serves every resources/read of the server, of
// resources and templates added with the SDK's own methods: a failure
// reaches the client as the message the pipeline chose, never the raw
// error. mcp-go sends it as a JSON-RPC error -32603 without data, so the
// envelope is in the log only.
func ExampleInstall_resources() {
	s := server.NewMCPServer("orders", "1.0.0", server.WithResourceCapabilities(false, false))
	if err := mcpgo.Install(s, examplePipeline()); err != nil {
		panic(err)
	}
	s.AddResource(mcp.NewResource("db://orders", "orders"),
		func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return nil, errors.New("connection refused by 10.0.0.12:5432")
		})
	s.AddResourceTemplate(mcp.NewResourceTemplate("orders://{id}", "order"),
		func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return nil, domain.NewNotFound("Order", req.Params.URI[len("orders://"):])
		})

	c := exampleClient(s)
	for _, uri := range []string{"db://orders", "orders://ord_404"} {
		req := mcp.ReadResourceRequest{}
		req.Params.URI = uri
		_, err := c.ReadResource(context.Background(), req)
		fmt.Println("client:", err)
	}
	// Output:
	// level=ERROR msg="resource read failed" resource=db://orders code=INTERNAL_ERROR ref=5e1f0c2a9b3d7e68 request_id=UUID-v7 error="connection refused by 10.0.0.12:5432"
	// client: internal error: Internal error in resource "db://orders" (ref: 5e1f0c2a9b3d7e68).
	// level=INFO msg="resource read failed" resource=orders://ord_404 code=NOT_FOUND request_id=UUID-v7 error="Order not found: ord_404"
	// client: internal error: Order not found: ord_404
}

// Install's middleware serves every prompts/get of the server too: here a
// prompt added with the SDK's own s.AddPrompt panics, and the panic is
// recovered, masked and logged once.
func ExampleInstall_prompts() {
	s := server.NewMCPServer("prompts", "1.0.0", server.WithPromptCapabilities(false))
	if err := mcpgo.Install(s, examplePipeline()); err != nil {
		panic(err)
	}
	s.AddPrompt(mcp.NewPrompt("summarize_order"),
		func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			var cache map[string]string
			//lint:ignore SA5000 the bug is the point: the panic is recovered, the server goes on
			cache["ord_1"] = "x"
			return nil, nil
		})
	req := mcp.GetPromptRequest{}
	req.Params.Name = "summarize_order"
	_, err := exampleClient(s).GetPrompt(context.Background(), req)
	fmt.Println("client:", err)
	// Output:
	// level=ERROR msg="prompt get failed" prompt=summarize_order code=INTERNAL_ERROR ref=5e1f0c2a9b3d7e68 request_id=UUID-v7 error="panic: assignment to entry in nil map"
	// client: internal error: Internal error in prompt "summarize_order" (ref: 5e1f0c2a9b3d7e68).
}

// Every request has its own id, a UUID v7: the handler reads it from its
// context, and the envelope and the log record of its failure carry the
// same one.
func ExampleInstall_requestIDs() {
	s := server.NewMCPServer("orders", "1.0.0")
	if err := mcpgo.Install(s, examplePipeline()); err != nil {
		panic(err)
	}
	var seen string
	s.AddTool(mcp.NewTool("sync"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		seen = filter.RequestIDFromContext(ctx)
		fmt.Println("handler: request", exampleID(seen))
		return nil, errors.New("upstream timed out")
	})
	res, err := callTool(exampleClient(s), "sync", nil)
	if err != nil {
		panic(err)
	}
	env, _ := mcpgo.EnvelopeOf(res)
	fmt.Println("client: request", exampleID(env.RequestID), "the handler's:", env.RequestID == seen)
	// Output:
	// handler: request UUID-v7
	// level=ERROR msg="tool call failed" tool=sync code=INTERNAL_ERROR ref=5e1f0c2a9b3d7e68 request_id=UUID-v7 error="upstream timed out"
	// client: request UUID-v7 the handler's: true
}

// AddTool is the drop-in for s.AddTool, on a server where Install was
// called first: one changed line gives the tool the whole contract, with
// the server's configuration. Here a business rule reaches the model with
// its registered code, and a panic is recovered, masked and logged once.
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
			//lint:ignore SA5000 the bug is the point: the map is nil, and the panic is recovered
			cancelled[req.GetString("id", "")] = true
			return mcp.NewToolResultText("cancelled"), nil
		})
	if err != nil {
		panic(err)
	}

	c := exampleClient(s)
	callAndPrint(c, "cancel_order", map[string]any{"id": "ord_1"})
	callAndPrint(c, "cancel_order", map[string]any{"id": "ord_2"})
	// Output:
	// level=INFO msg="tool call failed" tool=cancel_order code=ORDER_ALREADY_DELIVERED request_id=UUID-v7 error="A delivered order cannot be cancelled."
	// client: A delivered order cannot be cancelled.
	// client: Code: ORDER_ALREADY_DELIVERED
	// Retry: no, not with the same arguments.
	// client: envelope {"category":"business","code":"ORDER_ALREADY_DELIVERED","error":true,"message":"A delivered order cannot be cancelled.","requestId":"UUID-v7","retryable":false,"timestamp":"RFC3339-UTC","version":1}
	// level=ERROR msg="tool call failed" tool=cancel_order code=INTERNAL_ERROR ref=5e1f0c2a9b3d7e68 request_id=UUID-v7 error="panic: assignment to entry in nil map"
	// client: Internal error in tool "cancel_order" (ref: 5e1f0c2a9b3d7e68).
	// client: Code: INTERNAL_ERROR
	// Retry: no.
	// client: envelope {"category":"server","code":"INTERNAL_ERROR","error":true,"message":"Internal error in tool \"cancel_order\" (ref: 5e1f0c2a9b3d7e68).","ref":"5e1f0c2a9b3d7e68","requestId":"UUID-v7","retryable":false,"timestamp":"RFC3339-UTC","version":1}
}

// AddTool refuses a bad definition when the server starts, instead of
// registering it as the SDK alone does, and a server where Install was not
// called first. It sees the tools added with the SDK alone too.
func ExampleAddTool_definitionErrors() {
	s := server.NewMCPServer("orders", "1.0.0")
	fmt.Println(mcpgo.AddTool(s, getOrderTool, getOrder))
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
	fmt.Println(len(s.ListTools()), "tools registered")
	// Output:
	// mcperr: NOT_INSTALLED: mcpgo.AddTool needs mcperr installed on the server first; call mcpgo.Install(s, pipeline) before adding tools
	// <nil>
	// mcperr: DUPLICATE_TOOL: "get_order": a tool with this name is already registered on this server; give each tool its own name
	// mcperr: DUPLICATE_TOOL: "list_orders": a tool with this name is already registered on this server; give each tool its own name
	// mcperr: INVALID_TOOL_NAME: "get order": character ' ' at byte 3 is not allowed; use only ASCII letters, digits, '_', '-' and '.'
	// mcperr: NIL_VALUE: "cancel_order": the tool has no handler; pass the function that implements it
	// 2 tools registered
}

// Wrap keeps s.AddTool compiling, around a handler that something else
// registers; it runs with the configuration of the server it is on. A
// ToolError's hint reaches the model as a block of its own.
func ExampleWrap() {
	divide := func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		a, err := req.RequireFloat("a")
		if err != nil {
			return nil, err
		}
		b, err := req.RequireFloat("b")
		if err != nil {
			return nil, err
		}
		if b == 0 {
			return nil, toolerr.New("b must not be zero.").WithHint("Pass a non-zero b.")
		}
		return mcp.NewToolResultText(fmt.Sprint(a / b)), nil
	}
	s := server.NewMCPServer("calc", "1.0.0")
	if err := mcpgo.Install(s, examplePipeline()); err != nil {
		panic(err)
	}
	s.AddTool(mcp.NewTool("divide", mcp.WithNumber("a", mcp.Required()), mcp.WithNumber("b", mcp.Required())),
		mcpgo.Wrap(divide))

	c := exampleClient(s)
	callAndPrint(c, "divide", map[string]any{"a": 1, "b": 4})
	callAndPrint(c, "divide", map[string]any{"a": 1, "b": 0})
	// Output:
	// client: 0.25
	// level=INFO msg="tool call failed" tool=divide code=TOOL_ERROR request_id=UUID-v7 error="b must not be zero." hints="[Pass a non-zero b.]"
	// client: b must not be zero.
	// client: Code: TOOL_ERROR
	// Retry: no, not with the same arguments.
	// Hint: Pass a non-zero b.
	// client: envelope {"category":"client","code":"TOOL_ERROR","error":true,"hints":["Pass a non-zero b."],"message":"b must not be zero.","requestId":"UUID-v7","retryable":false,"timestamp":"RFC3339-UTC","version":1}
}

// Structured adapts a handler written for mcp.NewStructuredToolHandler,
// which alone would send the raw text of its errors to the client, to
// AddTool or Wrap, which map them. It binds the arguments itself: a call
// whose arguments do not fit the schema, and so cannot be bound, is told
// which fields are wrong.
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
	callAndPrint(c, "forecast", map[string]any{"city": 75001})
	// Output:
	// client: {"city":"Paris","tempC":21.5}
	// level=ERROR msg="tool call failed" tool=forecast code=INTERNAL_ERROR ref=5e1f0c2a9b3d7e68 request_id=UUID-v7 error="weather api: 401 for key sk-live-123"
	// client: Internal error in tool "forecast" (ref: 5e1f0c2a9b3d7e68).
	// client: Code: INTERNAL_ERROR
	// Retry: no.
	// client: envelope {"category":"server","code":"INTERNAL_ERROR","error":true,"message":"Internal error in tool \"forecast\" (ref: 5e1f0c2a9b3d7e68).","ref":"5e1f0c2a9b3d7e68","requestId":"UUID-v7","retryable":false,"timestamp":"RFC3339-UTC","version":1}
	// level=INFO msg="tool call failed" tool=forecast code=VALIDATION_ERROR request_id=UUID-v7 error="json: cannot unmarshal number into Go struct field cityArgs.city of type string" fields.city.constraint="must be string, not number" fields.city.value=75001
	// client: Validation failed for city: must be string, not number
	// client: Code: VALIDATION_ERROR
	// Details: {"violations":[{"constraint":"must be string, not number","field":"city","pointer":"/city","reason":"type"}]}
	// Retry: no, not with the same arguments.
	// client: envelope {"category":"client","code":"VALIDATION_ERROR","details":{"violations":[{"constraint":"must be string, not number","field":"city","pointer":"/city","reason":"type"}]},"error":true,"message":"Validation failed for city: must be string, not number","requestId":"UUID-v7","retryable":false,"timestamp":"RFC3339-UTC","version":1}
}

// Filters given with WithFilters run in order, the first outermost, before
// the global filters of the pipeline; a filter that passes an error on
// leaves it to the next, and one that answers decides what the model reads.
func ExampleWithFilters() {
	trace := func(name string) filter.Filter {
		return filter.Catch(func(context.Context, filter.Call, error) (*filter.Response, error) {
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
	if err := mcpgo.Install(s, examplePipeline(filter.WithFilters(trace("global")), filter.ForTool("find_order", filter.WithFilters(suggest)))); err != nil {
		panic(err)
	}
	if err := mcpgo.AddTool(s, getOrderTool, getOrder, filter.WithFilters(trace("first"), trace("second"))); err != nil {
		panic(err)
	}
	s.AddTool(mcp.NewTool("find_order", mcp.WithString("id", mcp.Required())), mcpgo.Wrap(getOrder))

	c := exampleClient(s)
	callAndPrint(c, "get_order", map[string]any{"id": "ord_9"})
	callAndPrint(c, "find_order", map[string]any{"id": "42"})
	// Output:
	// filter: first
	// filter: second
	// filter: global
	// level=INFO msg="tool call failed" tool=get_order code=NOT_FOUND request_id=UUID-v7 error="Order not found: ord_9"
	// client: Order not found: ord_9
	// client: Code: NOT_FOUND
	// Details: {"resourceId":"ord_9","resourceType":"Order"}
	// Retry: no, not with the same arguments.
	// client: envelope {"category":"client","code":"NOT_FOUND","details":{"resourceId":"ord_9","resourceType":"Order"},"error":true,"message":"Order not found: ord_9","requestId":"UUID-v7","retryable":false,"timestamp":"RFC3339-UTC","version":1}
	// level=INFO msg="tool call failed" tool=find_order code=NOT_FOUND request_id=UUID-v7 error="Order not found: 42" hints="[Order ids look like ord_1; call list_orders to see them.]"
	// client: There is no order 42.
	// client: Code: NOT_FOUND
	// Retry: no, not with the same arguments.
	// Hint: Order ids look like ord_1; call list_orders to see them.
	// client: envelope {"category":"client","code":"NOT_FOUND","error":true,"hints":["Order ids look like ord_1; call list_orders to see them."],"message":"There is no order 42.","requestId":"UUID-v7","retryable":false,"timestamp":"RFC3339-UTC","version":1}
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
	s.AddTool(mcp.NewTool("ping"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("pong"), nil
	})
	c := exampleClient(s)
	for _, tool := range []string{"quote", "ping"} {
		res, err := callTool(c, tool, nil)
		if err != nil {
			panic(err)
		}
		if env, ok := mcpgo.EnvelopeOf(res); ok {
			fmt.Println(tool+":", env.Code, env.Category, "retryable:", env.Retryable, "after:", env.RetryAfterSeconds, "s")
		} else {
			fmt.Println(tool + ": no envelope")
		}
	}
	// Output:
	// quote: RATE_LIMITED client retryable: true after: 30 s
	// ping: no envelope
}

// exampleID shows a request id, a UUID v7 that changes from run to run, as
// the placeholder UUID-v7.
func exampleID(id string) string {
	if u, err := uuid.Parse(id); err == nil && u.Version() == 7 {
		return "UUID-v7"
	}
	return id
}

var (
	// uuidV7 finds a request id minted as a UUID of version 7.
	uuidV7 = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}`)
	// timestampJSON finds the timestamp of an envelope in its JSON form.
	timestampJSON = regexp.MustCompile(`"timestamp":"([^"]*)"`)
)

// exampleStable shows the parts of an envelope's JSON that change from run
// to run as placeholders: a request id minted as a UUID v7 as UUID-v7, and
// a timestamp in RFC 3339 form, UTC, as RFC3339-UTC.
func exampleStable(s string) string {
	s = uuidV7.ReplaceAllStringFunc(s, exampleID)
	return timestampJSON.ReplaceAllStringFunc(s, func(m string) string {
		ts := timestampJSON.FindStringSubmatch(m)[1]
		if t, err := time.Parse(time.RFC3339, ts); err == nil && t.Location() == time.UTC {
			return `"timestamp":"RFC3339-UTC"`
		}
		return m
	})
}

// Report-only mode is the first step on a server that runs already: the
// client receives what it received before, and each failure is logged with
// what mcperr would have sent. One tool at a time can then enforce.
func ExampleWithReportOnly() {
	s := server.NewMCPServer("orders", "1.0.0")
	if err := mcpgo.Install(s, examplePipeline(filter.WithReportOnly(true))); err != nil {
		panic(err)
	}
	// Not yet reviewed: still report-only, like the whole server.
	s.AddTool(mcp.NewTool("legacy_get_order", mcp.WithString("id", mcp.Required())), getOrder)
	// Reviewed: mcperr enforces for this tool.
	if err := mcpgo.AddTool(s, getOrderTool, getOrder, filter.WithReportOnly(false)); err != nil {
		panic(err)
	}

	c := exampleClient(s)
	callAndPrint(c, "legacy_get_order", map[string]any{"id": "ord_2"})
	callAndPrint(c, "get_order", map[string]any{"id": "ord_2"})
	// Output:
	// level=ERROR msg="tool call failed" tool=legacy_get_order code=INTERNAL_ERROR ref=5e1f0c2a9b3d7e68 request_id=UUID-v7 report_only=true masked=true would_send="Internal error in tool \"legacy_get_order\" (ref: 5e1f0c2a9b3d7e68)." error="dial 10.0.0.5: password=hunter2 refused"
	// protocol error: internal error: dial 10.0.0.5: password=hunter2 refused
	// level=ERROR msg="tool call failed" tool=get_order code=INTERNAL_ERROR ref=5e1f0c2a9b3d7e68 request_id=UUID-v7 error="dial 10.0.0.5: password=hunter2 refused"
	// client: Internal error in tool "get_order" (ref: 5e1f0c2a9b3d7e68).
	// client: Code: INTERNAL_ERROR
	// Retry: no.
	// client: envelope {"category":"server","code":"INTERNAL_ERROR","error":true,"message":"Internal error in tool \"get_order\" (ref: 5e1f0c2a9b3d7e68).","ref":"5e1f0c2a9b3d7e68","requestId":"UUID-v7","retryable":false,"timestamp":"RFC3339-UTC","version":1}
}

// Error results a handler builds itself pass untouched by default. Under
// ReportHandBuilt each is logged with a ref, and still sent as it is: the
// way to find the hand-built results that carry error texts.
func ExampleWithHandBuilt() {
	s := server.NewMCPServer("issues", "1.0.0")
	if err := mcpgo.Install(s, examplePipeline()); err != nil {
		panic(err)
	}
	getIssue := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		err := errors.New("GET https://api.example.com/issues/7: 502 Bad Gateway")
		return mcp.NewToolResultErrorFromErr("failed to get issue", err), nil
	}
	err := mcpgo.AddTool(s, mcp.NewTool("get_issue"), getIssue, filter.WithHandBuilt(filter.ReportHandBuilt))
	if err != nil {
		panic(err)
	}

	callAndPrint(exampleClient(s), "get_issue", nil)
	// Output:
	// level=WARN msg="tool call failed" tool=get_issue code=TOOL_ERROR ref=5e1f0c2a9b3d7e68 request_id=UUID-v7 hand_built=true error="failed to get issue: GET https://api.example.com/issues/7: 502 Bad Gateway"
	// client: failed to get issue: GET https://api.example.com/issues/7: 502 Bad Gateway
}

// With the argument check on, a call whose arguments do not fit the input
// schema is refused before the handler runs: a missing b never reaches
// divide as 0, and the model reads which field to fix, never a value.
func ExampleWithArgumentCheck() {
	s := server.NewMCPServer("calculator", "1.0.0")
	if err := mcpgo.Install(s, examplePipeline()); err != nil {
		panic(err)
	}
	divideTool := mcp.NewTool("divide",
		mcp.WithNumber("a", mcp.Required()),
		mcp.WithNumber("b", mcp.Required()))
	divide := func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		a, b := req.GetFloat("a", 0), req.GetFloat("b", 0)
		if b == 0 {
			return nil, toolerr.New("b must not be zero.")
		}
		return mcp.NewToolResultText(fmt.Sprint(a / b)), nil
	}
	if err := mcpgo.AddTool(s, divideTool, divide, filter.WithArgumentCheck(true)); err != nil {
		panic(err)
	}

	callAndPrint(exampleClient(s), "divide", map[string]any{"a": 1})
	// Output:
	// level=INFO msg="tool call failed" tool=divide code=VALIDATION_ERROR request_id=UUID-v7 error="Validation failed for b: is required" fields.b.constraint="is required" fields.b.value=<nil>
	// client: Validation failed for b: is required
	// client: Code: VALIDATION_ERROR
	// Details: {"violations":[{"constraint":"is required","field":"b","pointer":"/b","reason":"required"}]}
	// Retry: no, not with the same arguments.
	// client: envelope {"category":"client","code":"VALIDATION_ERROR","details":{"violations":[{"constraint":"is required","field":"b","pointer":"/b","reason":"required"}]},"error":true,"message":"Validation failed for b: is required","requestId":"UUID-v7","retryable":false,"timestamp":"RFC3339-UTC","version":1}
}

// A task tool (mcp-go's AddTaskTool) runs outside every middleware; added
// with AddTool, its failure is answered as a tool call's: the task fails,
// and its status message and the answer to tasks/result say only what the
// model may read, while the log keeps the error with the same ref.
func ExampleAddTaskTool() {
	s := server.NewMCPServer("reports", "1.0.0", server.WithTaskCapabilities(true, true, true))
	if err := mcpgo.Install(s, examplePipeline()); err != nil {
		panic(err)
	}
	report := mcp.NewTool("build_report", mcp.WithTaskSupport(mcp.TaskSupportRequired))
	err := mcpgo.AddTaskTool(s, report, func(context.Context, mcp.CallToolRequest) (*mcp.CreateTaskResult, error) {
		return nil, errors.New("dial 10.0.0.5: password=hunter2 refused")
	})
	if err != nil {
		panic(err)
	}
	c := exampleClient(s)
	send := func(method string, params any) (json.RawMessage, *mcp.JSONRPCErrorDetails) {
		resp, err := c.GetTransport().SendRequest(context.Background(), transport.JSONRPCRequest{
			JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(method), Method: method, Params: params})
		if err != nil {
			panic(err)
		}
		return resp.Result, resp.Error
	}
	raw, _ := send("tools/call", map[string]any{"name": "build_report", "task": map[string]any{}})
	var created mcp.CreateTaskResult
	if err := json.Unmarshal(raw, &created); err != nil {
		panic(err)
	}
	id := map[string]any{"taskId": created.Task.TaskId}
	_, failed := send("tasks/result", id) // waits for the task
	raw, _ = send("tasks/get", id)
	var task mcp.GetTaskResult
	if err := json.Unmarshal(raw, &task); err != nil {
		panic(err)
	}
	fmt.Printf("client: task %s: %s\n", task.Status, task.StatusMessage)
	fmt.Printf("client: tasks/result: error %d: %s\n", failed.Code, failed.Message)
	// Output:
	// level=ERROR msg="tool call failed" tool=build_report code=INTERNAL_ERROR ref=5e1f0c2a9b3d7e68 request_id=UUID-v7 error="dial 10.0.0.5: password=hunter2 refused"
	// client: task failed: Internal error in tool "build_report" (ref: 5e1f0c2a9b3d7e68).
	// client: tasks/result: error -32603: Internal error in tool "build_report" (ref: 5e1f0c2a9b3d7e68).
}
