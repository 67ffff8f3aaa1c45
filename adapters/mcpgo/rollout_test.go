package mcpgo_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
	"github.com/mcperr/mcperr/toolerr"
)

// rolloutSecret is planted in every failure of the rollout tools.
const rolloutSecret = "pw-3c0ffee-SECRET"

// The ways a tool is added to a server where mcperr is installed.
const (
	rollAddTool    = "AddTool"        // mcpgo.AddTool
	rollWrap       = "Wrap"           // s.AddTool with mcpgo.Wrap
	rollMiddleware = "middleware"     // s.AddTool, unwrapped
	rollNothing    = "without mcperr" // a bare server
)

// rolloutServer returns a server with one tool for each way a call fails,
// with server.WithRecovery as servers have it, added the way way says: with
// the SDK alone when p is nil, and otherwise through mcperr installed with
// p, each tool with the options opts gives it.
func rolloutServer(t *testing.T, way string, p *filter.Pipeline, opts map[string][]filter.ToolOption) *server.MCPServer {
	t.Helper()
	if p == nil {
		way = rollNothing
	}
	s := server.NewMCPServer("rollout", "1.0.0", server.WithToolCapabilities(false), server.WithRecovery())
	if p != nil {
		if err := mcpgo.Install(s, p); err != nil {
			t.Fatal(err)
		}
	}
	add := func(tool mcp.Tool, h server.ToolHandlerFunc) {
		switch way {
		case rollNothing, rollMiddleware:
			s.AddTool(tool, h)
		case rollWrap:
			if len(opts[tool.Name]) > 0 {
				t.Fatalf("%s: Wrap takes no options; declare them in the pipeline with filter.ForTool", tool.Name)
			}
			s.AddTool(tool, mcpgo.Wrap(h))
		default:
			if err := mcpgo.AddTool(s, tool, h, opts[tool.Name]...); err != nil {
				t.Fatal(err)
			}
		}
	}
	counted := mcp.NewTool("ok", mcp.WithNumber("count", mcp.Required()), mcp.WithBoolean("follow_symlinks"))
	add(counted, func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		n, err := req.RequireInt("count")
		if err != nil {
			return nil, err
		}
		return mcp.NewToolResultText(fmt.Sprintf("count=%d follow=%v", n, req.GetBool("follow_symlinks", false))), nil
	})
	add(mcp.NewTool("plain"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("dial db: password=%s refused", rolloutSecret)
	})
	add(mcp.NewTool("deliberate"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("service_name is required")
	})
	add(mcp.NewTool("public"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, toolerr.New("Order 7 is not open; list open orders with list_orders.")
	})
	add(mcp.NewTool("hand_built"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultErrorFromErr("failed to get issue",
			fmt.Errorf("GET https://api.example.com/issues/7?token=%s: 404 Not Found", rolloutSecret)), nil
	})
	type noArgs struct{}
	add(mcp.NewTool("helper"), mcp.NewStructuredToolHandler(func(context.Context, mcp.CallToolRequest, noArgs) (noArgs, error) {
		return noArgs{}, fmt.Errorf("dial db: password=%s refused", rolloutSecret)
	}))
	add(mcp.NewTool("boom"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ids := strings.Fields("") // none: the panic of a real bug
		_ = ids[0] + rolloutSecret
		return nil, nil
	})
	return s
}

// rolloutCall is one call of the rollout tools.
type rolloutCall struct {
	tool string
	args map[string]any
	// failed: the call fails (one record in report-only mode).
	failed bool
	// enforced is the code mcperr sends when it enforces, "" if it sends
	// what the bare server sends.
	enforced codes.Code
	// answered: an error written for mcperr, which report-only mode answers
	// as enforcing does, since the bare SDK would send its text, cause and all.
	answered bool
}

var rolloutCalls = []rolloutCall{
	{tool: "ok", args: map[string]any{"count": 5}},
	// Loose-typed arguments the SDK's accessors accept stay successes.
	{tool: "ok", args: map[string]any{"count": "5", "follow_symlinks": "true"}},
	{tool: "plain", failed: true, enforced: codes.InternalError},
	{tool: "deliberate", failed: true, enforced: codes.InternalError},
	{tool: "public", failed: true, enforced: codes.ToolFailed, answered: true},
	{tool: "hand_built", failed: true},
	// What mcp-go's typed helper builds from an error is that error:
	// masked, as the handler's own would be.
	{tool: "helper", failed: true, enforced: codes.InternalError},
	{tool: "boom", failed: true, enforced: codes.InternalError},
	{tool: "ok", args: map[string]any{}, failed: true, enforced: codes.ValidationError},
}

// rolloutClient returns an initialized in-process client of s.
func rolloutClient(t *testing.T, s *server.MCPServer) *client.Client {
	t.Helper()
	c, err := client.NewInProcessClient(s)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	ir := mcp.InitializeRequest{}
	ir.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	ir.Params.ClientInfo = mcp.Implementation{Name: "rollout", Version: "1.0.0"}
	if _, err := c.Initialize(ctx, ir); err != nil {
		t.Fatal(err)
	}
	return c
}

// wire returns what the client received from one call, as bytes: the JSON
// of the result, or the JSON-RPC error.
func wire(t *testing.T, c *client.Client, call rolloutCall) (string, *mcp.CallToolResult) {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = call.tool
	if call.args != nil {
		req.Params.Arguments = call.args
	}
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		return "error: " + err.Error(), nil
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), res
}

// bareWire returns what a bare server's client receives for each call.
func bareWire(t *testing.T) []string {
	c := rolloutClient(t, rolloutServer(t, rollNothing, nil, nil))
	var out []string
	for _, call := range rolloutCalls {
		w, _ := wire(t, c, call)
		out = append(out, w)
	}
	return out
}

func TestReportOnlyChangesNothingTheClientReceives(t *testing.T) {
	bare := bareWire(t)
	for _, way := range []string{rollAddTool, rollWrap, rollMiddleware} {
		t.Run(way, func(t *testing.T) {
			var log adaptertest.Log
			p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithReportOnly(true))
			if err != nil {
				t.Fatal(err)
			}
			c := rolloutClient(t, rolloutServer(t, way, p, nil))
			for i, call := range rolloutCalls {
				got, _ := wire(t, c, call)
				if call.answered {
					adaptertest.CheckAnswered(t, call.tool, got, call.enforced, log.Records(t))
					continue
				}
				if got != bare[i] {
					t.Errorf("%s %v: report-only sent\n%s\nthe bare server sends\n%s", call.tool, call.args, got, bare[i])
				}
				adaptertest.CheckReported(t, call.tool, call.failed, call.enforced, log.Records(t))
			}
		})
	}
}

func TestEnforcingChangesOnlyWhatItHandles(t *testing.T) {
	bare := bareWire(t)
	for _, way := range []string{rollAddTool, rollWrap, rollMiddleware} {
		t.Run(way, func(t *testing.T) {
			var log adaptertest.Log
			c := rolloutClient(t, rolloutServer(t, way, testPipeline(log.Logger()), nil))
			for i, call := range rolloutCalls {
				got, res := wire(t, c, call)
				recs := log.Records(t)
				if call.enforced == "" {
					if got != bare[i] {
						t.Errorf("%s %v: enforcing sent\n%s\nthe bare server sends\n%s", call.tool, call.args, got, bare[i])
					}
					// A success, or a hand-built result under the default
					// policy, filter.PassHandBuilt: nothing to log.
					if len(recs) != 0 {
						t.Errorf("%s %v: logged %v, want nothing", call.tool, call.args, recs)
					}
					continue
				}
				env, ok := mcpgo.EnvelopeOf(res)
				if !ok || env.Code != call.enforced {
					t.Errorf("%s %v: envelope %+v (found %v), want code %s", call.tool, call.args, env, ok, call.enforced)
				}
				if strings.Contains(got, rolloutSecret) {
					t.Errorf("%s: the secret reached the client: %s", call.tool, got)
				}
			}
		})
	}
}

func TestReportOnlyPerTool(t *testing.T) {
	bare := bareWire(t)
	var deliberate string
	for i, c := range rolloutCalls {
		if c.tool == "deliberate" {
			deliberate = bare[i]
		}
	}
	if !strings.HasPrefix(deliberate, "error: ") || !strings.Contains(deliberate, "service_name is required") {
		t.Fatalf("the bare server answers deliberate with %s, want a JSON-RPC error with its text", deliberate)
	}
	for _, way := range []string{rollAddTool, rollWrap, rollMiddleware} {
		t.Run(way, func(t *testing.T) {
			var log adaptertest.Log
			p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithReportOnly(true), filter.ForTool("plain", filter.WithReportOnly(false)))
			if err != nil {
				t.Fatal(err)
			}
			c := rolloutClient(t, rolloutServer(t, way, p, nil))
			_, res := wire(t, c, rolloutCall{tool: "plain"})
			if env, ok := mcpgo.EnvelopeOf(res); !ok || env.Code != codes.InternalError {
				t.Errorf("plain, enforcing on a report-only server: %+v (found %v)", env, ok)
			}
			if got, _ := wire(t, c, rolloutCall{tool: "deliberate"}); got != deliberate {
				t.Errorf("deliberate, report-only: %s, want the bare JSON-RPC error", got)
			}
			log.Records(t)

			p, err = filter.New(filter.WithLogger(log.Logger()), filter.ForTool("deliberate", filter.WithReportOnly(true)))
			if err != nil {
				t.Fatal(err)
			}
			c = rolloutClient(t, rolloutServer(t, way, p, nil))
			if got, _ := wire(t, c, rolloutCall{tool: "deliberate"}); got != deliberate {
				t.Errorf("deliberate, report-only on an enforcing server: %s, want the bare JSON-RPC error", got)
			}
			if recs := log.Records(t); len(recs) != 1 || recs[0]["report_only"] != true {
				t.Errorf("deliberate, report-only: records %v, want one with report_only", recs)
			}
			_, res = wire(t, c, rolloutCall{tool: "plain"})
			if env, ok := mcpgo.EnvelopeOf(res); !ok || env.Code != codes.InternalError {
				t.Errorf("plain on an enforcing server: %+v (found %v)", env, ok)
			}
		})
	}
}

// TestHandBuiltPolicies checks each hand-built policy, given to the server
// or to one tool, where it is added or by name, on the error results
// handlers build themselves.
func TestHandBuiltPolicies(t *testing.T) {
	bare := bareWire(t)
	index := map[string]int{}
	for i, c := range rolloutCalls {
		index[c.tool] = i
	}
	// texts holds a part of each tool's hand-built text, which the record
	// keeps.
	texts := map[string]string{"hand_built": "404 Not Found"}
	for _, tc := range []struct {
		name   string
		way    string
		server filter.HandBuilt
		tool   []filter.ToolOption
		want   filter.HandBuilt
	}{
		{"pass", rollMiddleware, filter.PassHandBuilt, nil, filter.PassHandBuilt},
		{"report", rollMiddleware, filter.ReportHandBuilt, nil, filter.ReportHandBuilt},
		{"mask", rollMiddleware, filter.MaskHandBuilt, nil, filter.MaskHandBuilt},
		{"report, AddTool", rollAddTool, filter.ReportHandBuilt, nil, filter.ReportHandBuilt},
		{"mask, AddTool", rollAddTool, filter.MaskHandBuilt, nil, filter.MaskHandBuilt},
		{"pass, Wrap", rollWrap, filter.PassHandBuilt, nil, filter.PassHandBuilt},
		{"tool masks on a passing server", rollAddTool, filter.PassHandBuilt, []filter.ToolOption{filter.WithHandBuilt(filter.MaskHandBuilt)}, filter.MaskHandBuilt},
		{"tool passes on a masking server, by name", rollWrap, filter.MaskHandBuilt, []filter.ToolOption{filter.WithHandBuilt(filter.PassHandBuilt)}, filter.PassHandBuilt},
		{"tool reports on a masking server, by name", rollWrap, filter.MaskHandBuilt, []filter.ToolOption{filter.WithHandBuilt(filter.ReportHandBuilt)}, filter.ReportHandBuilt},
	} {
		for _, tool := range []string{"hand_built"} {
			t.Run(tc.name+"/"+tool, func(t *testing.T) {
				var log adaptertest.Log
				opts := []filter.Option{filter.WithLogger(log.Logger()), filter.WithHandBuilt(tc.server)}
				own := map[string][]filter.ToolOption{tool: tc.tool}
				if tc.way == rollWrap {
					opts, own = append(opts, filter.ForTool(tool, tc.tool...)), nil
				}
				p, err := filter.New(opts...)
				if err != nil {
					t.Fatal(err)
				}
				c := rolloutClient(t, rolloutServer(t, tc.way, p, own))
				log.Records(t)
				got, res := wire(t, c, rolloutCall{tool: tool})
				recs := log.Records(t)
				switch tc.want {
				case filter.PassHandBuilt, filter.ReportHandBuilt:
					if got != bare[index[tool]] {
						t.Errorf("sent\n%s\nthe bare server sends\n%s", got, bare[index[tool]])
					}
					want := 0
					if tc.want == filter.ReportHandBuilt {
						want = 1
					}
					if len(recs) != want {
						t.Fatalf("%d records, want %d: %v", len(recs), want, recs)
					}
					if want == 1 && (recs[0]["level"] != "WARN" || recs[0]["hand_built"] != true || recs[0]["ref"] == nil ||
						recs[0]["code"] != "TOOL_ERROR" || !strings.Contains(fmt.Sprint(recs[0]["error"]), texts[tool])) {
						t.Errorf("record %v, want WARN, hand_built, TOOL_ERROR, a ref and the result's text", recs[0])
					}
				case filter.MaskHandBuilt:
					env, ok := mcpgo.EnvelopeOf(res)
					if !ok || env.Code != codes.InternalError || strings.Contains(got, rolloutSecret) || strings.Contains(got, texts[tool]) {
						t.Fatalf("sent %s, want a masked INTERNAL_ERROR", got)
					}
					if text := res.Content[0].(mcp.TextContent).Text; text != `Internal error in tool "`+tool+`" (ref: `+env.Ref+`).` {
						t.Errorf("the model reads %q", text)
					}
					if len(recs) != 1 || recs[0]["level"] != "ERROR" || recs[0]["ref"] != env.Ref || recs[0]["hand_built"] != true ||
						!strings.Contains(fmt.Sprint(recs[0]["error"]), rolloutSecret) || !strings.Contains(fmt.Sprint(recs[0]["error"]), texts[tool]) {
						t.Errorf("records %v, want one ERROR with the ref and the original text", recs)
					}
				}
			})
		}
	}
}

func TestBadHandBuiltPolicyIsADefinitionError(t *testing.T) {
	s := server.NewMCPServer("s", "1")
	if err := mcpgo.Install(s, defaults()); err != nil {
		t.Fatal(err)
	}
	h := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil }
	err := mcpgo.AddTool(s, mcp.NewTool("t"), h, filter.WithHandBuilt(filter.HandBuilt(7)))
	var de *codes.DefinitionError
	if !errors.As(err, &de) || de.Mistake != codes.InvalidOption || !strings.Contains(err.Error(), "filter.MaskHandBuilt") {
		t.Errorf("AddTool with HandBuilt(7): %v, want INVALID_OPTION naming the policies", err)
	}
	if s.GetTool("t") != nil {
		t.Error("the tool was added anyway")
	}
}

func TestReportOnlyResources(t *testing.T) {
	read := func(p *filter.Pipeline) string {
		s := server.NewMCPServer("res", "1.0.0", server.WithResourceCapabilities(false, false))
		if p != nil {
			if err := mcpgo.Install(s, p); err != nil {
				t.Fatal(err)
			}
		}
		s.AddResource(mcp.NewResource("repo://owner/x", "x"), func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return nil, errors.New("owner is required")
		})
		req := mcp.ReadResourceRequest{}
		req.Params.URI = "repo://owner/x"
		_, err := rolloutClient(t, s).ReadResource(context.Background(), req)
		if err == nil {
			t.Fatal("the read succeeded")
		}
		return err.Error()
	}
	bare := read(nil)
	var log adaptertest.Log
	p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithReportOnly(true))
	if err != nil {
		t.Fatal(err)
	}
	if got := read(p); got != bare {
		t.Errorf("report-only: %q, the bare server: %q", got, bare)
	}
	recs := log.Records(t)
	if len(recs) != 1 || recs[0]["report_only"] != true || recs[0]["resource"] != "repo://owner/x" || recs[0]["code"] != "INTERNAL_ERROR" {
		t.Errorf("records %v, want one report_only INTERNAL_ERROR for the resource", recs)
	}
	if got := read(testPipeline(log.Logger())); got == bare || strings.Contains(got, "owner is required") {
		t.Errorf("enforcing: %q, want the masked error", got)
	}
}

func TestSentinelFilter(t *testing.T) {
	var log adaptertest.Log
	s := server.NewMCPServer("files", "1.0.0")
	if err := mcpgo.Install(s, testPipeline(log.Logger())); err != nil {
		t.Fatal(err)
	}
	read := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("open /srv/%s/report.pdf: %w", rolloutSecret, fs.ErrNotExist)
	}
	if err := mcpgo.AddTool(s, mcp.NewTool("read_report"), read,
		filter.WithFilters(filter.Is(fs.ErrNotExist, filter.Response{Code: codes.NotFound, Message: "No such report."}))); err != nil {
		t.Fatal(err)
	}
	got, res := wire(t, rolloutClient(t, s), rolloutCall{tool: "read_report"})
	if env, ok := mcpgo.EnvelopeOf(res); !ok || env.Code != codes.NotFound || env.Message != "No such report." || strings.Contains(got, rolloutSecret) {
		t.Errorf("read_report: %s, want the filter's NOT_FOUND without the path", got)
	}
}

func TestHandlerLogsCarryTheCall(t *testing.T) {
	var log adaptertest.Log
	logger := slog.New(filter.LogHandler(log.Logger().Handler()))
	s := server.NewMCPServer("orders", "1.0.0")
	if err := mcpgo.Install(s, testPipeline(log.Logger())); err != nil {
		t.Fatal(err)
	}
	s.AddTool(mcp.NewTool("get_order"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		logger.InfoContext(ctx, "querying replica", "replica", "r2")
		return nil, errors.New("replica r2 down")
	})
	c := rolloutClient(t, s)
	log.Records(t)
	_, res := wire(t, c, rolloutCall{tool: "get_order"})
	env, _ := mcpgo.EnvelopeOf(res)
	recs := log.Records(t)
	if len(recs) != 2 || env.RequestID == "" {
		t.Fatalf("records %v, envelope %+v: want the handler's record and the failure's", recs, env)
	}
	for _, r := range recs {
		if r["request_id"] != env.RequestID || r["tool"] != "get_order" || r["session_id"] == nil {
			t.Errorf("record %v, want request_id %s, tool get_order and the session", r, env.RequestID)
		}
	}
}

// TestProtocolErrorThatDoesNotEncode checks that a URLElicitationRequiredError
// whose requested schema JSON cannot hold, which the SDK could not send,
// is answered as a tool failure, and the session goes on.
func TestProtocolErrorThatDoesNotEncode(t *testing.T) {
	var log adaptertest.Log
	s := server.NewMCPServer("elicit", "1.0.0")
	if err := mcpgo.Install(s, testPipeline(log.Logger())); err != nil {
		t.Fatal(err)
	}
	s.AddTool(mcp.NewTool("login"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, mcp.URLElicitationRequiredError{Elicitations: []mcp.ElicitationParams{{Mode: "form", Message: "Sign in", RequestedSchema: func() {}}}}
	})
	s.AddTool(mcp.NewTool("ok"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("fine"), nil
	})
	c := rolloutClient(t, s)
	_, res := wire(t, c, rolloutCall{tool: "login"})
	if env, ok := mcpgo.EnvelopeOf(res); !ok || env.Code != codes.InternalError {
		t.Errorf("an elicitation that does not encode: %+v (found %v), want a masked failure", env, ok)
	}
	if got, _ := wire(t, c, rolloutCall{tool: "ok"}); !strings.Contains(got, "fine") {
		t.Errorf("the session did not go on: %s", got)
	}
}

// TestCombinedOnOneServer combines on one server, with a non-default
// configuration (report-only, hand-built results reported, redaction):
// a tool served by the middleware alone, a wrapped tool that enforces, a
// tool added with AddTool that enforces and masks its hand-built results,
// Structured wrapped to enforce, and mcp-go's typed helper wrapped to
// enforce, whose error result stands for its handler's error: masked.
func TestCombinedOnOneServer(t *testing.T) {
	var log adaptertest.Log
	p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithReportOnly(true),
		filter.WithHandBuilt(filter.ReportHandBuilt), filter.WithRedaction(true),
		filter.ForTool("wrapped", filter.WithReportOnly(false)), filter.ForTool("structured", filter.WithReportOnly(false)),
		filter.ForTool("helper", filter.WithReportOnly(false)))
	if err != nil {
		t.Fatal(err)
	}
	s := server.NewMCPServer("combined", "1.0.0", server.WithRecovery())
	if err := mcpgo.Install(s, p); err != nil {
		t.Fatal(err)
	}
	plain := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("dial db: password=%s refused", rolloutSecret)
	}
	handBuilt := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultError("upstream token=" + rolloutSecret), nil
	}
	type noArgs struct{}
	structured := func(context.Context, mcp.CallToolRequest, noArgs) (noArgs, error) {
		return noArgs{}, fmt.Errorf("dial db: password=%s refused", rolloutSecret)
	}
	helper := mcp.NewStructuredToolHandler(structured)
	s.AddTool(mcp.NewTool("middleware"), plain)
	s.AddTool(mcp.NewTool("wrapped"), mcpgo.Wrap(plain))
	s.AddTool(mcp.NewTool("structured"), mcpgo.Wrap(mcpgo.Structured(structured)))
	s.AddTool(mcp.NewTool("helper"), mcpgo.Wrap(helper))
	if err := mcpgo.AddTool(s, mcp.NewTool("added"), handBuilt, filter.WithReportOnly(false), filter.WithHandBuilt(filter.MaskHandBuilt)); err != nil {
		t.Fatal(err)
	}
	if err := mcpgo.AddTool(s, mcp.NewTool("reported"), handBuilt); err != nil {
		t.Fatal(err)
	}
	c := rolloutClient(t, s)
	log.Records(t)

	got, _ := wire(t, c, rolloutCall{tool: "middleware"})
	if recs := log.Records(t); !strings.Contains(got, rolloutSecret) || len(recs) != 1 || recs[0]["report_only"] != true {
		t.Errorf("middleware, report-only: %s, records %v; want the bare answer and one report-only record", got, recs)
	}
	for _, tool := range []string{"wrapped", "structured", "helper", "added"} {
		got, res := wire(t, c, rolloutCall{tool: tool})
		env, ok := mcpgo.EnvelopeOf(res)
		recs := log.Records(t)
		if !ok || env.Code != codes.InternalError || strings.Contains(got, rolloutSecret) {
			t.Errorf("%s, enforcing: %s, want a masked INTERNAL_ERROR", tool, got)
		}
		if len(recs) != 1 || recs[0]["report_only"] != nil || recs[0]["ref"] != env.Ref || strings.Contains(fmt.Sprint(recs[0]), rolloutSecret) {
			t.Errorf("%s: records %v, want one enforcing record with the ref, redacted", tool, recs)
		}
	}
	got, _ = wire(t, c, rolloutCall{tool: "reported"})
	if recs := log.Records(t); !strings.Contains(got, rolloutSecret) || len(recs) != 1 || recs[0]["hand_built"] != true || recs[0]["report_only"] != true {
		t.Errorf("reported hand-built: %s, records %v; want it untouched and one report-only record", got, recs)
	}
}

// TestForwardedEnvelopeIsHandBuilt checks that an error result a handler
// built itself whose _meta already holds an mcperr envelope, as a proxy
// forwarding an upstream mcperr server's answer builds it, is a hand-built
// result like any other, whatever the entry point: masked under
// MaskHandBuilt, nothing of its text sent, one record.
func TestForwardedEnvelopeIsHandBuilt(t *testing.T) {
	forwarded := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res := mcp.NewToolResultError("upstream said: password=" + rolloutSecret)
		res.Meta = &mcp.Meta{AdditionalFields: map[string]any{filter.MetaKey: map[string]any{
			"version": 1, "error": true, "code": "NOT_FOUND", "message": "upstream said: password=" + rolloutSecret}}}
		return res, nil
	}
	for _, way := range []string{"middleware", "AddTool", "Wrap"} {
		t.Run(way, func(t *testing.T) {
			var log adaptertest.Log
			s := server.NewMCPServer("proxy", "1.0.0")
			if err := mcpgo.Install(s, testPipeline(log.Logger(), filter.WithHandBuilt(filter.MaskHandBuilt))); err != nil {
				t.Fatal(err)
			}
			tool := mcp.NewTool("forward")
			switch way {
			case "middleware":
				s.AddTool(tool, forwarded)
			case "AddTool":
				if err := mcpgo.AddTool(s, tool, forwarded); err != nil {
					t.Fatal(err)
				}
			case "Wrap":
				s.AddTool(tool, mcpgo.Wrap(forwarded))
			}
			r := call(t, inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION), "forward", nil)
			env := r.Envelope()
			if strings.Contains(string(r.Raw), rolloutSecret) || env["code"] != "INTERNAL_ERROR" {
				t.Errorf("sent %s, want a masked INTERNAL_ERROR", r.Raw)
			}
			if recs := log.Records(t); len(recs) != 1 || recs[0]["level"] != "ERROR" || recs[0]["ref"] != env["ref"] {
				t.Errorf("records %v, want one ERROR with the ref the client read", recs)
			}
		})
	}
}

// TestSharedHandBuiltResult checks that mcperr never writes into a result
// the handler returned: a shared hand-built error result, masked under
// MaskHandBuilt on every entry point, answers each call with a ref of its
// own and one record each, and stays as the handler built it.
func TestSharedHandBuiltResult(t *testing.T) {
	for _, way := range []string{"middleware", "AddTool", "Wrap"} {
		t.Run(way, func(t *testing.T) {
			shared := mcp.NewToolResultError("backend down: password=" + rolloutSecret)
			h := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return shared, nil }
			var log adaptertest.Log
			s := server.NewMCPServer("shared", "1.0.0")
			if err := mcpgo.Install(s, testPipeline(log.Logger(), filter.WithHandBuilt(filter.MaskHandBuilt))); err != nil {
				t.Fatal(err)
			}
			switch way {
			case "middleware":
				s.AddTool(mcp.NewTool("backend"), h)
			case "AddTool":
				if err := mcpgo.AddTool(s, mcp.NewTool("backend"), h); err != nil {
					t.Fatal(err)
				}
			case "Wrap":
				s.AddTool(mcp.NewTool("backend"), mcpgo.Wrap(h))
			}
			c := inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION)
			var refs []any
			for range 2 {
				r := call(t, c, "backend", nil)
				env := r.Envelope()
				if env["code"] != "INTERNAL_ERROR" || strings.Contains(string(r.Raw), rolloutSecret) {
					t.Fatalf("sent %s, want a masked INTERNAL_ERROR", r.Raw)
				}
				if recs := log.Records(t); len(recs) != 1 || recs[0]["ref"] != env["ref"] {
					t.Errorf("records %v, want one with the ref %v the client read", recs, env["ref"])
				}
				refs = append(refs, env["ref"])
			}
			if refs[0] == refs[1] {
				t.Errorf("both calls answered with the ref %v", refs[0])
			}
			if len(shared.Content) != 1 || shared.Meta != nil || shared.Content[0].(mcp.TextContent).Text != "backend down: password="+rolloutSecret {
				t.Errorf("the handler's own result was written into: %+v", shared)
			}
		})
	}
}
