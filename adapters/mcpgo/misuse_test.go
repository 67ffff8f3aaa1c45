package mcpgo_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

// TestSetupMistakesAreSaid checks what start-up cannot know and the first
// tool call says, once, in the pipeline's log: a tool middleware added
// after Install, which runs between mcperr and the handlers (one ERROR
// record naming it), and tool names that filter.ForTool and
// filter.WithRetries give and the server has no tool of (one WARN record
// naming them). A server put together as the docs say hears nothing.
func TestSetupMistakesAreSaid(t *testing.T) {
	fail := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("boom")
	}
	for _, misplaced := range []bool{false, true} {
		var log adaptertest.Log
		p := testPipeline(log.Logger(), filter.WithRetries(2, "lookup", "phantom"),
			filter.ForTool("ghost", filter.WithReportOnly(true)), filter.ForTool("lookup", filter.WithReportOnly(false)))
		s := server.NewMCPServer("setup", "1.0.0", server.WithToolHandlerMiddleware(authMiddleware))
		if err := mcpgo.Install(s, p); err != nil {
			t.Fatal(err)
		}
		if misplaced {
			s.Use(innerMiddleware)
		}
		s.AddTool(mcp.NewTool("lookup"), fail)
		c := inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION)
		for i := range 2 {
			call(t, c, "lookup", nil)
			var setup []map[string]any
			for _, rec := range log.Records(t) {
				if rec["msg"] != "tool call failed" {
					setup = append(setup, rec)
				}
			}
			want := 0
			if i == 0 {
				want = 1
				if misplaced {
					want = 2
				}
			}
			if len(setup) != want {
				t.Fatalf("misplaced %v, call %d: setup records %v, want %d", misplaced, i, setup, want)
			}
			if want == 0 {
				continue
			}
			names := setup[len(setup)-1]
			if names["level"] != "WARN" || fmt.Sprint(names["tools"]) != "[ghost phantom]" {
				t.Errorf("record %v, want one WARN naming ghost and phantom", names)
			}
			if misplaced && (setup[0]["level"] != "ERROR" || !strings.Contains(fmt.Sprint(setup[0]["problem"]), "innerMiddleware")) {
				t.Errorf("record %v, want one ERROR naming the middleware inside mcperr's", setup[0])
			}
		}
	}
}

// innerMiddleware is a tool middleware of the server's own.
func innerMiddleware(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return next(ctx, req)
	}
}

// TestZeroPipeline checks that a Pipeline not built with filter.New, the
// zero value, is the default configuration: a failure is masked and logged
// to slog.Default.
func TestZeroPipeline(t *testing.T) {
	var log adaptertest.Log
	useDefaultLogger(t, log.Logger())
	s := server.NewMCPServer("zero", "1.0.0")
	if err := mcpgo.Install(s, &filter.Pipeline{}); err != nil {
		t.Fatal(err)
	}
	s.AddTool(mcp.NewTool("lookup"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("dial db: password=" + adaptertest.Canary)
	})
	adaptertest.Check(t, adaptertest.Case{Tool: "lookup", Want: adaptertest.Expect{IsError: true, Code: codes.InternalError,
		Text: `Internal error in tool "lookup" (ref: {ref}).`, Masked: true, Logged: 1,
		LogContains: []string{"password=" + adaptertest.Canary}}},
		call(t, inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION), "lookup", nil), log.Records(t))
}
