package otelmcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/adapters/gosdk/gosdktest"
	"github.com/mcperr/mcperr/contrib/otelmcp"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/mcperrtest"
	"github.com/mcperr/mcperr/toolerr"
)

// newGoSDKServer returns a go-sdk server with mcperr (redacting, observed
// by otelmcp.Observer) and otelmcp's middleware sending to tm, with a tool,
// a resource and a prompt for each kind of failure.
func newGoSDKServer(t *testing.T, tm *telemetry, log *mcperrtest.Log) *mcp.Server {
	t.Helper()
	p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithRedaction(true), filter.WithObserver(otelmcp.Observer()))
	if err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "otel", Version: "0.1.0"}, nil)
	if err := gosdk.Install(s, p); err != nil {
		t.Fatal(err)
	}
	s.AddReceivingMiddleware(otelmcp.GoSDKMiddleware(tm.options()...))

	must(t, gosdk.AddTool(s, &mcp.Tool{Name: "lookup"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return nil, nil, fmt.Errorf("dial 10.0.0.5: password=%s refused", secret)
	}))
	must(t, gosdk.AddTool(s, &mcp.Tool{Name: "divide"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return nil, nil, toolerr.New("b must not be zero.")
	}))
	must(t, gosdk.AddTool(s, &mcp.Tool{Name: "ping"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "pong"}}}, nil, nil
	}))
	// Resources and prompts are added with the SDK's own methods: the
	// middleware of Install serves them.
	s.AddResource(&mcp.Resource{URI: "file:///vault.txt", Name: "vault"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return nil, errors.New("open vault: key=" + secret)
	})
	s.AddResource(&mcp.Resource{URI: "file:///missing.txt", Name: "missing"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return nil, domain.NewNotFound("File", "missing.txt")
	})
	s.AddPrompt(&mcp.Prompt{Name: "greet"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return nil, toolerr.New("Say whom to greet.")
	})
	return s
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestGoSDK checks the spans and metric points of go-sdk's own client
// talking to a go-sdk server in memory, attribute by attribute, against the
// MCP semantic conventions.
func TestGoSDK(t *testing.T) {
	for _, version := range gosdktest.ProtocolVersions() {
		t.Run(version, func(t *testing.T) {
			tm := newTelemetry(t)
			log := mcperrtest.NewLog(t)
			c := gosdktest.Connect(t, newGoSDKServer(t, tm, log), gosdktest.WithProtocolVersion(version))
			ctx := context.Background()
			cs := c.SDKClient()
			meta := mcp.Meta{"traceparent": traceparent, "tracestate": tracestate}

			// A masked error: tool_error, with mcperr's code, ref and request id.
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "lookup", Meta: meta})
			if err != nil {
				t.Fatal(err)
			}
			env, ok := gosdk.EnvelopeOf(res)
			if !ok || env.Ref == "" {
				t.Fatalf("no envelope with a ref: %+v", res)
			}
			text := res.Content[0].(*mcp.TextContent).Text
			span := tm.span(t, "tools/call lookup")
			assertParent(t, span)
			assertAttrs(t, span, map[string]string{
				"mcp.method.name":       "tools/call",
				"gen_ai.tool.name":      "lookup",
				"gen_ai.operation.name": "execute_tool",
				"mcp.protocol.version":  version,
				"error.type":            "tool_error",
				"mcperr.code":           "INTERNAL_ERROR",
				"mcperr.category":       "server",
				"mcperr.ref":            env.Ref,
				"mcperr.request_id":     env.RequestID,
			})
			rec := log.WithRef(env.Ref)
			if len(rec) != 1 {
				t.Fatalf("%d records with ref %s", len(rec), env.Ref)
			}
			assertFailed(t, span, text, "*errors.errorString", fmt.Sprint(rec[0].Attrs["error"]))
			assertNoSecret(t, span)

			// A ToolError: a client error, no ref.
			mcperrtest.AssertToolError(t, c.Call("divide", nil), "TOOL_ERROR", "b must not be zero.")
			span = tm.span(t, "tools/call divide")
			if got := attrMap(span.Attributes()); got["error.type"] != "tool_error" || got["mcperr.code"] != "TOOL_ERROR" ||
				got["mcperr.category"] != "client" || got["mcperr.ref"] != "" || got["mcperr.request_id"] == "" {
				t.Errorf("divide: %v", got)
			}
			// Under filter.WithRedaction, the log and so the event hold the
			// error's text redacted, even a ToolError's.
			assertFailed(t, span, "b must not be zero.", "*toolerr.ToolError", "‹×›")
			if span.Parent().IsValid() {
				t.Errorf("divide: a parent from nowhere: %v", span.Parent())
			}

			// Success: no error.type, status unset, no event.
			mcperrtest.AssertSuccess(t, c.Call("ping", nil))
			span = tm.span(t, "tools/call ping")
			assertAttrs(t, span, map[string]string{
				"mcp.method.name":       "tools/call",
				"gen_ai.tool.name":      "ping",
				"gen_ai.operation.name": "execute_tool",
				"mcp.protocol.version":  version,
			})
			if span.Status().Code != 0 || len(span.Events()) != 0 {
				t.Errorf("ping: status %v, events %v", span.Status(), span.Events())
			}

			// A resource whose handler fails: the JSON-RPC code -32603.
			_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///vault.txt", Meta: meta})
			je := rpcErr(t, err)
			span = tm.span(t, "resources/read")
			assertParent(t, span)
			assertAttrs(t, span, map[string]string{
				"mcp.method.name":          "resources/read",
				"mcp.resource.uri":         "file:///vault.txt",
				"mcp.protocol.version":     version,
				"error.type":               "-32603",
				"rpc.response.status_code": "-32603",
				"mcperr.code":              "INTERNAL_ERROR",
				"mcperr.category":          "server",
				"mcperr.ref":               je.env.Ref,
				"mcperr.request_id":        je.env.RequestID,
			})
			rec = log.WithRef(je.env.Ref)
			if len(rec) != 1 {
				t.Fatalf("%d records with ref %s", len(rec), je.env.Ref)
			}
			assertFailed(t, span, je.Message, "*errors.errorString", fmt.Sprint(rec[0].Attrs["error"]))
			assertNoSecret(t, span)

			// A resource not found: -32002 up to 2025-11-25, -32602 after.
			tm.reset()
			_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///missing.txt"})
			je = rpcErr(t, err)
			code := "-32602"
			if version <= "2025-11-25" {
				code = "-32002"
			}
			span = tm.span(t, "resources/read")
			if got := attrMap(span.Attributes()); got["error.type"] != code || got["rpc.response.status_code"] != code || got["mcperr.code"] != "NOT_FOUND" {
				t.Errorf("missing resource: %v, want error.type %s", got, code)
			}
			if je.Code != mustInt(t, code) {
				t.Errorf("the client received %d, the span says %s", je.Code, code)
			}

			// A prompt: -32602, named after the prompt.
			_, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet"})
			je = rpcErr(t, err)
			span = tm.span(t, "prompts/get greet")
			assertAttrs(t, span, map[string]string{
				"mcp.method.name":          "prompts/get",
				"gen_ai.prompt.name":       "greet",
				"mcp.protocol.version":     version,
				"error.type":               "-32602",
				"rpc.response.status_code": "-32602",
				"mcperr.code":              "TOOL_ERROR",
				"mcperr.category":          "client",
				"mcperr.request_id":        je.env.RequestID,
			})
			assertFailed(t, span, "Say whom to greet.", "*toolerr.ToolError", "‹×›")

			// The histogram: one point per outcome, with the conventions'
			// attributes only.
			points := tm.histogram(t)
			tool := func(name, errorType string) map[string]string {
				m := map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": name,
					"gen_ai.operation.name": "execute_tool", "mcp.protocol.version": version}
				if errorType != "" {
					m["error.type"] = errorType
				}
				return m
			}
			for _, want := range []map[string]string{
				tool("lookup", "tool_error"), tool("divide", "tool_error"), tool("ping", ""),
				{"mcp.method.name": "resources/read", "mcp.protocol.version": version, "error.type": "-32603", "rpc.response.status_code": "-32603"},
				{"mcp.method.name": "resources/read", "mcp.protocol.version": version, "error.type": code, "rpc.response.status_code": code},
				{"mcp.method.name": "prompts/get", "gen_ai.prompt.name": "greet", "mcp.protocol.version": version, "error.type": "-32602", "rpc.response.status_code": "-32602"},
			} {
				if p := point(t, points, want); p.Count != 1 || p.Sum <= 0 {
					t.Errorf("point %v: count %d, sum %g", want, p.Count, p.Sum)
				}
			}
			if len(points) != 6 {
				t.Errorf("%d points, want 6", len(points))
			}
		})
	}
}

// wireError is a JSON-RPC error as the client received it, with its
// envelope.
type wireError struct {
	*jsonrpc.Error
	env filter.Envelope
}

func rpcErr(t *testing.T, err error) wireError {
	t.Helper()
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		t.Fatalf("not a JSON-RPC error: %v", err)
	}
	w := wireError{Error: je}
	if len(je.Data) > 0 {
		if err := json.Unmarshal(je.Data, &w.env); err != nil {
			t.Fatalf("data %s: %v", je.Data, err)
		}
	}
	return w
}

func mustInt(t *testing.T, s string) int64 {
	t.Helper()
	var n int64
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatal(err)
	}
	return n
}
