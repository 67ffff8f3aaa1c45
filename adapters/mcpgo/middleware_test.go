package mcpgo_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/adaptertest"
)

// TestMiddlewareOrder runs the table with Install called after the SDK's
// WithLogger and WithRecovery (the middleware innermost, as recommended),
// and with those applied after Install (the middleware outermost).
func TestMiddlewareOrder(t *testing.T) {
	sdkOpts := func(sdkLog *adaptertest.Log) []server.ServerOption {
		return []server.ServerOption{server.WithLogger(sdkLog.Logger()), server.WithRecovery()}
	}
	for _, proto := range protocols {
		t.Run("innermost/"+proto, func(t *testing.T) {
			var log, sdkLog adaptertest.Log
			s, err := tableServerAround(viaInstall, testPipeline(log.Logger()), sdkOpts(&sdkLog), nil)
			if err != nil {
				t.Fatal(err)
			}
			runTable(t, viaInstall, inProcess(t, s, proto), &log)
			checkSDKLog(t, sdkLog.Records(t), false)
		})
		t.Run("outermost/"+proto, func(t *testing.T) {
			var log, sdkLog adaptertest.Log
			s, err := tableServerAround(viaInstall, testPipeline(log.Logger()), nil, sdkOpts(&sdkLog))
			if err != nil {
				t.Fatal(err)
			}
			// WithRecovery, inside, turns a panic into an error before the
			// middleware sees it: the client reads the same, but the record
			// has no stack.
			cases := adaptertest.Cases()
			for i, c := range cases {
				if c.Tool == "panic" || c.Tool == "panic_error" {
					cases[i].Want.LogContains = slices.DeleteFunc(slices.Clone(c.Want.LogContains), func(s string) bool { return s == "goroutine" })
				}
			}
			c := inProcess(t, s, proto)
			runCases(t, c, &log, cases)
			call(t, c, "panic", nil)
			recs := log.Records(t)
			if len(recs) != 1 || recs[0]["stack"] != nil {
				t.Errorf("records of a panic under WithRecovery = %v, want one without a stack", recs)
			}
			checkSDKLog(t, sdkLog.Records(t), true)
		})
	}
}

// checkSDKLog checks the records of the SDK's own WithLogger: with the
// middleware inside it, it sees error results and never the raw error text;
// outside, it logs the raw text of every error.
func checkSDKLog(t *testing.T, records []map[string]any, rawErrors bool) {
	t.Helper()
	var errorResults int
	for _, rec := range records {
		if rec["msg"] == "mcp.tool" && rec["outcome"] == "error_result" {
			errorResults++
		}
	}
	all, _ := json.Marshal(records)
	leaked := strings.Contains(string(all), adaptertest.Canary)
	switch {
	case !rawErrors && (leaked || errorResults == 0):
		t.Errorf("SDK log with the middleware inside: %d error results, raw error text logged: %v", errorResults, leaked)
	case rawErrors && !leaked:
		t.Errorf("SDK log with the middleware outside does not hold the raw error text; the recommended order may be out of date")
	}
}

// installed returns a new server with mcperr installed with p and opts.
func installed(t testing.TB, p *filter.Pipeline, opts ...mcpgo.Option) *server.MCPServer {
	t.Helper()
	s := server.NewMCPServer("t", "1.0.0")
	if err := mcpgo.Install(s, p, opts...); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestMiddlewareCancelledContext(t *testing.T) {
	var log adaptertest.Log
	s := installed(t, testPipeline(log.Logger()))
	s.AddTool(mcp.NewTool("slow"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for the warehouse: %w", ctx.Err())
		case <-time.After(10 * time.Second):
			return mcp.NewToolResultText("too late"), nil
		}
	})
	c := inProcess(t, s, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	log.Records(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	req := mcp.CallToolRequest{}
	req.Params.Name = "slow"
	res, err := c.CallTool(ctx, req)
	adaptertest.Check(t, adaptertest.Case{Tool: "slow", Want: adaptertest.Expect{IsError: true, Code: codes.Cancelled,
		Text: "The request was cancelled before the tool finished.", Logged: 1}}, resultOf(t, res, err), log.Records(t))
}

// TestMiddlewareWithoutArgumentCheck checks that WithoutArgumentCheck given
// to Install turns the check off for every tool of the server, however it
// was added.
func TestMiddlewareWithoutArgumentCheck(t *testing.T) {
	var log adaptertest.Log
	s := installed(t, testPipeline(log.Logger()), mcpgo.WithoutArgumentCheck())
	def := func(name string) mcp.Tool { return mcp.NewTool(name, mcp.WithNumber("n", mcp.Required())) }
	s.AddTool(def("plain"), echo)
	s.AddTool(def("wrapped"), mcpgo.Wrap(echo))
	if err := mcpgo.AddTool(s, def("added"), echo); err != nil {
		t.Fatal(err)
	}
	c := inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION)
	for _, tool := range []string{"plain", "wrapped", "added"} {
		r := call(t, c, tool, map[string]any{"n": "not a number"})
		if r.IsError || len(r.Texts) != 1 || r.Texts[0] != `{"n":"not a number"}` {
			t.Errorf("%s: with the check off for the server, the handler must see the arguments: %s", tool, r.Raw)
		}
	}
}

// echo answers with its arguments as JSON.
func echo(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	b, err := json.Marshal(req.Params.Arguments)
	if err != nil {
		return nil, err
	}
	return mcp.NewToolResultText(string(b)), nil
}

// TestMiddlewareFollowsReregisteredTool checks that the schema checked is
// the one registered now, after the SDK silently replaced a tool.
func TestMiddlewareFollowsReregisteredTool(t *testing.T) {
	s := installed(t, testPipeline(new(adaptertest.Log).Logger()))
	s.AddTool(mcp.NewTool("echo", mcp.WithNumber("n", mcp.Required())), echo)
	c := inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION)
	if r := call(t, c, "echo", map[string]any{"s": "x"}); !r.IsError || r.Texts[0] != "Validation failed for n: is required" {
		t.Fatalf("first schema not checked: %s", r.Raw)
	}
	s.AddTool(mcp.NewTool("echo", mcp.WithString("s", mcp.Required())), echo)
	if r := call(t, c, "echo", map[string]any{"s": "x"}); r.IsError {
		t.Errorf("arguments checked against the replaced schema: %s", r.Raw)
	}
	if r := call(t, c, "echo", map[string]any{"n": 1}); !r.IsError || r.Texts[0] != "Validation failed for s: is required" {
		t.Errorf("new schema not checked: %s", r.Raw)
	}
	raw := mcp.NewToolWithRawSchema("echo", "", json.RawMessage(`{"type":"object","properties":{"b":{"type":"boolean"}}}`))
	s.AddTool(raw, echo)
	if r := call(t, c, "echo", map[string]any{"b": 1}); !r.IsError || r.Texts[0] != "Validation failed for b: must be boolean, not number" {
		t.Errorf("raw schema not checked: %s", r.Raw)
	}
}

// TestMiddlewareSessionTool checks that a tool added to one session is
// checked against its own schema, as the SDK runs it, not the server's.
func TestMiddlewareSessionTool(t *testing.T) {
	s := installed(t, testPipeline(new(adaptertest.Log).Logger()))
	s.AddTool(mcp.NewTool("echo", mcp.WithNumber("n", mcp.Required())), echo)
	c := overHTTP(t, s, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	err := s.AddSessionTool(c.GetSessionId(), mcp.NewTool("echo", mcp.WithString("s", mcp.Required())), echo)
	if err != nil {
		t.Fatal(err)
	}
	if r := call(t, c, "echo", map[string]any{"s": "x"}); r.IsError {
		t.Errorf("session tool checked against the server's schema: %s", r.Raw)
	}
	if r := call(t, c, "echo", map[string]any{"n": 1}); !r.IsError || r.Texts[0] != "Validation failed for s: is required" {
		t.Errorf("session tool's schema not checked: %s", r.Raw)
	}
}

// TestMiddlewareLeavesWrappedToolsAlone checks that the middleware neither
// maps nor checks again what a wrapped handler handles: a tool wrapped with
// the check off is not checked, and its errors are logged once.
func TestMiddlewareLeavesWrappedToolsAlone(t *testing.T) {
	var log adaptertest.Log
	s := installed(t, testPipeline(log.Logger()))
	s.AddTool(mcp.NewTool("echo", mcp.WithNumber("n", mcp.Required())), mcpgo.Wrap(echo, mcpgo.WithoutArgumentCheck()))
	fail := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("disk full")
	}
	s.AddTool(mcp.NewTool("fail"), mcpgo.Wrap(fail))
	if err := mcpgo.AddTool(s, mcp.NewTool("fail_added"), fail); err != nil {
		t.Fatal(err)
	}
	c := inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION)
	log.Records(t)
	if r := call(t, c, "echo", map[string]any{"n": "x"}); r.IsError {
		t.Errorf("the middleware checked a wrapped tool's arguments: %s", r.Raw)
	}
	for _, tool := range []string{"fail", "fail_added"} {
		r := call(t, c, tool, nil)
		if !r.IsError || r.Envelope()["code"] != "INTERNAL_ERROR" {
			t.Errorf("%s: %s", tool, r.Raw)
		}
		if n := len(log.Records(t)); n != 1 {
			t.Errorf("%s: %d records, want 1", tool, n)
		}
	}
}

// TestMiddlewareURLElicitation checks that a deliberate protocol error passes
// through as the SDK sends it, and that one wrapped in another error does
// not.
func TestMiddlewareURLElicitation(t *testing.T) {
	required := mcp.URLElicitationRequiredError{Elicitations: []mcp.ElicitationParams{}}
	var log adaptertest.Log
	s := installed(t, testPipeline(log.Logger()))
	s.AddTool(mcp.NewTool("login"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, required
	})
	s.AddTool(mcp.NewTool("wrapped"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("token %s: %w", adaptertest.Canary, required)
	})
	c := inProcess(t, s, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	log.Records(t)
	var want mcp.URLElicitationRequiredError
	if r := call(t, c, "login", nil); !errors.As(r.ProtocolErr, &want) {
		t.Errorf("login: got %v %s, want the SDK's URL elicitation error", r.ProtocolErr, r.Raw)
	}
	adaptertest.Check(t, adaptertest.Case{Want: adaptertest.Expect{IsError: true, Code: codes.InternalError,
		Text: `Internal error in tool "wrapped" (ref: {ref}).`, Masked: true, Logged: 1}}, call(t, c, "wrapped", nil), log.Records(t))
}

// TestSuccessUntouched checks that a successful call's result is, byte for
// byte, what the bare SDK returns, whichever way mcperr is in place.
func TestSuccessUntouched(t *testing.T) {
	type args struct {
		N int `json:"n"`
	}
	type out struct {
		Double int `json:"double"`
	}
	typed := mcp.NewTypedToolHandler(func(_ context.Context, _ mcp.CallToolRequest, a args) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(fmt.Sprint(a.N)), nil
	})
	double := func(_ context.Context, _ mcp.CallToolRequest, a args) (out, error) { return out{a.N * 2}, nil }
	calls := []struct {
		tool string
		args map[string]any
	}{{"ok", nil}, {"divide", map[string]any{"a": 6, "b": 3}}, {"with_output", nil}, {"typed", map[string]any{"n": 4}}, {"structured", map[string]any{"n": 4}}}
	results := func(t *testing.T, way, proto string) [][]byte {
		s, err := tableServer(way, testPipeline(new(adaptertest.Log).Logger()))
		if err != nil {
			t.Fatal(err)
		}
		typedDef := mcp.NewTool("typed", mcp.WithNumber("n"))
		structuredDef := mcp.NewTool("structured", mcp.WithNumber("n"), mcp.WithOutputSchema[out]())
		switch way {
		case viaWrap, viaWrapAlone:
			s.AddTool(typedDef, mcpgo.Wrap(typed))
			s.AddTool(structuredDef, mcpgo.WrapStructured(double))
		case viaAddTool, viaAddToolAlone:
			if err := mcpgo.AddTool(s, typedDef, typed); err != nil {
				t.Fatal(err)
			}
			if err := mcpgo.AddTool(s, structuredDef, mcpgo.Structured(double)); err != nil {
				t.Fatal(err)
			}
		case viaInstall:
			s.AddTool(typedDef, typed)
			s.AddTool(structuredDef, mcpgo.Structured(double))
		default:
			s.AddTool(typedDef, typed)
			s.AddTool(structuredDef, mcp.NewStructuredToolHandler(double))
		}
		c := inProcess(t, s, proto)
		var out [][]byte
		for _, k := range calls {
			r := call(t, c, k.tool, k.args)
			if r.ProtocolErr != nil || r.IsError {
				t.Fatalf("%s failed: %v %s", k.tool, r.ProtocolErr, r.Raw)
			}
			out = append(out, r.Raw)
		}
		return out
	}
	for _, proto := range protocols {
		bare := results(t, viaBare, proto)
		for _, way := range allWays {
			got := results(t, way, proto)
			for i := range calls {
				if string(got[i]) != string(bare[i]) {
					t.Errorf("%s/%s: %s returned\n%s\nthe bare SDK returns\n%s", way, proto, calls[i].tool, got[i], bare[i])
				}
			}
		}
	}
}
