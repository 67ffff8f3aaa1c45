package gosdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"os"
	"regexp"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/toolerr"
)

// examplePipeline returns a pipeline with a fixed ref that logs to stdout
// without times and stacks, and with the request id shown as a
// placeholder, so that the examples print the same every time.
func examplePipeline(opts ...filter.Option) *filter.Pipeline {
	p, err := filter.New(append([]filter.Option{
		filter.WithLogger(exampleLogger()),
		filter.WithRefGenerator(func() string { return "5f0c2a9e81d34b67" }),
	}, opts...)...)
	if err != nil {
		panic(err)
	}
	return p
}

// exampleLogger returns a logger to stdout without times and stacks, and
// with the request id shown as a placeholder; with refsAsR, every ref is
// shown as R, for examples whose pipeline makes random ones.
func exampleLogger(refsAsR ...bool) *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && (a.Key == slog.TimeKey || a.Key == "stack") {
				return slog.Attr{}
			}
			if len(groups) == 0 && a.Key == "request_id" {
				a.Value = slog.StringValue(exampleID(a.Value.String()))
			}
			if len(refsAsR) > 0 && refsAsR[0] && len(groups) == 0 && (a.Key == "ref" || a.Key == "would_send") {
				a.Value = slog.StringValue(refPattern.ReplaceAllString(a.Value.String(), "R"))
			}
			return a
		},
	}))
}

// refPattern matches a random ref.
var refPattern = regexp.MustCompile(`^[0-9a-f]{16}$|[0-9a-f]{16}\b`)

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
// receives: each text block, and the error envelope.
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
		b, _ := json.Marshal(env)
		fmt.Printf("client: envelope %s\n", exampleStable(string(b)))
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
	// level=INFO msg="tool call failed" tool=lookup_order code=NOT_FOUND request_id=UUID-v7 error="Order not found: ord_404"
	// client: Order not found: ord_404
	// client: Code: NOT_FOUND
	// Details: {"resourceId":"ord_404","resourceType":"Order"}
	// Retry: no, not with the same arguments.
	// client: envelope {"category":"client","code":"NOT_FOUND","details":{"resourceId":"ord_404","resourceType":"Order"},"error":true,"message":"Order not found: ord_404","requestId":"UUID-v7","retryable":false,"timestamp":"RFC3339-UTC","version":1}
	// level=ERROR msg="tool call failed" tool=lookup_order code=INTERNAL_ERROR ref=5f0c2a9e81d34b67 request_id=UUID-v7 error="dial 10.0.0.5: password=hunter2 refused"
	// client: Internal error in tool "lookup_order" (ref: 5f0c2a9e81d34b67).
	// client: Code: INTERNAL_ERROR
	// Retry: no.
	// client: envelope {"category":"server","code":"INTERNAL_ERROR","error":true,"message":"Internal error in tool \"lookup_order\" (ref: 5f0c2a9e81d34b67).","ref":"5f0c2a9e81d34b67","requestId":"UUID-v7","retryable":false,"timestamp":"RFC3339-UTC","version":1}
	// level=INFO msg="tool call failed" tool=lookup_order code=VALIDATION_ERROR request_id=UUID-v7 error="validating \"arguments\": validating root: unexpected additional properties [\"order\"]" fields.id.constraint="is required" fields.id.value=<nil> fields.order.constraint="is not a known property; remove it" fields.order.value=ord_1
	// client: Validation failed: id: is required; order: is not a known property; remove it
	// client: Code: VALIDATION_ERROR
	// Details: {"violations":[{"constraint":"is required","field":"id","pointer":"/id","reason":"required"},{"constraint":"is not a known property; remove it","field":"order","pointer":"/order","reason":"additionalProperties"}]}
	// Retry: no, not with the same arguments.
	// client: envelope {"category":"client","code":"VALIDATION_ERROR","details":{"violations":[{"constraint":"is required","field":"id","pointer":"/id","reason":"required"},{"constraint":"is not a known property; remove it","field":"order","pointer":"/order","reason":"additionalProperties"}]},"error":true,"message":"Validation failed: id: is required; order: is not a known property; remove it","requestId":"UUID-v7","retryable":false,"timestamp":"RFC3339-UTC","version":1}
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
	// mcperr: CONFLICTING_CONFIGURATION: mcperr is already installed on this server with another pipeline; call gosdk.Install once per server and share one *filter.Pipeline
}

// AddTool is the drop-in for mcp.AddTool: one changed line gives the tool
// per-tool filters and a checked definition, and its failures the
// configuration Install gave the server; here a panic recovered, masked and
// logged once.
func ExampleAddTool() {
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1.0.0"}, nil)
	if err := gosdk.Install(s, examplePipeline()); err != nil {
		panic(err)
	}
	err := gosdk.AddTool(s, &mcp.Tool{Name: "cancel_order"},
		func(_ context.Context, _ *mcp.CallToolRequest, args lookupArgs) (*mcp.CallToolResult, any, error) {
			var orders map[string]string
			//lint:ignore SA5000 the bug is the point: the tool panics
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
	// client: envelope {"category":"server","code":"INTERNAL_ERROR","error":true,"message":"Internal error in tool \"cancel_order\" (ref: 5f0c2a9e81d34b67).","ref":"5f0c2a9e81d34b67","requestId":"UUID-v7","retryable":false,"timestamp":"RFC3339-UTC","version":1}
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
	// mcperr: NIL_VALUE: "cancel_order": the tool has no handler; pass the function that implements it
}

// AddTool needs the server's configuration: on a server where Install was
// not called first it adds nothing and says what to do.
func ExampleAddTool_beforeInstall() {
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1.0.0"}, nil)
	err := gosdk.AddTool(s, &mcp.Tool{Name: "lookup_order"}, lookupOrder)
	var de *codes.DefinitionError
	if errors.As(err, &de) {
		fmt.Println(de.Mistake)
	}
	fmt.Println(err)

	if err := gosdk.Install(s, examplePipeline()); err != nil {
		panic(err)
	}
	fmt.Println(gosdk.AddTool(s, &mcp.Tool{Name: "lookup_order"}, lookupOrder))
	// Output:
	// NOT_INSTALLED
	// mcperr: NOT_INSTALLED: gosdk.AddTool needs mcperr installed on the server first; call gosdk.Install(s, pipeline) before adding tools
	// <nil>
}

// AddRawTool hands a raw handler its arguments as the SDK does, unchecked.
// When the handler fails on arguments that do not fit the input schema, the
// client reads which fields are wrong, and the log keeps the handler's
// error; a handler that succeeds is answered with its success.
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
	callAndPrint(cs, "add", map[string]any{"a": 1}) // b is missing, but the handler succeeds: a success stays one
	callAndPrint(cs, "add", map[string]any{"a": 1, "b": "two"})
	// Output:
	// client: 3
	// client: 1
	// level=INFO msg="tool call failed" tool=add code=VALIDATION_ERROR request_id=UUID-v7 error="json: cannot unmarshal string into Go struct field .B of type float64" fields.b.constraint="must be number, not string" fields.b.value=two
	// client: Validation failed for b: must be number, not string
	// client: Code: VALIDATION_ERROR
	// Details: {"violations":[{"constraint":"must be number, not string","field":"b","pointer":"/b","reason":"type"}]}
	// Retry: no, not with the same arguments.
	// client: envelope {"category":"client","code":"VALIDATION_ERROR","details":{"violations":[{"constraint":"must be number, not string","field":"b","pointer":"/b","reason":"type"}]},"error":true,"message":"Validation failed for b: must be number, not string","requestId":"UUID-v7","retryable":false,"timestamp":"RFC3339-UTC","version":1}
}

// Wrap keeps mcp.AddTool compiling; the tool's own options are declared at
// start-up with filter.ForTool, and it runs with the configuration of the
// server it is on. Here a filter answers this tool's NotFound errors with a
// hint for the model.
func ExampleWrap() {
	suggest := filter.Catch(func(_ context.Context, _ filter.Call, e *domain.NotFound) (*filter.Response, error) {
		return &filter.Response{
			Code:    codes.NotFound,
			Message: "There is no order " + e.ID + ".",
			Hints:   []string{"Order ids look like ord_1; call list_orders to see them."},
		}, nil
	})

	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1.0.0"}, nil)
	if err := gosdk.Install(s, examplePipeline(filter.ForTool("lookup_order", filter.WithFilters(suggest)))); err != nil {
		panic(err)
	}
	mcp.AddTool(s, &mcp.Tool{Name: "lookup_order"}, gosdk.Wrap(lookupOrder))

	callAndPrint(exampleClient(s), "lookup_order", map[string]any{"id": "42"})
	// Output:
	// level=INFO msg="tool call failed" tool=lookup_order code=NOT_FOUND request_id=UUID-v7 error="Order not found: 42" hints="[Order ids look like ord_1; call list_orders to see them.]"
	// client: There is no order 42.
	// client: Code: NOT_FOUND
	// Retry: no, not with the same arguments.
	// Hint: Order ids look like ord_1; call list_orders to see them.
	// client: envelope {"category":"client","code":"NOT_FOUND","error":true,"hints":["Order ids look like ord_1; call list_orders to see them."],"message":"There is no order 42.","requestId":"UUID-v7","retryable":false,"timestamp":"RFC3339-UTC","version":1}
}

// WrapRaw wraps a raw handler, whose error the SDK alone would send as a
// JSON-RPC error carrying the raw text.
func ExampleWrapRaw() {
	reg, err := codes.NewRegistry(codes.Info{Code: "CARD_DECLINED", Category: codes.Business, Description: "The card was declined."})
	if err != nil {
		panic(err)
	}
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
	// client: envelope {"category":"business","code":"CARD_DECLINED","error":true,"message":"The card was declined.","requestId":"UUID-v7","retryable":false,"timestamp":"RFC3339-UTC","version":1}
}

// Filters given with WithFilters run in order, the first outermost, before
// the global filters of the pipeline; a filter that passes an error on
// leaves it to the next.
func ExampleWithFilters() {
	trace := func(name string) filter.Filter {
		return filter.Catch(func(context.Context, filter.Call, error) (*filter.Response, error) {
			fmt.Println("filter:", name)
			return nil, nil // pass the error on
		})
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1.0.0"}, nil)
	if err := gosdk.Install(s, examplePipeline(filter.WithFilters(trace("global")))); err != nil {
		panic(err)
	}
	err := gosdk.AddTool(s, &mcp.Tool{Name: "lookup_order"}, lookupOrder, filter.WithFilters(trace("first"), trace("second")))
	if err != nil {
		panic(err)
	}

	callAndPrint(exampleClient(s), "lookup_order", map[string]any{"id": "ord_9"})
	// Output:
	// filter: first
	// filter: second
	// filter: global
	// level=INFO msg="tool call failed" tool=lookup_order code=NOT_FOUND request_id=UUID-v7 error="Order not found: ord_9"
	// client: Order not found: ord_9
	// client: Code: NOT_FOUND
	// Details: {"resourceId":"ord_9","resourceType":"Order"}
	// Retry: no, not with the same arguments.
	// client: envelope {"category":"client","code":"NOT_FOUND","details":{"resourceId":"ord_9","resourceType":"Order"},"error":true,"message":"Order not found: ord_9","requestId":"UUID-v7","retryable":false,"timestamp":"RFC3339-UTC","version":1}
}

// A client reads a failure's envelope typed, instead of type-asserting
// _meta: here, how long a rate-limited call should wait.
func ExampleEnvelopeOf() {
	s := mcp.NewServer(&mcp.Implementation{Name: "quotes", Version: "1.0.0"}, nil)
	if err := gosdk.Install(s, examplePipeline(filter.WithLogger(slog.New(slog.DiscardHandler)))); err != nil {
		panic(err)
	}
	mcp.AddTool(s, &mcp.Tool{Name: "quote"}, func(_ context.Context, _ *mcp.CallToolRequest, args lookupArgs) (*mcp.CallToolResult, any, error) {
		if args.ID == "EURUSD" {
			return nil, nil, domain.NewRateLimited(30 * time.Second)
		}
		return nil, map[string]any{"id": args.ID, "bid": 1.0842}, nil
	})
	cs := exampleClient(s)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "quote", Arguments: map[string]any{"id": "EURUSD"}})
	if err != nil {
		panic(err)
	}
	if env, ok := gosdk.EnvelopeOf(res); ok {
		fmt.Println(env.Code, env.Category, env.Retryable, env.RetryAfterSeconds)
	}
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "quote", Arguments: map[string]any{"id": "GBPUSD"}})
	if err != nil {
		panic(err)
	}
	_, failed := gosdk.EnvelopeOf(res)
	fmt.Println(res.IsError, failed) // a success has no envelope
	// Output:
	// RATE_LIMITED client true 30
	// false false
}

// exampleID shows a request id minted as a UUID, which changes from run to
// run, as the placeholder UUID-v7.
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
// a timestamp in RFC 3339 form, UTC, as RFC3339-UTC. Anything else is left
// as it is, so that an example shows a malformed one.
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
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1.0.0"}, nil)
	if err := gosdk.Install(s, examplePipeline(filter.WithReportOnly(true))); err != nil {
		panic(err)
	}
	// Not yet reviewed: still report-only, like the whole server.
	mcp.AddTool(s, &mcp.Tool{Name: "legacy_lookup"}, lookupOrder)
	// Reviewed: mcperr enforces for this tool.
	if err := gosdk.AddTool(s, &mcp.Tool{Name: "lookup_order"}, lookupOrder, filter.WithReportOnly(false)); err != nil {
		panic(err)
	}

	cs := exampleClient(s)
	callAndPrint(cs, "legacy_lookup", map[string]any{"id": "ord_2"})
	callAndPrint(cs, "lookup_order", map[string]any{"id": "ord_2"})
	// Output:
	// level=ERROR msg="tool call failed" tool=legacy_lookup code=INTERNAL_ERROR ref=5f0c2a9e81d34b67 request_id=UUID-v7 report_only=true masked=true would_send="Internal error in tool \"legacy_lookup\" (ref: 5f0c2a9e81d34b67)." error="dial 10.0.0.5: password=hunter2 refused"
	// client: dial 10.0.0.5: password=hunter2 refused
	// level=ERROR msg="tool call failed" tool=lookup_order code=INTERNAL_ERROR ref=5f0c2a9e81d34b67 request_id=UUID-v7 error="dial 10.0.0.5: password=hunter2 refused"
	// client: Internal error in tool "lookup_order" (ref: 5f0c2a9e81d34b67).
	// client: Code: INTERNAL_ERROR
	// Retry: no.
	// client: envelope {"category":"server","code":"INTERNAL_ERROR","error":true,"message":"Internal error in tool \"lookup_order\" (ref: 5f0c2a9e81d34b67).","ref":"5f0c2a9e81d34b67","requestId":"UUID-v7","retryable":false,"timestamp":"RFC3339-UTC","version":1}
}

// Error results a handler builds itself pass untouched by default. A tool
// whose hand-built results carry error texts the model must not read can
// mask them.
func ExampleWithHandBuilt() {
	s := mcp.NewServer(&mcp.Implementation{Name: "issues", Version: "1.0.0"}, nil)
	if err := gosdk.Install(s, examplePipeline()); err != nil {
		panic(err)
	}
	getIssue := func(context.Context, *mcp.CallToolRequest, lookupArgs) (*mcp.CallToolResult, any, error) {
		err := errors.New("GET https://api.example.com/issues/7?token=hunter2: 502 Bad Gateway")
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "failed to get issue: " + err.Error()}}}, nil, nil
	}
	if err := gosdk.AddTool(s, &mcp.Tool{Name: "get_issue"}, getIssue, filter.WithHandBuilt(filter.MaskHandBuilt)); err != nil {
		panic(err)
	}

	callAndPrint(exampleClient(s), "get_issue", map[string]any{"id": "7"})
	// Output:
	// level=ERROR msg="tool call failed" tool=get_issue code=INTERNAL_ERROR ref=5f0c2a9e81d34b67 request_id=UUID-v7 hand_built=true error="failed to get issue: GET https://api.example.com/issues/7?token=hunter2: 502 Bad Gateway"
	// client: Internal error in tool "get_issue" (ref: 5f0c2a9e81d34b67).
	// client: Code: INTERNAL_ERROR
	// Retry: no.
	// client: envelope {"category":"server","code":"INTERNAL_ERROR","error":true,"message":"Internal error in tool \"get_issue\" (ref: 5f0c2a9e81d34b67).","ref":"5f0c2a9e81d34b67","requestId":"UUID-v7","retryable":false,"timestamp":"RFC3339-UTC","version":1}
}

// The first step on a server that runs already: install mcperr in
// report-only mode. Clients receive exactly what they received before; the
// log says, for each failure, what mcperr would have sent. Here a message
// meant for the model, returned as a plain error, would be masked: the
// record says so, and the fix is toolerr.New.
func ExampleInstall_reportOnly() {
	s := mcp.NewServer(&mcp.Implementation{Name: "traces", Version: "1.0.0"}, nil)
	logger := exampleLogger(true)
	p, err := filter.New(
		filter.WithLogger(logger),
		filter.WithReportOnly(true),                  // change nothing clients receive yet
		filter.WithHandBuilt(filter.ReportHandBuilt), // and log the error results handlers build
	)
	if err != nil {
		log.Fatal(err)
	}
	if err := gosdk.Install(s, p); err != nil {
		log.Fatal(err)
	}
	type searchArgs struct {
		TraceID     string `json:"trace_id,omitempty"`
		ServiceName string `json:"service_name,omitempty"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "search_traces"}, func(_ context.Context, _ *mcp.CallToolRequest, args searchArgs) (*mcp.CallToolResult, any, error) {
		if args.TraceID == "" && args.ServiceName == "" {
			return nil, nil, errors.New("either trace_id or service_name must be provided")
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "no traces"}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "get_trace"}, func(context.Context, *mcp.CallToolRequest, searchArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "trace store: dial 10.0.0.7:9200: connection refused"}}}, nil, nil
	})

	cs := exampleClient(s)
	callAndPrint(cs, "search_traces", nil)
	callAndPrint(cs, "get_trace", map[string]any{"trace_id": "4bf92f35"})
	// Output:
	// level=ERROR msg="tool call failed" tool=search_traces code=INTERNAL_ERROR ref=R request_id=UUID-v7 report_only=true masked=true would_send="Internal error in tool \"search_traces\" (ref: R)." error="either trace_id or service_name must be provided"
	// client: either trace_id or service_name must be provided
	// level=WARN msg="tool call failed" tool=get_trace code=TOOL_ERROR ref=R request_id=UUID-v7 hand_built=true report_only=true masked=false would_send="trace store: dial 10.0.0.7:9200: connection refused" error="trace store: dial 10.0.0.7:9200: connection refused"
	// client: trace store: dial 10.0.0.7:9200: connection refused
}

// With the argument check on, a call whose arguments do not fit the input
// schema is refused before the handler runs: a raw handler, which the SDK
// hands its arguments unchecked, never sees a missing b, and the model
// reads which field to fix, never a value.
func ExampleWithArgumentCheck() {
	s := mcp.NewServer(&mcp.Implementation{Name: "calculator", Version: "1.0.0"}, nil)
	if err := gosdk.Install(s, examplePipeline()); err != nil {
		panic(err)
	}
	divideTool := &mcp.Tool{Name: "divide", InputSchema: json.RawMessage(
		`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`)}
	divide := func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct{ A, B float64 }
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return nil, err
		}
		if in.B == 0 {
			return nil, toolerr.New("b must not be zero.")
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(in.A / in.B)}}}, nil
	}
	if err := gosdk.AddRawTool(s, divideTool, divide, filter.WithArgumentCheck(true)); err != nil {
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
