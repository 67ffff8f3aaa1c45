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
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
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
			// The first tool call names the SDK's middleware that runs
			// inside mcperr's.
			call(t, c, "ok", nil)
			if recs := log.Records(t); len(recs) != 1 || recs[0]["msg"] != "mcperr: misplaced middleware" || !strings.Contains(fmt.Sprint(recs[0]["problem"]), "mcp-go/server.") {
				t.Errorf("records of the first call %v, want one that names the SDK's middleware inside mcperr's", recs)
			}
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

// TestMiddlewareCancelledContext checks that a call the client cancels
// while its handler runs is answered CANCELLED, logged once.
func TestMiddlewareCancelledContext(t *testing.T) {
	var log adaptertest.Log
	s := installed(t, testPipeline(log.Logger()))
	started := make(chan struct{})
	s.AddTool(mcp.NewTool("slow"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		close(started)
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
	defer cancel()
	go func() {
		<-started
		cancel()
	}()
	req := mcp.CallToolRequest{}
	req.Params.Name = "slow"
	res, err := c.CallTool(ctx, req)
	adaptertest.Check(t, adaptertest.Case{Tool: "slow", Want: adaptertest.Expect{IsError: true, Code: codes.Cancelled,
		Text: "The request was cancelled before the tool finished.", Logged: 1}}, resultOf(t, res, err), log.Records(t))
}

// echo answers with its arguments as JSON.
func echo(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	b, err := json.Marshal(req.Params.Arguments)
	if err != nil {
		return nil, err
	}
	return mcp.NewToolResultText(string(b)), nil
}

// failing is a handler that fails whatever its arguments, as one that
// decodes them strictly and finds them wrong does.
func failing(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return nil, errors.New("decode arguments: " + adaptertest.Canary)
}

// checkFailure checks that r, the answer to a call of tool whose handler
// failed, is VALIDATION_ERROR with text want when want is set, and the
// masked internal error otherwise, logged once.
func checkFailure(t *testing.T, tool string, r adaptertest.Result, records []map[string]any, want string, fields ...string) {
	t.Helper()
	w := adaptertest.Expect{IsError: true, Code: codes.InternalError, Text: `Internal error in tool "` + tool + `" (ref: {ref}).`,
		Masked: true, Logged: 1, LogContains: []string{adaptertest.Canary}}
	if want != "" {
		w = adaptertest.Expect{IsError: true, Code: codes.ValidationError, Text: want, Fields: fields, Logged: 1,
			LogContains: []string{adaptertest.Canary}}
	}
	adaptertest.Check(t, adaptertest.Case{Tool: tool, Want: w}, r, records)
}

// TestMiddlewareFollowsReregisteredTool checks that the schema a failing
// call is checked against is the one registered now, after the SDK silently
// replaced a tool.
func TestMiddlewareFollowsReregisteredTool(t *testing.T) {
	var log adaptertest.Log
	s := installed(t, testPipeline(log.Logger()))
	s.AddTool(mcp.NewTool("x", mcp.WithNumber("n", mcp.Required())), failing)
	c := inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION)
	log.Records(t)
	checkFailure(t, "x", call(t, c, "x", map[string]any{"s": "x"}), log.Records(t), "Validation failed for n: is required", "n")
	s.AddTool(mcp.NewTool("x", mcp.WithString("s", mcp.Required())), failing)
	checkFailure(t, "x", call(t, c, "x", map[string]any{"s": "x"}), log.Records(t), "")
	checkFailure(t, "x", call(t, c, "x", map[string]any{"n": 1}), log.Records(t), "Validation failed for s: is required", "s")
	s.AddTool(mcp.NewToolWithRawSchema("x", "", json.RawMessage(`{"type":"object","properties":{"b":{"type":"boolean"}}}`)), failing)
	checkFailure(t, "x", call(t, c, "x", map[string]any{"b": 1}), log.Records(t), "Validation failed for b: must be boolean, not number", "b")
}

// TestMiddlewareSessionTool checks that a failing call of a tool added to
// one session is checked against the session tool's own schema, as the SDK
// runs it, not the server's.
func TestMiddlewareSessionTool(t *testing.T) {
	var log adaptertest.Log
	s := installed(t, testPipeline(log.Logger()))
	s.AddTool(mcp.NewTool("x", mcp.WithNumber("n", mcp.Required())), failing)
	c := overHTTP(t, s, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	err := s.AddSessionTool(c.GetSessionId(), mcp.NewTool("x", mcp.WithString("s", mcp.Required())), failing)
	if err != nil {
		t.Fatal(err)
	}
	log.Records(t)
	checkFailure(t, "x", call(t, c, "x", map[string]any{"s": "x"}), log.Records(t), "")
	checkFailure(t, "x", call(t, c, "x", map[string]any{"n": 1}), log.Records(t), "Validation failed for s: is required", "s")
}

// TestMiddlewareLeavesWrappedToolsAlone checks that the middleware neither
// maps nor checks again what a wrapped handler handles: each failure is
// logged once, though both serve it.
func TestMiddlewareLeavesWrappedToolsAlone(t *testing.T) {
	var log adaptertest.Log
	s := installed(t, testPipeline(log.Logger()))
	def := func(name string) mcp.Tool { return mcp.NewTool(name, mcp.WithNumber("n")) }
	s.AddTool(def("wrapped"), mcpgo.Wrap(failing))
	if err := mcpgo.AddTool(s, def("added"), failing); err != nil {
		t.Fatal(err)
	}
	c := inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION)
	log.Records(t)
	for _, tool := range []string{"wrapped", "added"} {
		checkFailure(t, tool, call(t, c, tool, nil), log.Records(t), "")
		checkFailure(t, tool, call(t, c, tool, map[string]any{"n": "x"}), log.Records(t), "Validation failed for n: must be number, not string", "n")
	}
}

// TestMiddlewareURLElicitation checks that a deliberate protocol error passes
// through as the SDK sends it, and that one wrapped in another error does
// not.
func TestMiddlewareURLElicitation(t *testing.T) {
	required := mcp.URLElicitationRequiredError{Elicitations: []mcp.ElicitationParams{}}
	// mcp-go sends it as what it is only from v1.2.0; before, the bare SDK
	// sends it as an internal error too, and there is nothing to keep.
	bare := server.NewMCPServer("bare", "1.0.0")
	bare.AddTool(mcp.NewTool("login"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, required
	})
	if r := call(t, inProcess(t, bare, mcp.LATEST_LEGACY_PROTOCOL_VERSION), "login", nil); !errors.As(r.ProtocolErr, new(mcp.URLElicitationRequiredError)) {
		t.Skipf("the bare mcp-go of this build does not send URLElicitationRequiredError to its client (it does from v1.2.0): %v", r.ProtocolErr)
	}
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
	if recs := log.Records(t); len(recs) != 0 {
		t.Errorf("a deliberate protocol error was logged: %v", recs)
	}
	adaptertest.Check(t, adaptertest.Case{Want: adaptertest.Expect{IsError: true, Code: codes.InternalError,
		Text: `Internal error in tool "wrapped" (ref: {ref}).`, Masked: true, Logged: 1}}, call(t, c, "wrapped", nil), log.Records(t))
}
