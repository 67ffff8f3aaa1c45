package otelmcp_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/adapters/mcpgo/mcpgotest"
	"github.com/mcperr/mcperr/contrib/otelmcp"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/mcperrtest"
	"github.com/mcperr/mcperr/toolerr"
)

// newMCPGoServer is newGoSDKServer on mcp-go.
func newMCPGoServer(t *testing.T, tm *telemetry, log *mcperrtest.Log) *server.MCPServer {
	t.Helper()
	p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithRedaction(true), filter.WithObserver(otelmcp.Observer()))
	if err != nil {
		t.Fatal(err)
	}
	s := server.NewMCPServer("otel", "0.1.0", server.WithResourceCapabilities(false, false), server.WithPromptCapabilities(false))
	otelmcp.InstrumentMCPGo(s, tm.options()...)
	if err := mcpgo.Install(s, p); err != nil {
		t.Fatal(err)
	}
	must(t, mcpgo.AddTool(s, mcp.NewTool("lookup"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("dial 10.0.0.5: password=%s refused", secret)
	}))
	must(t, mcpgo.AddTool(s, mcp.NewTool("ping"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("pong"), nil
	}))
	// Resources and prompts are added with the SDK's own methods: the
	// middleware of Install serves them.
	s.AddResource(mcp.NewResource("file:///vault.txt", "vault"), func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return nil, errors.New("open vault: key=" + secret)
	})
	s.AddPrompt(mcp.NewPrompt("greet"), func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return nil, toolerr.New("Say whom to greet.")
	})
	return s
}

var (
	refInText = regexp.MustCompile(`\(ref: ([0-9a-f]+)\)`)
	uuidV7    = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
)

// TestMCPGo checks the spans and metric points of mcp-go's own client
// talking to an mcp-go server in process, attribute by attribute, against
// the MCP semantic conventions.
func TestMCPGo(t *testing.T) {
	for _, version := range mcpgotest.ProtocolVersions() {
		t.Run(version, func(t *testing.T) {
			tm := newTelemetry(t)
			log := mcperrtest.NewLog(t)
			c := mcpgotest.Connect(t, newMCPGoServer(t, tm, log), mcpgotest.WithProtocolVersion(version))
			ctx := context.Background()
			mc := c.SDKClient()
			meta := &mcp.Meta{AdditionalFields: map[string]any{"traceparent": traceparent, "tracestate": tracestate}}

			// A masked error: tool_error, with mcperr's code, ref and request
			// id. mcp-go hands the JSON-RPC id to no middleware, so the span
			// has no jsonrpc.request.id (see InstrumentMCPGo): assertAttrs
			// checks the attributes exactly, so one would fail it.
			req := mcp.CallToolRequest{}
			req.Params.Name, req.Params.Meta = "lookup", meta
			res, err := mc.CallTool(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			env, ok := mcpgo.EnvelopeOf(res)
			if !ok || env.Ref == "" || !uuidV7.MatchString(env.RequestID) {
				t.Fatalf("no envelope with a ref and a UUID v7 request id: %+v", res)
			}
			span := tm.span(t, "tools/call lookup")
			assertParent(t, span)
			got := attrMap(span.Attributes())
			session := got["mcp.session.id"]
			if session == "" {
				t.Errorf("no mcp.session.id: %v", got)
			}
			assertAttrs(t, span, map[string]string{
				"mcp.method.name":       "tools/call",
				"gen_ai.tool.name":      "lookup",
				"gen_ai.operation.name": "execute_tool",
				"mcp.session.id":        session,
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
			assertFailed(t, span, res.Content[0].(mcp.TextContent).Text, "*errors.errorString", fmt.Sprint(rec[0].Attrs["error"]))
			assertNoSecret(t, span)

			// Success.
			mcperrtest.AssertSuccess(t, c.Call("ping", nil))
			span = tm.span(t, "tools/call ping")
			assertAttrs(t, span, map[string]string{
				"mcp.method.name":       "tools/call",
				"gen_ai.tool.name":      "ping",
				"gen_ai.operation.name": "execute_tool",
				"mcp.session.id":        session,
				"mcp.protocol.version":  version,
			})
			if span.Status().Code != 0 || len(span.Events()) != 0 {
				t.Errorf("ping: status %v, events %v", span.Status(), span.Events())
			}

			// A resource: mcp-go sends -32603 whatever mcperr's code, and the
			// span says what the client received.
			rreq := mcp.ReadResourceRequest{}
			rreq.Params.URI, rreq.Params.Meta = "file:///vault.txt", meta
			_, err = mc.ReadResource(ctx, rreq)
			if err == nil {
				t.Fatal("the resource read did not fail")
			}
			m := refInText.FindStringSubmatch(err.Error())
			if m == nil {
				t.Fatalf("no ref in %q", err)
			}
			span = tm.span(t, "resources/read")
			assertParent(t, span)
			got = attrMap(span.Attributes())
			assertAttrs(t, span, map[string]string{
				"mcp.method.name":          "resources/read",
				"mcp.resource.uri":         "file:///vault.txt",
				"mcp.session.id":           session,
				"mcp.protocol.version":     version,
				"error.type":               "-32603",
				"rpc.response.status_code": "-32603",
				"mcperr.code":              "INTERNAL_ERROR",
				"mcperr.category":          "server",
				"mcperr.ref":               m[1],
				"mcperr.request_id":        got["mcperr.request_id"],
			})
			if id := got["mcperr.request_id"]; !uuidV7.MatchString(id) || id == env.RequestID {
				t.Errorf("mcperr.request_id %q: want a UUID v7 of its own", id)
			}
			assertNoSecret(t, span)

			// A prompt whose ToolError is -32602 in mcperr's eyes is -32603 on
			// mcp-go's wire: the span follows the wire.
			preq := mcp.GetPromptRequest{}
			preq.Params.Name = "greet"
			if _, err = mc.GetPrompt(ctx, preq); err == nil || !strings.HasSuffix(err.Error(), "Say whom to greet.") {
				t.Fatalf("prompt: %v", err)
			}
			span = tm.span(t, "prompts/get greet")
			got = attrMap(span.Attributes())
			if got["error.type"] != "-32603" || got["rpc.response.status_code"] != "-32603" || got["gen_ai.prompt.name"] != "greet" || got["mcperr.code"] != "TOOL_ERROR" {
				t.Errorf("prompt: %v", got)
			}
			assertFailed(t, span, "Say whom to greet.", "*toolerr.ToolError", "‹×›")

			points := tm.histogram(t)
			base := map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "lookup", "gen_ai.operation.name": "execute_tool",
				"mcp.protocol.version": version, "error.type": "tool_error"}
			point(t, points, base)
			delete(base, "error.type")
			base["gen_ai.tool.name"] = "ping"
			point(t, points, base)
			point(t, points, map[string]string{"mcp.method.name": "resources/read", "mcp.protocol.version": version, "error.type": "-32603", "rpc.response.status_code": "-32603"})
			point(t, points, map[string]string{"mcp.method.name": "prompts/get", "gen_ai.prompt.name": "greet", "mcp.protocol.version": version, "error.type": "-32603", "rpc.response.status_code": "-32603"})
			if len(points) != 4 {
				t.Errorf("%d points, want 4", len(points))
			}
		})
	}
}

// TestMCPGoNoHooks checks that InstrumentMCPGo adds middleware only: no
// hooks, and so nothing written into a request on the way.
func TestMCPGoNoHooks(t *testing.T) {
	s := server.NewMCPServer("otel", "0.1.0")
	otelmcp.InstrumentMCPGo(s)
	if h := s.GetHooks(); h != nil {
		t.Errorf("InstrumentMCPGo added hooks: %+v", h)
	}
}
