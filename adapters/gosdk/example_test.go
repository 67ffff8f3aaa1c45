package gosdk_test

import (
	"github.com/google/uuid"

	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/toolerr"
)

// examplePipeline returns a pipeline with a fixed ref and clock that logs to
// stdout without timestamps and stacks, so the examples print the same every
// time.
func examplePipeline(opts ...filter.Option) *filter.Pipeline {
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && (a.Key == slog.TimeKey || a.Key == "stack") {
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
		filter.WithRefGenerator(func() string { return "5f0c2a9e81d34b67" }),
		filter.WithClock(func() time.Time { return time.Date(2025, 11, 25, 12, 0, 0, 0, time.UTC) }),
	}, opts...)...)
	if err != nil {
		panic(err)
	}
	return p
}

// exampleClient connects a client to s over in-memory transports and, as
// every MCP client does before it calls a tool, lists the tools.
func exampleClient(s *mcp.Server) *mcp.ClientSession {
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := s.Connect(ctx, st, nil); err != nil {
		panic(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0.0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		panic(err)
	}
	for _, err := range cs.Tools(ctx, nil) {
		if err != nil {
			panic(err)
		}
	}
	return cs
}

// callAndPrint calls a tool and prints what the client, and so the model,
// receives: each text block, and the code of the error envelope.
func callAndPrint(cs *mcp.ClientSession, tool string, args map[string]any) {
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		fmt.Println("protocol error:", err)
		return
	}
	for _, c := range res.Content {
		fmt.Printf("client: %s\n", c.(*mcp.TextContent).Text)
	}
	if env, ok := res.Meta[filter.MetaKey].(map[string]any); ok {
		if id, ok := env["requestId"].(string); ok {
			env["requestId"] = exampleID(id)
		}
		b, _ := json.Marshal(env)
		fmt.Printf("client: envelope %s\n", b)
	}
}

type lookupArgs struct {
	ID string `json:"id"`
}

func lookupOrder(_ context.Context, _ *mcp.CallToolRequest, args lookupArgs) (*mcp.CallToolResult, any, error) {
	switch args.ID {
	case "ord_1":
		return nil, map[string]any{"id": "ord_1", "status": "shipped"}, nil
	case "ord_2":
		return nil, nil, errors.New("dial 10.0.0.5: password=hunter2 refused")
	}
	return nil, nil, domain.NewNotFound("Order", args.ID)
}

// Install gives a server its one configuration and puts every tool of the
// server behind it, however the tool was added: a domain error reaches the
// model with its code, a plain error is masked behind a ref that only the
// log can resolve, and arguments that do not fit the input schema are named
// field by field.
func ExampleInstall() {
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1.0.0"}, nil)
	if err := gosdk.Install(s, examplePipeline()); err != nil {
		panic(err)
	}
	mcp.AddTool(s, &mcp.Tool{Name: "lookup_order"}, lookupOrder)

	cs := exampleClient(s)
	callAndPrint(cs, "lookup_order", map[string]any{"id": "ord_1"})
	callAndPrint(cs, "lookup_order", map[string]any{"id": "ord_404"})
	callAndPrint(cs, "lookup_order", map[string]any{"id": "ord_2"})
	callAndPrint(cs, "lookup_order", map[string]any{"order": "ord_1"})
	// Output:
	// client: {"id":"ord_1","status":"shipped"}
	// level=INFO msg="tool call failed" tool=lookup_order code=NOT_FOUND request_id=UUID-v7 error="Order not found: ord_404" fields.resource_type=Order fields.resource_id=ord_404
	// client: Order not found: ord_404
	// client: Code: NOT_FOUND
	// Details: {"resourceId":"ord_404","resourceType":"Order"}
	// Retry: no, not with the same arguments.
	// client: envelope {"category":"client","code":"NOT_FOUND","details":{"resourceId":"ord_404","resourceType":"Order"},"error":true,"message":"Order not found: ord_404","requestId":"UUID-v7","retryable":false,"timestamp":"2025-11-25T12:00:00Z","version":1}
	// level=ERROR msg="tool call failed" tool=lookup_order code=INTERNAL_ERROR ref=5f0c2a9e81d34b67 request_id=UUID-v7 error="dial 10.0.0.5: password=hunter2 refused"
	// client: Internal error in tool "lookup_order" (ref: 5f0c2a9e81d34b67).
	// client: Code: INTERNAL_ERROR
	// Retry: no.
	// client: envelope {"category":"server","code":"INTERNAL_ERROR","error":true,"message":"Internal error in tool \"lookup_order\" (ref: 5f0c2a9e81d34b67).","ref":"5f0c2a9e81d34b67","requestId":"UUID-v7","retryable":false,"timestamp":"2025-11-25T12:00:00Z","version":1}
	// level=INFO msg="tool call failed" tool=lookup_order code=VALIDATION_ERROR request_id=UUID-v7 error="Validation failed: id: is required; order: is not a known property; remove it (the result's error: validating \"arguments\": validating root: unexpected additional properties [\"order\"])" fields.id.constraint="is required" fields.id.value=<nil> fields.order.constraint="is not a known property; remove it" fields.order.value=ord_1
	// client: Validation failed: id: is required; order: is not a known property; remove it
	// client: Code: VALIDATION_ERROR
	// Details: {"violations":[{"constraint":"is required","field":"id","pointer":"/id","reason":"required"},{"constraint":"is not a known property; remove it","field":"order","pointer":"/order","reason":"additionalProperties"}]}
	// Retry: no, not with the same arguments.
	// client: envelope {"category":"client","code":"VALIDATION_ERROR","details":{"violations":[{"constraint":"is required","field":"id","pointer":"/id","reason":"required"},{"constraint":"is not a known property; remove it","field":"order","pointer":"/order","reason":"additionalProperties"}]},"error":true,"message":"Validation failed: id: is required; order: is not a known property; remove it","requestId":"UUID-v7","retryable":false,"timestamp":"2025-11-25T12:00:00Z","version":1}
}

// A server has one configuration: a second, different one is refused.
func ExampleInstall_twice() {
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1.0.0"}, nil)
	p := examplePipeline()
	fmt.Println(gosdk.Install(s, p))
	fmt.Println(gosdk.Install(s, p)) // the same one again: nothing to do
	fmt.Println(gosdk.Install(s, examplePipeline()))
	// Output:
	// <nil>
	// <nil>
	// mcperr: CONFLICTING_CONFIGURATION: mcperr is already installed on this server with another configuration; call gosdk.Install once per server and share one *filter.Pipeline
}

// AddTool is the drop-in for mcp.AddTool: one changed line gives the tool
// the whole contract, here a panic recovered, masked and logged once, with
// the configuration Install gave the server.
func ExampleAddTool() {
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1.0.0"}, nil)
	if err := gosdk.Install(s, examplePipeline()); err != nil {
		panic(err)
	}
	err := gosdk.AddTool(s, &mcp.Tool{Name: "cancel_order"},
		func(_ context.Context, _ *mcp.CallToolRequest, args lookupArgs) (*mcp.CallToolResult, any, error) {
			var orders map[string]string
			orders[args.ID] = "cancelled" // a bug: the map is nil
			return nil, nil, nil
		})
	if err != nil {
		panic(err)
	}

	callAndPrint(exampleClient(s), "cancel_order", map[string]any{"id": "ord_1"})
	// Output:
	// level=ERROR msg="tool call failed" tool=cancel_order code=INTERNAL_ERROR ref=5f0c2a9e81d34b67 request_id=UUID-v7 error="panic: assignment to entry in nil map"
	// client: Internal error in tool "cancel_order" (ref: 5f0c2a9e81d34b67).
	// client: Code: INTERNAL_ERROR
	// Retry: no.
	// client: envelope {"category":"server","code":"INTERNAL_ERROR","error":true,"message":"Internal error in tool \"cancel_order\" (ref: 5f0c2a9e81d34b67).","ref":"5f0c2a9e81d34b67","requestId":"UUID-v7","retryable":false,"timestamp":"2025-11-25T12:00:00Z","version":1}
}

// AddTool refuses a bad definition when the server starts, instead of
// registering it as the SDK alone does.
func ExampleAddTool_definitionErrors() {
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1.0.0"}, nil)
	if err := gosdk.Install(s, examplePipeline()); err != nil {
		panic(err)
	}
	fmt.Println(gosdk.AddTool(s, &mcp.Tool{Name: "lookup_order"}, lookupOrder))
	fmt.Println(gosdk.AddTool(s, &mcp.Tool{Name: "lookup_order"}, lookupOrder))
	fmt.Println(gosdk.AddTool(s, &mcp.Tool{Name: "look up"}, lookupOrder))
	fmt.Println(gosdk.AddTool[lookupArgs, any](s, &mcp.Tool{Name: "cancel_order"}, nil))
	// Output:
	// <nil>
	// mcperr: DUPLICATE_TOOL: "lookup_order": a tool with this name is already registered on this server; give each tool its own name
	// mcperr: INVALID_TOOL_NAME: "look up": character ' ' at byte 4 is not allowed; use only ASCII letters, digits, '_', '-' and '.'
	// mcperr: NIL_HANDLER: "cancel_order": the tool has no handler; pass the function that implements it
}

// AddRawTool checks a raw tool's arguments against its input schema, which
// the SDK leaves to the handler, so the handler only ever sees arguments
// that fit.
func ExampleAddRawTool() {
	s := mcp.NewServer(&mcp.Implementation{Name: "calc", Version: "1.0.0"}, nil)
	if err := gosdk.Install(s, examplePipeline()); err != nil {
		panic(err)
	}
	schema := json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`)
	err := gosdk.AddRawTool(s, &mcp.Tool{Name: "add", InputSchema: schema},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args struct{ A, B float64 }
			if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(args.A + args.B)}}}, nil
		})
	if err != nil {
		panic(err)
	}

	cs := exampleClient(s)
	callAndPrint(cs, "add", map[string]any{"a": 1, "b": 2})
	callAndPrint(cs, "add", map[string]any{"a": 1, "b": "two"})
	// Output:
	// client: 3
	// level=INFO msg="tool call failed" tool=add code=VALIDATION_ERROR request_id=UUID-v7 error="Validation failed for b: must be number, not string" fields.b.constraint="must be number, not string" fields.b.value=two
	// client: Validation failed for b: must be number, not string
	// client: Code: VALIDATION_ERROR
	// Details: {"violations":[{"constraint":"must be number, not string","field":"b","pointer":"/b","reason":"type"}]}
	// Retry: no, not with the same arguments.
	// client: envelope {"category":"client","code":"VALIDATION_ERROR","details":{"violations":[{"constraint":"must be number, not string","field":"b","pointer":"/b","reason":"type"}]},"error":true,"message":"Validation failed for b: must be number, not string","requestId":"UUID-v7","retryable":false,"timestamp":"2025-11-25T12:00:00Z","version":1}
}

// Wrap keeps mcp.AddTool compiling and binds filters to one tool; it runs
// with the configuration of the server it is on. Here a filter answers this
// tool's NotFound errors with a hint for the model.
func ExampleWrap() {
	suggest := filter.Catch(func(_ context.Context, _ filter.Call, e *domain.NotFound) (*filter.Response, error) {
		return &filter.Response{
			Code:    codes.NotFound,
			Message: "There is no order " + e.ID + ".",
			Hints:   []string{"Order ids look like ord_1; call list_orders to see them."},
		}, nil
	})

	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1.0.0"}, nil)
	if err := gosdk.Install(s, examplePipeline()); err != nil {
		panic(err)
	}
	mcp.AddTool(s, &mcp.Tool{Name: "lookup_order"}, gosdk.Wrap(lookupOrder, gosdk.WithFilters(suggest)))

	callAndPrint(exampleClient(s), "lookup_order", map[string]any{"id": "42"})
	// Output:
	// level=INFO msg="tool call failed" tool=lookup_order code=NOT_FOUND request_id=UUID-v7 error="Order not found: 42" fields.resource_type=Order fields.resource_id=42 hints="[Order ids look like ord_1; call list_orders to see them.]"
	// client: There is no order 42.
	// client: Code: NOT_FOUND
	// Retry: no, not with the same arguments.
	// Hint: Order ids look like ord_1; call list_orders to see them.
	// client: envelope {"category":"client","code":"NOT_FOUND","error":true,"hints":["Order ids look like ord_1; call list_orders to see them."],"message":"There is no order 42.","requestId":"UUID-v7","retryable":false,"timestamp":"2025-11-25T12:00:00Z","version":1}
}

// WrapRaw wraps a raw handler, which the SDK alone would turn into a
// JSON-RPC error carrying the raw text.
func ExampleWrapRaw() {
	reg, _ := codes.NewRegistry(codes.Info{Code: "CARD_DECLINED", Category: codes.Business, Description: "The card was declined."})
	charge := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, toolerr.New("The card was declined.").WithCode("CARD_DECLINED").WithRetryable(false)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "payments", Version: "1.0.0"}, nil)
	if err := gosdk.Install(s, examplePipeline(filter.WithRegistry(reg))); err != nil {
		panic(err)
	}
	s.AddTool(&mcp.Tool{Name: "charge", InputSchema: json.RawMessage(`{"type":"object"}`)}, gosdk.WrapRaw(charge))

	callAndPrint(exampleClient(s), "charge", nil)
	// Output:
	// level=INFO msg="tool call failed" tool=charge code=CARD_DECLINED request_id=UUID-v7 error="The card was declined."
	// client: The card was declined.
	// client: Code: CARD_DECLINED
	// Retry: no, not with the same arguments.
	// client: envelope {"category":"business","code":"CARD_DECLINED","error":true,"message":"The card was declined.","requestId":"UUID-v7","retryable":false,"timestamp":"2025-11-25T12:00:00Z","version":1}
}

// Filters given with WithFilters run in order, the first outermost, before
// the global filters of the pipeline; a filter that passes an error on
// leaves it to the next.
func ExampleWithFilters() {
	trace := func(name string) filter.Filter {
		return filter.Func(func(context.Context, filter.Call, error) (*filter.Response, error) {
			fmt.Println("filter:", name)
			return nil, nil // pass the error on
		})
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1.0.0"}, nil)
	if err := gosdk.Install(s, examplePipeline(filter.WithFilters(trace("global")))); err != nil {
		panic(err)
	}
	err := gosdk.AddTool(s, &mcp.Tool{Name: "lookup_order"}, lookupOrder, gosdk.WithFilters(trace("first"), trace("second")))
	if err != nil {
		panic(err)
	}

	callAndPrint(exampleClient(s), "lookup_order", map[string]any{"id": "ord_9"})
	// Output:
	// filter: first
	// filter: second
	// filter: global
	// level=INFO msg="tool call failed" tool=lookup_order code=NOT_FOUND request_id=UUID-v7 error="Order not found: ord_9" fields.resource_type=Order fields.resource_id=ord_9
	// client: Order not found: ord_9
	// client: Code: NOT_FOUND
	// Details: {"resourceId":"ord_9","resourceType":"Order"}
	// Retry: no, not with the same arguments.
	// client: envelope {"category":"client","code":"NOT_FOUND","details":{"resourceId":"ord_9","resourceType":"Order"},"error":true,"message":"Order not found: ord_9","requestId":"UUID-v7","retryable":false,"timestamp":"2025-11-25T12:00:00Z","version":1}
}

// WithoutArgumentCheck leaves a raw tool's arguments to its handler, as the
// SDK does.
func ExampleWithoutArgumentCheck() {
	s := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "1.0.0"}, nil)
	schema := json.RawMessage(`{"type":"object","properties":{"n":{"type":"number"}}}`)
	err := gosdk.AddRawTool(s, &mcp.Tool{Name: "echo", InputSchema: schema},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
		}, gosdk.WithoutArgumentCheck())
	if err != nil {
		panic(err)
	}
	callAndPrint(exampleClient(s), "echo", map[string]any{"n": "not a number"})
	// Output:
	// client: {"n":"not a number"}
}

// A client reads a failure's envelope typed, instead of type-asserting
// _meta: here, how long a rate-limited call should wait.
func ExampleEnvelopeOf() {
	s := mcp.NewServer(&mcp.Implementation{Name: "quotes", Version: "1.0.0"}, nil)
	if err := gosdk.Install(s, examplePipeline(filter.WithLogger(slog.New(slog.DiscardHandler)))); err != nil {
		panic(err)
	}
	mcp.AddTool(s, &mcp.Tool{Name: "quote"}, func(context.Context, *mcp.CallToolRequest, lookupArgs) (*mcp.CallToolResult, any, error) {
		return nil, nil, domain.NewRateLimited(30 * time.Second)
	})
	cs := exampleClient(s)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "quote", Arguments: map[string]any{"id": "EURUSD"}})
	if err != nil {
		panic(err)
	}
	if env, ok := gosdk.EnvelopeOf(res); ok {
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
