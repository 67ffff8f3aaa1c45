package gosdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/gosdkcompat"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
	"github.com/mcperr/mcperr/toolerr"
)

// rolloutSecret is planted in every failure of the rollout tools.
const rolloutSecret = "pw-3c0ffee-SECRET"

type countIn struct {
	Count int `json:"count,omitempty"`
}

// The ways a tool is added to a server where mcperr is installed.
const (
	viaAddTool    = "AddTool"        // gosdk.AddTool, gosdk.AddRawTool
	viaWrap       = "Wrap"           // the SDK's own, with gosdk.Wrap, gosdk.WrapRaw
	viaMiddleware = "middleware"     // the SDK's own, unwrapped
	viaNothing    = "without mcperr" // a bare server
)

// rolloutServer returns a server with one tool for each way a call fails,
// added with the SDK alone when p is nil, and otherwise through mcperr
// installed with p, each tool with the options opts gives it. A recovery
// middleware, as a server may have of its own, is outermost, so that a
// panic reaches a client on both.
func rolloutServer(t *testing.T, p *filter.Pipeline, opts map[string][]filter.ToolOption) *mcp.Server {
	t.Helper()
	return rolloutServerVia(t, viaAddTool, p, opts)
}

// rolloutServerVia is rolloutServer with its tools added the way way says.
func rolloutServerVia(t *testing.T, way string, p *filter.Pipeline, opts map[string][]filter.ToolOption) *mcp.Server {
	t.Helper()
	if p == nil {
		way = viaNothing
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "rollout", Version: "1.0.0"}, nil)
	if p != nil {
		must(t, gosdk.Install(s, p))
	}
	typed := func(name string, h mcp.ToolHandlerFor[countIn, any]) {
		tool := &mcp.Tool{Name: name}
		switch way {
		case viaNothing, viaMiddleware:
			mcp.AddTool(s, tool, h)
		case viaWrap:
			if len(opts[name]) > 0 {
				t.Fatalf("%s: Wrap takes no options; declare them in the pipeline with filter.ForTool", name)
			}
			mcp.AddTool(s, tool, gosdk.Wrap(h))
		default:
			must(t, gosdk.AddTool(s, tool, h, opts[name]...))
		}
	}
	typed("ok", func(_ context.Context, _ *mcp.CallToolRequest, in countIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint("count=", in.Count)}}}, nil, nil
	})
	typed("plain", func(context.Context, *mcp.CallToolRequest, countIn) (*mcp.CallToolResult, any, error) {
		return nil, nil, fmt.Errorf("dial db: password=%s refused", rolloutSecret)
	})
	typed("deliberate", func(context.Context, *mcp.CallToolRequest, countIn) (*mcp.CallToolResult, any, error) {
		return nil, nil, errors.New("service_name is required")
	})
	typed("public", func(context.Context, *mcp.CallToolRequest, countIn) (*mcp.CallToolResult, any, error) {
		return nil, nil, toolerr.New("Order 7 is not open; list open orders with list_orders.")
	})
	typed("set_error", func(context.Context, *mcp.CallToolRequest, countIn) (*mcp.CallToolResult, any, error) {
		res := &mcp.CallToolResult{}
		res.SetError(fmt.Errorf("either trace_id or service_name must be provided (%s)", rolloutSecret))
		return res, nil, nil
	})
	typed("hand_built", func(context.Context, *mcp.CallToolRequest, countIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{
			&mcp.TextContent{Text: "failed to get issue: GET https://api.example.com/issues/7?token=" + rolloutSecret + ": 404 Not Found"},
		}}, nil, nil
	})
	typed("boom", func(context.Context, *mcp.CallToolRequest, countIn) (*mcp.CallToolResult, any, error) {
		ids := strings.Fields("") // none: the panic of a real bug
		_ = ids[0] + rolloutSecret
		return nil, nil, nil
	})
	raw := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("query replica: password=%s", rolloutSecret)
	}
	rawTool := &mcp.Tool{Name: "raw", InputSchema: json.RawMessage(`{"type":"object"}`)}
	switch way {
	case viaNothing, viaMiddleware:
		s.AddTool(rawTool, raw)
	case viaWrap:
		s.AddTool(rawTool, gosdk.WrapRaw(raw))
	default:
		must(t, gosdk.AddRawTool(s, rawTool, raw, opts["raw"]...))
	}
	// The server's own recovery, outermost.
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
			defer func() {
				if v := recover(); v != nil {
					res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error"}
				}
			}()
			return next(ctx, method, req)
		}
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
	{tool: "plain", failed: true, enforced: codes.InternalError},
	{tool: "deliberate", failed: true, enforced: codes.InternalError},
	{tool: "public", failed: true, enforced: codes.ToolFailed, answered: true},
	{tool: "set_error", failed: true, enforced: codes.InternalError},
	{tool: "hand_built", failed: true},
	{tool: "boom", failed: true, enforced: codes.InternalError},
	{tool: "raw", failed: true, enforced: codes.InternalError},
	{tool: "ok", args: map[string]any{"count": "five"}, failed: true, enforced: codes.ValidationError},
}

// wire returns what the client received from one call, as bytes: the JSON
// of the result, or the JSON-RPC error.
func wire(t *testing.T, cs *mcp.ClientSession, c rolloutCall) (string, *mcp.CallToolResult) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
	if err != nil {
		return "error: " + err.Error(), nil
	}
	b, err := json.Marshal(res)
	must(t, err)
	return string(b), res
}

// bareWire returns what a bare server's client receives for each call.
func bareWire(t *testing.T) []string {
	cs := connect(t, rolloutServer(t, nil, nil), "")
	var out []string
	for _, c := range rolloutCalls {
		w, _ := wire(t, cs, c)
		out = append(out, w)
	}
	return out
}

func TestReportOnlyChangesNothingTheClientReceives(t *testing.T) {
	bare := bareWire(t)
	for _, way := range []string{viaAddTool, viaWrap, viaMiddleware} {
		t.Run(way, func(t *testing.T) {
			var log adaptertest.Log
			p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithReportOnly(true))
			must(t, err)
			cs := connect(t, rolloutServerVia(t, way, p, nil), "")
			for i, c := range rolloutCalls {
				got, _ := wire(t, cs, c)
				if c.answered {
					adaptertest.CheckAnswered(t, c.tool, got, c.enforced, log.Records(t))
					continue
				}
				if got != bare[i] {
					t.Errorf("%s %v: report-only sent\n%s\nthe bare server sends\n%s", c.tool, c.args, got, bare[i])
				}
				adaptertest.CheckReported(t, c.tool, c.failed, c.enforced, log.Records(t))
			}
		})
	}
}

func TestEnforcingChangesOnlyWhatItHandles(t *testing.T) {
	bare := bareWire(t)
	for _, way := range []string{viaAddTool, viaWrap, viaMiddleware} {
		t.Run(way, func(t *testing.T) {
			var log adaptertest.Log
			cs := connect(t, rolloutServerVia(t, way, newPipeline(t, &log), nil), "")
			for i, c := range rolloutCalls {
				got, res := wire(t, cs, c)
				log.Records(t)
				if c.enforced == "" {
					if got != bare[i] {
						t.Errorf("%s %v: enforcing sent\n%s\nthe bare server sends\n%s", c.tool, c.args, got, bare[i])
					}
					continue
				}
				env, ok := gosdk.EnvelopeOf(res)
				if !ok || env.Code != c.enforced {
					t.Errorf("%s %v: envelope %+v (found %v), want code %s", c.tool, c.args, env, ok, c.enforced)
				}
				if strings.Contains(got, rolloutSecret) {
					t.Errorf("%s: the secret reached the client: %s", c.tool, got)
				}
			}
		})
	}
}

func TestReportOnlyPerTool(t *testing.T) {
	var log adaptertest.Log
	// A report-only server with one tool switched to enforcing...
	p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithReportOnly(true))
	must(t, err)
	cs := connect(t, rolloutServer(t, p, map[string][]filter.ToolOption{
		"plain": {filter.WithReportOnly(false)},
		"ok":    {filter.WithReportOnly(false)},
	}), "")
	_, res := wire(t, cs, rolloutCall{tool: "plain"})
	if env, ok := gosdk.EnvelopeOf(res); !ok || env.Code != codes.InternalError {
		t.Errorf("plain, enforcing on a report-only server: %+v (found %v)", env, ok)
	}
	// ...arguments the SDK refuses before the handler runs included.
	_, res = wire(t, cs, rolloutCall{tool: "ok", args: map[string]any{"count": "five"}})
	if env, ok := gosdk.EnvelopeOf(res); !ok || env.Code != codes.ValidationError {
		t.Errorf("ok with bad arguments, enforcing on a report-only server: %+v (found %v)", env, ok)
	}
	got, _ := wire(t, cs, rolloutCall{tool: "raw"})
	if !strings.Contains(got, rolloutSecret) {
		t.Errorf("raw, report-only: %s, want the bare answer", got)
	}
	log.Records(t)

	// An enforcing server with one tool in report-only mode.
	p, err = filter.New(filter.WithLogger(log.Logger()))
	must(t, err)
	cs = connect(t, rolloutServer(t, p, map[string][]filter.ToolOption{"raw": {filter.WithReportOnly(true)}}), "")
	got, _ = wire(t, cs, rolloutCall{tool: "raw"})
	if !strings.Contains(got, rolloutSecret) || !strings.HasPrefix(got, "error: ") {
		t.Errorf("raw, report-only on an enforcing server: %s, want the bare JSON-RPC error", got)
	}
	if recs := log.Records(t); len(recs) != 1 || recs[0]["report_only"] != true {
		t.Errorf("raw, report-only: records %v, want one with report_only", recs)
	}
	_, res = wire(t, cs, rolloutCall{tool: "plain"})
	if env, ok := gosdk.EnvelopeOf(res); !ok || env.Code != codes.InternalError {
		t.Errorf("plain on an enforcing server: %+v (found %v)", env, ok)
	}
}

// TestReportOnlyPerToolByName checks that a tool's own report-only mode,
// declared at start-up with filter.ForTool for a tool added with the SDK
// and wrapped, holds from the first call for the arguments the SDK refuses
// before the handler runs: the client reads what the bare server sends,
// and one record says what mcperr would have sent.
func TestReportOnlyPerToolByName(t *testing.T) {
	bad := rolloutCall{tool: "ok", args: map[string]any{"count": "five"}}
	bareCS := connect(t, rolloutServer(t, nil, nil), "")
	want, _ := wire(t, bareCS, bad)

	var log adaptertest.Log
	p, err := filter.New(filter.WithLogger(log.Logger()), filter.ForTool("ok", filter.WithReportOnly(true)))
	must(t, err)
	cs := connect(t, rolloutServerVia(t, viaWrap, p, nil), "")
	if got, _ := wire(t, cs, bad); got != want {
		t.Errorf("report-only by name, before the tool's first run, sent\n%s\nthe bare server sends\n%s", got, want)
	}
	if recs := log.Records(t); len(recs) != 1 || recs[0]["report_only"] != true || recs[0]["code"] != "VALIDATION_ERROR" {
		t.Errorf("records %v, want one report-only VALIDATION_ERROR record", recs)
	}
	if got, res := wire(t, cs, rolloutCall{tool: "ok", args: map[string]any{"count": 5}}); res == nil || res.IsError {
		t.Fatalf("a call that fits: %s", got)
	}
	if got, _ := wire(t, cs, bad); got != want {
		t.Errorf("report-only by name sent\n%s\nthe bare server sends\n%s", got, want)
	}
	if recs := log.Records(t); len(recs) != 1 || recs[0]["report_only"] != true || recs[0]["code"] != "VALIDATION_ERROR" {
		t.Errorf("records %v, want one report-only VALIDATION_ERROR record", recs)
	}
}

func TestHandBuiltPolicies(t *testing.T) {
	bare := bareWire(t)
	var handBuilt int
	for i, c := range rolloutCalls {
		if c.tool == "hand_built" {
			handBuilt = i
		}
	}
	hb := rolloutCall{tool: "hand_built"}
	for _, tc := range []struct {
		name   string
		server filter.HandBuilt
		tool   []filter.ToolOption
		want   filter.HandBuilt
	}{
		{"pass", filter.PassHandBuilt, nil, filter.PassHandBuilt},
		{"report", filter.ReportHandBuilt, nil, filter.ReportHandBuilt},
		{"mask", filter.MaskHandBuilt, nil, filter.MaskHandBuilt},
		{"tool masks on a passing server", filter.PassHandBuilt, []filter.ToolOption{filter.WithHandBuilt(filter.MaskHandBuilt)}, filter.MaskHandBuilt},
		{"tool passes on a masking server", filter.MaskHandBuilt, []filter.ToolOption{filter.WithHandBuilt(filter.PassHandBuilt)}, filter.PassHandBuilt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log adaptertest.Log
			p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithHandBuilt(tc.server))
			must(t, err)
			cs := connect(t, rolloutServer(t, p, map[string][]filter.ToolOption{"hand_built": tc.tool}), "")
			got, res := wire(t, cs, hb)
			recs := log.Records(t)
			switch tc.want {
			case filter.PassHandBuilt, filter.ReportHandBuilt:
				if got != bare[handBuilt] {
					t.Errorf("sent\n%s\nthe bare server sends\n%s", got, bare[handBuilt])
				}
				want := 0
				if tc.want == filter.ReportHandBuilt {
					want = 1
				}
				if len(recs) != want {
					t.Fatalf("%d records, want %d: %v", len(recs), want, recs)
				}
				if want == 1 && (recs[0]["level"] != "WARN" || recs[0]["hand_built"] != true || recs[0]["ref"] == nil ||
					!strings.Contains(fmt.Sprint(recs[0]["error"]), "404 Not Found")) {
					t.Errorf("record %v, want WARN, hand_built, a ref and the result's text", recs[0])
				}
			case filter.MaskHandBuilt:
				env, ok := gosdk.EnvelopeOf(res)
				if !ok || env.Code != codes.InternalError || strings.Contains(got, rolloutSecret) {
					t.Fatalf("sent %s, want a masked INTERNAL_ERROR", got)
				}
				if text := res.Content[0].(*mcp.TextContent).Text; text != `Internal error in tool "hand_built" (ref: `+env.Ref+`).` {
					t.Errorf("the model reads %q", text)
				}
				if len(recs) != 1 || recs[0]["level"] != "ERROR" || recs[0]["ref"] != env.Ref || recs[0]["hand_built"] != true ||
					!strings.Contains(fmt.Sprint(recs[0]["error"]), rolloutSecret) {
					t.Errorf("records %v, want one ERROR with the ref and the original text", recs)
				}
			}
		})
	}
}

func TestReportOnlyReportsHandBuiltResultsWithThePolicy(t *testing.T) {
	var log adaptertest.Log
	p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithReportOnly(true), filter.WithHandBuilt(filter.MaskHandBuilt))
	must(t, err)
	cs := connect(t, rolloutServer(t, p, nil), "")
	got, _ := wire(t, cs, rolloutCall{tool: "hand_built"})
	if !strings.Contains(got, "404 Not Found") {
		t.Errorf("report-only sent %s, want the result as the handler built it", got)
	}
	recs := log.Records(t)
	if len(recs) != 1 {
		t.Fatalf("%d records, want one: %v", len(recs), recs)
	}
	adaptertest.CheckReported(t, "hand_built", true, codes.InternalError, recs)
	if recs[0]["hand_built"] != true {
		t.Errorf("record %v has no hand_built", recs[0])
	}
}

func TestBadHandBuiltPolicyIsADefinitionError(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	must(t, gosdk.Install(s, defaults()))
	h := func(context.Context, *mcp.CallToolRequest, countIn) (*mcp.CallToolResult, any, error) {
		return nil, nil, nil
	}
	err := gosdk.AddTool(s, &mcp.Tool{Name: "t"}, h, filter.WithHandBuilt(filter.HandBuilt(7)))
	if mistakeOf(err) != codes.InvalidOption || !strings.Contains(err.Error(), "filter.MaskHandBuilt") {
		t.Errorf("AddTool with HandBuilt(7): %v, want INVALID_OPTION naming the policies", err)
	}
	if _, err := filter.New(filter.WithHandBuilt(-1)); mistakeOf(err) != codes.InvalidOption {
		t.Errorf("filter.New with HandBuilt(-1): %v, want INVALID_OPTION", err)
	}
}

func TestReportOnlyResources(t *testing.T) {
	read := func(p *filter.Pipeline) string {
		s := mcp.NewServer(&mcp.Implementation{Name: "res", Version: "1.0.0"}, nil)
		if p != nil {
			must(t, gosdk.Install(s, p))
		}
		s.AddResource(&mcp.Resource{URI: "repo://owner/x", Name: "x"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return nil, errors.New("owner is required")
		})
		_, err := connect(t, s, "").ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "repo://owner/x"})
		if err == nil {
			t.Fatal("the read succeeded")
		}
		return err.Error()
	}
	bare := read(nil)
	var log adaptertest.Log
	p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithReportOnly(true))
	must(t, err)
	if got := read(p); got != bare {
		t.Errorf("report-only: %q, the bare server: %q", got, bare)
	}
	recs := log.Records(t)
	if len(recs) != 1 || recs[0]["report_only"] != true || recs[0]["resource"] != "repo://owner/x" || recs[0]["code"] != "INTERNAL_ERROR" {
		t.Errorf("records %v, want one report_only INTERNAL_ERROR for the resource", recs)
	}
	if got := read(newPipeline(t, &log)); got == bare || strings.Contains(got, "owner is required") {
		t.Errorf("enforcing: %q, want the masked error", got)
	}
}

func TestSentinelFilter(t *testing.T) {
	var log adaptertest.Log
	s := mcp.NewServer(&mcp.Implementation{Name: "files", Version: "1.0.0"}, nil)
	must(t, gosdk.Install(s, newPipeline(t, &log)))
	read := func(context.Context, *mcp.CallToolRequest, countIn) (*mcp.CallToolResult, any, error) {
		return nil, nil, fmt.Errorf("open /srv/%s/report.pdf: %w", rolloutSecret, fs.ErrNotExist)
	}
	must(t, gosdk.AddTool(s, &mcp.Tool{Name: "read_report"}, read,
		filter.WithFilters(filter.Is(fs.ErrNotExist, filter.Response{Code: codes.NotFound, Message: "No such report."}))))
	got, res := wire(t, connect(t, s, ""), rolloutCall{tool: "read_report"})
	if env, ok := gosdk.EnvelopeOf(res); !ok || env.Code != codes.NotFound || env.Message != "No such report." || strings.Contains(got, rolloutSecret) {
		t.Errorf("read_report: %s, want the filter's NOT_FOUND without the path", got)
	}
}

func TestHandlerLogsCarryTheCall(t *testing.T) {
	var log adaptertest.Log
	logger := slog.New(filter.LogHandler(log.Logger().Handler()))
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1.0.0"}, nil)
	must(t, gosdk.Install(s, newPipeline(t, &log)))
	mcp.AddTool(s, &mcp.Tool{Name: "get_order"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ countIn) (*mcp.CallToolResult, any, error) {
		logger.InfoContext(ctx, "querying replica", "replica", "r2")
		return nil, nil, errors.New("replica r2 down")
	})
	_, res := wire(t, connect(t, s, ""), rolloutCall{tool: "get_order"})
	env, _ := gosdk.EnvelopeOf(res)
	recs := log.Records(t)
	if len(recs) != 2 || env.RequestID == "" {
		t.Fatalf("records %v, envelope %+v: want the handler's record and the failure's", recs, env)
	}
	for _, r := range recs {
		if r["request_id"] != env.RequestID || r["tool"] != "get_order" {
			t.Errorf("record %v, want request_id %s and tool get_order", r, env.RequestID)
		}
	}
}

type sinceIn struct {
	Since time.Time `json:"since"`
}

// TestSDKDecodeRefusalIsValidation checks that arguments the SDK cannot
// decode into a typed tool's input, though they fit its schema (a
// time.Time given "yesterday"), are the client's failure, naming the field
// and never the value, for a tool added with AddTool.
func TestSDKDecodeRefusalIsValidation(t *testing.T) {
	var log adaptertest.Log
	s := mcp.NewServer(&mcp.Implementation{Name: "reports", Version: "1.0.0"}, nil)
	must(t, gosdk.Install(s, newPipeline(t, &log)))
	ran := false
	must(t, gosdk.AddTool(s, &mcp.Tool{Name: "report"}, func(context.Context, *mcp.CallToolRequest, sinceIn) (*mcp.CallToolResult, any, error) {
		ran = true
		return nil, nil, errors.New("upstream: " + rolloutSecret)
	}))
	cs := connect(t, s, "")
	got, res := wire(t, cs, rolloutCall{tool: "report", args: map[string]any{"since": "yesterday-" + rolloutSecret}})
	env, ok := gosdk.EnvelopeOf(res)
	if !ok || env.Code != codes.ValidationError || strings.Contains(got, rolloutSecret) || ran {
		t.Errorf("a time the SDK cannot read: %s (handler ran: %v), want VALIDATION_ERROR without the value", got, ran)
	}
	// go-sdk's decoder names the field from v1.5.0; before, its error is a
	// time.ParseError that names none.
	if gosdkcompat.CanChooseVersion() && !strings.Contains(string(env.Details), `"field":"since"`) {
		t.Errorf("details %s, want the field since", env.Details)
	}
	if recs := log.Records(t); len(recs) != 1 || recs[0]["level"] != "INFO" {
		t.Errorf("records %v, want one below error level", recs)
	}
	// The same tool added with the SDK's own mcp.AddTool: the decoder's
	// error names a field the arguments hold.
	mcp.AddTool(s, &mcp.Tool{Name: "report_sdk"}, func(context.Context, *mcp.CallToolRequest, sinceIn) (*mcp.CallToolResult, any, error) {
		return nil, nil, errors.New("upstream: " + rolloutSecret)
	})
	// Before v1.5.0 the SDK refuses with a Go error that wraps its
	// invalid-params protocol error and names no field: VALIDATION_ERROR
	// all the same.
	got, res = wire(t, connect(t, s, ""), rolloutCall{tool: "report_sdk", args: map[string]any{"since": "yesterday-" + rolloutSecret}})
	if env, _ := gosdk.EnvelopeOf(res); env.Code != codes.ValidationError || strings.Contains(got, rolloutSecret) {
		t.Errorf("mcp.AddTool, a time the SDK cannot read: %s, want VALIDATION_ERROR without the value", got)
	}
	if env, _ := gosdk.EnvelopeOf(res); gosdkcompat.CanChooseVersion() && !strings.Contains(string(env.Details), `"field":"since"`) {
		t.Errorf("mcp.AddTool, a time the SDK cannot read: details %s, want the field since", env.Details)
	}
	log.Records(t)
	// The handler's own failure, arguments fine: masked as ever.
	_, res = wire(t, cs, rolloutCall{tool: "report", args: map[string]any{"since": "2026-11-30T00:00:00Z"}})
	if env, _ := gosdk.EnvelopeOf(res); env.Code != codes.InternalError || !ran {
		t.Errorf("the handler's own error: %+v (ran %v), want INTERNAL_ERROR", env, ran)
	}
}

// TestProtocolErrorThatDoesNotEncode checks that a *jsonrpc.Error a handler
// returns whose data is not valid JSON, which would break the connection,
// reaches the client with its code and message, and the session goes on.
func TestProtocolErrorThatDoesNotEncode(t *testing.T) {
	for _, way := range []string{viaAddTool, viaWrap, viaMiddleware} {
		t.Run(way, func(t *testing.T) {
			var log adaptertest.Log
			s := mcp.NewServer(&mcp.Implementation{Name: "quota", Version: "1.0.0"}, nil)
			must(t, gosdk.Install(s, newPipeline(t, &log)))
			h := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return nil, &jsonrpc.Error{Code: -32050, Message: "quota exhausted", Data: json.RawMessage(`{not json`)}
			}
			tool := &mcp.Tool{Name: "quota", InputSchema: json.RawMessage(`{"type":"object"}`)}
			switch way {
			case viaAddTool:
				must(t, gosdk.AddRawTool(s, tool, h))
			case viaWrap:
				s.AddTool(tool, gosdk.WrapRaw(h))
			default:
				s.AddTool(tool, h)
			}
			s.AddTool(&mcp.Tool{Name: "ok", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "fine"}}}, nil
			})
			cs := connect(t, s, "")
			_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "quota"})
			var rpcErr *jsonrpc.Error
			if !errors.As(err, &rpcErr) || rpcErr.Code != -32050 || rpcErr.Message != "quota exhausted" {
				t.Fatalf("the client got %v, want the handler's JSON-RPC error without its data", err)
			}
			if got, _ := wire(t, cs, rolloutCall{tool: "ok"}); !strings.Contains(got, "fine") {
				t.Errorf("the session did not go on: %s", got)
			}
		})
	}
}

// TestCombinedOnOneServer combines on one server, with a non-default
// configuration (report-only, hand-built results reported, redaction):
// a tool served by the middleware alone, a wrapped tool that enforces, and
// a tool added with AddTool that enforces and masks its hand-built results.
func TestCombinedOnOneServer(t *testing.T) {
	var log adaptertest.Log
	p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithReportOnly(true),
		filter.WithHandBuilt(filter.ReportHandBuilt), filter.WithRedaction(true), filter.ForTool("wrapped", filter.WithReportOnly(false)))
	must(t, err)
	s := mcp.NewServer(&mcp.Implementation{Name: "combined", Version: "1.0.0"}, nil)
	must(t, gosdk.Install(s, p))
	plain := func(context.Context, *mcp.CallToolRequest, countIn) (*mcp.CallToolResult, any, error) {
		return nil, nil, fmt.Errorf("dial db: password=%s refused", rolloutSecret)
	}
	handBuilt := func(context.Context, *mcp.CallToolRequest, countIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "upstream token=" + rolloutSecret}}}, nil, nil
	}
	mcp.AddTool(s, &mcp.Tool{Name: "middleware"}, plain)
	mcp.AddTool(s, &mcp.Tool{Name: "wrapped"}, gosdk.Wrap(plain))
	must(t, gosdk.AddTool(s, &mcp.Tool{Name: "added"}, handBuilt, filter.WithReportOnly(false), filter.WithHandBuilt(filter.MaskHandBuilt)))
	must(t, gosdk.AddTool(s, &mcp.Tool{Name: "reported"}, handBuilt))
	cs := connect(t, s, "")

	got, _ := wire(t, cs, rolloutCall{tool: "middleware"})
	if recs := log.Records(t); !strings.Contains(got, rolloutSecret) || len(recs) != 1 || recs[0]["report_only"] != true {
		t.Errorf("middleware, report-only: %s, records %v; want the bare answer and one report-only record", got, recs)
	}
	for _, tool := range []string{"wrapped", "added"} {
		got, res := wire(t, cs, rolloutCall{tool: tool})
		env, ok := gosdk.EnvelopeOf(res)
		recs := log.Records(t)
		if !ok || env.Code != codes.InternalError || strings.Contains(got, rolloutSecret) {
			t.Errorf("%s, enforcing: %s, want a masked INTERNAL_ERROR", tool, got)
		}
		if len(recs) != 1 || recs[0]["report_only"] != nil || recs[0]["ref"] != env.Ref || strings.Contains(fmt.Sprint(recs[0]), rolloutSecret) {
			t.Errorf("%s: records %v, want one enforcing record with the ref, redacted", tool, recs)
		}
	}
	got, _ = wire(t, cs, rolloutCall{tool: "reported"})
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
	forwarded := func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{IsError: true,
			Meta:    mcp.Meta{filter.MetaKey: map[string]any{"version": 1, "error": true, "code": "NOT_FOUND", "message": "upstream said: password=" + rolloutSecret}},
			Content: []mcp.Content{&mcp.TextContent{Text: "upstream said: password=" + rolloutSecret}}}, nil, nil
	}
	for _, way := range []string{viaMiddleware, viaAddTool, viaWrap} {
		t.Run(way, func(t *testing.T) {
			var log adaptertest.Log
			p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithHandBuilt(filter.MaskHandBuilt))
			must(t, err)
			s := mcp.NewServer(&mcp.Implementation{Name: "proxy", Version: "1.0.0"}, nil)
			must(t, gosdk.Install(s, p))
			tool := &mcp.Tool{Name: "forward"}
			switch way {
			case viaMiddleware:
				mcp.AddTool(s, tool, forwarded)
			case viaAddTool:
				must(t, gosdk.AddTool(s, tool, forwarded))
			case viaWrap:
				mcp.AddTool(s, tool, gosdk.Wrap(forwarded))
			}
			got, res := wire(t, connect(t, s, ""), rolloutCall{tool: "forward"})
			env, _ := gosdk.EnvelopeOf(res)
			if strings.Contains(got, rolloutSecret) || env.Code != codes.InternalError {
				t.Errorf("sent %s, want a masked INTERNAL_ERROR", got)
			}
			if recs := log.Records(t); len(recs) != 1 || recs[0]["level"] != "ERROR" || recs[0]["ref"] != env.Ref {
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
	for _, way := range []string{viaMiddleware + "/raw", viaMiddleware + "/typed", viaAddTool, viaWrap} {
		t.Run(way, func(t *testing.T) {
			// The error result the handler keeps, as some servers keep one
			// in a package-level value, and returns on every failure.
			shared := &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "backend down: password=" + rolloutSecret}}}
			raw := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return shared, nil }
			typed := func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
				return shared, nil, nil
			}
			var log adaptertest.Log
			p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithHandBuilt(filter.MaskHandBuilt))
			must(t, err)
			s := mcp.NewServer(&mcp.Implementation{Name: "shared", Version: "1.0.0"}, nil)
			must(t, gosdk.Install(s, p))
			tool := &mcp.Tool{Name: "backend", InputSchema: adaptertest.EmptySchema}
			switch way {
			case viaMiddleware + "/raw":
				s.AddTool(tool, raw)
			case viaMiddleware + "/typed":
				mcp.AddTool(s, &mcp.Tool{Name: "backend"}, typed)
			case viaAddTool:
				must(t, gosdk.AddRawTool(s, tool, raw))
			case viaWrap:
				s.AddTool(tool, gosdk.WrapRaw(raw))
			}
			cs := connect(t, s, "")
			var refs []string
			for range 2 {
				got, res := wire(t, cs, rolloutCall{tool: "backend"})
				env, _ := gosdk.EnvelopeOf(res)
				if env.Code != codes.InternalError || strings.Contains(got, rolloutSecret) {
					t.Fatalf("sent %s, want a masked INTERNAL_ERROR", got)
				}
				recs := log.Records(t)
				if len(recs) != 1 || recs[0]["ref"] != env.Ref {
					t.Errorf("records %v, want one with the ref %s the client read", recs, env.Ref)
				}
				refs = append(refs, env.Ref)
			}
			if refs[0] == refs[1] {
				t.Errorf("both calls answered with the ref %s", refs[0])
			}
			// The SDK itself may add its own _meta keys; mcperr adds nothing.
			if len(shared.Content) != 1 || shared.Meta[filter.MetaKey] != nil || shared.StructuredContent != nil ||
				shared.Content[0].(*mcp.TextContent).Text != "backend down: password="+rolloutSecret || shared.GetError() != nil {
				t.Errorf("the handler's own result was written into: %+v", shared)
			}
		})
	}
}
