package otelmcp_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/mcperr/mcperr/adapters/gosdk/gosdktest"
	"github.com/mcperr/mcperr/contrib/otelmcp"
	"github.com/mcperr/mcperr/mcperrtest"
)

// TestMadeUpNamesStayOutOfMetrics checks that the name of a tool the server
// does not have, which any client can send, becomes _OTHER in the metric
// point, while the names of the tools it runs are kept.
func TestMadeUpNamesStayOutOfMetrics(t *testing.T) {
	tm := newTelemetry(t)
	log := mcperrtest.NewLog(t)
	c := gosdktest.Connect(t, newGoSDKServer(t, tm, log))
	made := "no_such_tool_" + strings.Repeat("x", 40)
	if res := c.Call(made, nil); res.ProtocolError == nil {
		t.Fatalf("an unknown tool answered %s", res)
	}
	c.Call("ping", nil)
	for _, p := range tm.histogram(t) {
		for _, a := range p.Attributes.ToSlice() {
			if a.Value.AsString() == made {
				t.Errorf("a made-up tool name is a metric value: %v", p.Attributes.ToSlice())
			}
		}
	}
	names := map[string]bool{}
	for _, p := range tm.histogram(t) {
		if v, ok := p.Attributes.Value("gen_ai.tool.name"); ok {
			names[v.AsString()] = true
		}
	}
	if !names["_OTHER"] || !names["ping"] {
		t.Errorf("tool names in the metric points: %v, want _OTHER and ping", names)
	}
}

// panickingProcessor is a span processor whose exporter fails by
// panicking, on the goroutine that ends the span.
type panickingProcessor struct{}

func (panickingProcessor) OnStart(context.Context, sdktrace.ReadWriteSpan) { panic("exporter down") }
func (panickingProcessor) OnEnd(sdktrace.ReadOnlySpan)                     { panic("exporter down") }
func (panickingProcessor) Shutdown(context.Context) error                  { return nil }
func (panickingProcessor) ForceFlush(context.Context) error                { return nil }

// TestExporterPanicIsContained checks that a span processor that panics
// takes no request down.
func TestExporterPanicIsContained(t *testing.T) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(panickingProcessor{}))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	s := mcp.NewServer(&mcp.Implementation{Name: "otel", Version: "0.1.0"}, nil)
	s.AddReceivingMiddleware(otelmcp.GoSDKMiddleware(otelmcp.WithTracerProvider(tp)))
	mcp.AddTool(s, &mcp.Tool{Name: "ping"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "pong"}}}, nil, nil
	})
	c := gosdktest.Connect(t, s)
	mcperrtest.AssertSuccess(t, c.Call("ping", nil))
}

// TestResourceURIWithoutCredentials checks that a resource URI's password
// and query stay out of its span.
func TestResourceURIWithoutCredentials(t *testing.T) {
	tm := newTelemetry(t)
	s := mcp.NewServer(&mcp.Implementation{Name: "otel", Version: "0.1.0"}, nil)
	s.AddReceivingMiddleware(otelmcp.GoSDKMiddleware(tm.options()...))
	uri := "db://app:" + secret + "@db.internal/orders?token=" + secret
	s.AddResource(&mcp.Resource{URI: uri, Name: "orders"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, Text: "[]"}}}, nil
	})
	c := gosdktest.Connect(t, s)
	c.ReadResource(uri)
	span := tm.span(t, "resources/read")
	got := attrMap(span.Attributes())["mcp.resource.uri"]
	if got != "db://app:‹×›@db.internal/orders?‹×›" {
		t.Errorf("mcp.resource.uri = %q, want the URI without its password and query", got)
	}
}
