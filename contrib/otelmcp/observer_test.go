package otelmcp_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/adapters/gosdk/gosdktest"
	"github.com/mcperr/mcperr/contrib/otelmcp"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/toolerr"
)

// TestObserverAlone checks the Observer on a span of the application's own,
// where no otelmcp middleware runs: it sets error.type itself.
func TestObserverAlone(t *testing.T) {
	tm := newTelemetry(t)
	p, err := filter.New(filter.WithLogger(slog.New(slog.DiscardHandler)), filter.WithObserver(otelmcp.Observer()))
	if err != nil {
		t.Fatal(err)
	}
	tracer := tm.tp.Tracer("app")

	ctx, span := tracer.Start(context.Background(), "app tool")
	f := p.Handle(ctx, filter.Call{Tool: "lookup", RequestID: "7"}, errors.New("password="+secret))
	span.End()
	s := tm.span(t, "app tool")
	assertAttrs(t, s, map[string]string{
		"error.type":        "tool_error",
		"mcperr.code":       "INTERNAL_ERROR",
		"mcperr.category":   "server",
		"mcperr.ref":        f.Envelope.Ref,
		"mcperr.request_id": "7",
	})
	// Without redaction the log, and so the event, hold the error's text:
	// filter.WithRedaction(true) keeps it out of both.
	assertFailed(t, s, f.Envelope.Message, "*errors.errorString", "password="+secret)

	// The tool's words over a cause nothing classifies: a server failure.
	ctx, span = tracer.Start(context.Background(), "app lookup")
	f = p.Handle(ctx, filter.Call{Tool: "lookup", RequestID: "10"}, toolerr.New("Failed to get user.").WithCause(errors.New("password="+secret)))
	span.End()
	assertAttrs(t, tm.span(t, "app lookup"), map[string]string{
		"error.type":        "tool_error",
		"mcperr.code":       "TOOL_ERROR",
		"mcperr.category":   "server",
		"mcperr.ref":        f.Envelope.Ref,
		"mcperr.request_id": "10",
	})

	ctx, span = tracer.Start(context.Background(), "app resource")
	f = p.Handle(ctx, filter.Call{Method: "resources/read", Resource: "file:///x", RequestID: "8"}, errors.New("boom"))
	span.End()
	s = tm.span(t, "app resource")
	assertAttrs(t, s, map[string]string{
		"error.type":               "-32603",
		"rpc.response.status_code": "-32603",
		"mcperr.code":              "INTERNAL_ERROR",
		"mcperr.category":          "server",
		"mcperr.ref":               f.Envelope.Ref,
		"mcperr.request_id":        "8",
	})
	assertFailed(t, s, f.Envelope.Message, "*errors.errorString", "boom")

	// A prompt's client error: its JSON-RPC code, no ref.
	ctx, span = tracer.Start(context.Background(), "app prompt")
	f = p.Handle(ctx, filter.Call{Method: "prompts/get", Prompt: "greet", RequestID: "9"}, toolerr.New("Say whom to greet."))
	span.End()
	s = tm.span(t, "app prompt")
	assertAttrs(t, s, map[string]string{
		"error.type":               "-32602",
		"rpc.response.status_code": "-32602",
		"mcperr.code":              "TOOL_ERROR",
		"mcperr.category":          "client",
		"mcperr.request_id":        "9",
	})
	assertFailed(t, s, f.Envelope.Message, "*toolerr.ToolError", "Say whom to greet.")

	// In report-only mode: what mcperr would have sent, marked as such.
	ro, err := filter.New(filter.WithLogger(slog.New(slog.DiscardHandler)), filter.WithObserver(otelmcp.Observer()), filter.WithReportOnly(true))
	if err != nil {
		t.Fatal(err)
	}
	ctx, span = tracer.Start(context.Background(), "app report-only")
	f = ro.Handle(ctx, filter.Call{Tool: "lookup", RequestID: "10"}, errors.New("boom"))
	span.End()
	s = tm.span(t, "app report-only")
	assertAttrs(t, s, map[string]string{
		"error.type":         "tool_error",
		"mcperr.code":        "INTERNAL_ERROR",
		"mcperr.category":    "server",
		"mcperr.ref":         f.Envelope.Ref,
		"mcperr.request_id":  "10",
		"mcperr.report_only": "true",
	})

	// No recording span: nothing to do, and nothing breaks.
	if f := p.Handle(context.Background(), filter.Call{Tool: "x"}, errors.New("y")); f == nil {
		t.Fatal("no failure")
	}
}

// TestMisordered checks that a span middleware installed inside mcperr's
// says so, once, through otel.Handle.
func TestMisordered(t *testing.T) {
	var reported []error
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { reported = append(reported, err) }))
	t.Cleanup(func() { otel.SetErrorHandler(otel.ErrorHandlerFunc(func(error) {})) })

	tm := newTelemetry(t)
	s := mcp.NewServer(&mcp.Implementation{Name: "misordered", Version: "0.1.0"}, nil)
	s.AddReceivingMiddleware(otelmcp.GoSDKMiddleware(tm.options()...)) // before Install: inside mcperr's
	p, err := filter.New()
	if err != nil {
		t.Fatal(err)
	}
	if err := gosdk.Install(s, p); err != nil {
		t.Fatal(err)
	}
	must(t, gosdk.AddTool(s, &mcp.Tool{Name: "ping"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "pong"}}}, nil, nil
	}))
	c := gosdktest.Connect(t, s)
	c.Call("ping", nil)
	c.Call("ping", nil)
	if len(reported) != 1 {
		t.Fatalf("reported %d times: %v", len(reported), reported)
	}
}
