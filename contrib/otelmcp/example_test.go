package otelmcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	mcpgomcp "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/contrib/otelmcp"
	"github.com/mcperr/mcperr/filter"
)

// printSpan prints a span's name, status and attributes, sorted, with the
// values that change from run to run (refs, ids) left out.
func printSpan(s sdktrace.ReadOnlySpan) {
	fmt.Printf("%s (%s) status=%s\n", s.Name(), s.SpanKind(), s.Status().Code)
	var lines []string
	for _, kv := range s.Attributes() {
		v := kv.Value.String()
		switch kv.Key {
		case otelmcp.RefKey, otelmcp.RequestIDKey, "mcp.session.id":
			v = "…"
		}
		lines = append(lines, fmt.Sprintf("  %s=%s", kv.Key, v))
	}
	slices.Sort(lines)
	fmt.Println(strings.Join(lines, "\n"))
	for _, e := range s.Events() {
		set := attribute.NewSet(e.Attributes...)
		fmt.Printf("  event %s %s\n", e.Name, set.Encoded(attribute.DefaultEncoder()))
	}
}

// The Observer marks the span active around a failed call, here one of the
// application's own.
func ExampleObserver() {
	spans := tracetest.NewSpanRecorder()
	tracer := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans)).Tracer("app")

	p, err := filter.New(filter.WithObserver(otelmcp.Observer()), filter.WithRedaction(true),
		filter.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		panic(err)
	}
	ctx, span := tracer.Start(context.Background(), "handle lookup")
	p.Handle(ctx, filter.Call{Tool: "lookup"}, errors.New("dial db: password=hunter2"))
	span.End()
	printSpan(spans.Ended()[0])
	// Output:
	// handle lookup (internal) status=Error
	//   error.type=tool_error
	//   mcperr.category=server
	//   mcperr.code=INTERNAL_ERROR
	//   mcperr.ref=…
	//   mcperr.request_id=…
	//   event exception exception.message=‹×›,exception.type=*errors.errorString
}

// GoSDKMiddleware gives a go-sdk server the MCP server spans; added after
// gosdk.Install, its span is the one the Observer marks.
func ExampleGoSDKMiddleware() {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))

	p, err := filter.New(filter.WithObserver(otelmcp.Observer()), filter.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		panic(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "example", Version: "0.1.0"}, nil)
	if err := gosdk.Install(s, p); err != nil {
		panic(err)
	}
	s.AddReceivingMiddleware(otelmcp.GoSDKMiddleware(otelmcp.WithTracerProvider(tp)))
	if err := gosdk.AddTool(s, &mcp.Tool{Name: "lookup"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return nil, nil, errors.New("connection refused")
	}); err != nil {
		panic(err)
	}

	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		panic(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "0.1.0"}, nil).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "lookup"}); err != nil {
		panic(err)
	}
	printSpan(spans.Ended()[0])
	// Output:
	// tools/call lookup (server) status=Error
	//   error.type=tool_error
	//   gen_ai.operation.name=execute_tool
	//   gen_ai.tool.name=lookup
	//   mcp.method.name=tools/call
	//   mcp.protocol.version=2025-11-25
	//   mcperr.category=server
	//   mcperr.code=INTERNAL_ERROR
	//   mcperr.ref=…
	//   mcperr.request_id=…
	//   event exception exception.message=connection refused,exception.type=*errors.errorString
}

// InstrumentMCPGo gives an mcp-go server the MCP server spans; called
// before mcpgo.Install, its span is the one the Observer marks. mcp-go
// gives no middleware the JSON-RPC id: the span has no jsonrpc.request.id,
// and mcperr.request_id is mcperr's own.
func ExampleInstrumentMCPGo() {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))

	p, err := filter.New(filter.WithObserver(otelmcp.Observer()), filter.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		panic(err)
	}
	s := server.NewMCPServer("example", "0.1.0")
	otelmcp.InstrumentMCPGo(s, otelmcp.WithTracerProvider(tp), otelmcp.WithNetworkTransport("pipe"))
	if err := mcpgo.Install(s, p); err != nil {
		panic(err)
	}
	if err := mcpgo.AddTool(s, mcpgomcp.NewTool("lookup"), func(context.Context, mcpgomcp.CallToolRequest) (*mcpgomcp.CallToolResult, error) {
		return nil, errors.New("connection refused")
	}); err != nil {
		panic(err)
	}

	ctx := context.Background()
	req := mcpgomcp.JSONRPCRequest{JSONRPC: mcpgomcp.JSONRPC_VERSION, ID: mcpgomcp.NewRequestId(int64(1)),
		Request: mcpgomcp.Request{Method: "tools/call"}, Params: map[string]any{"name": "lookup"}}
	msg, err := json.Marshal(req)
	if err != nil {
		panic(err)
	}
	s.HandleMessage(ctx, msg)
	printSpan(spans.Ended()[0])
	// Output:
	// tools/call lookup (server) status=Error
	//   error.type=tool_error
	//   gen_ai.operation.name=execute_tool
	//   gen_ai.tool.name=lookup
	//   mcp.method.name=tools/call
	//   mcperr.category=server
	//   mcperr.code=INTERNAL_ERROR
	//   mcperr.ref=…
	//   mcperr.request_id=…
	//   network.transport=pipe
	//   event exception exception.message=connection refused,exception.type=*errors.errorString
}
