package gosdk_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

// TestSetupMistakesAreSaid checks what start-up cannot know and the first
// tool call says, once, in the pipeline's log: a receiving middleware added
// before Install, which runs between mcperr and the handlers (one ERROR
// record naming it), and tool names that filter.ForTool and
// filter.WithRetries give and the server has no tool of (one WARN record
// naming them). A server put together as the docs say hears nothing.
func TestSetupMistakesAreSaid(t *testing.T) {
	fail := func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return nil, nil, errors.New("boom")
	}
	for _, misplaced := range []bool{false, true} {
		var log adaptertest.Log
		p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithRetries(2, "lookup", "phantom"),
			filter.ForTool("ghost", filter.WithReportOnly(true)), filter.ForTool("lookup", filter.WithReportOnly(false)))
		must(t, err)
		s := mcp.NewServer(&mcp.Implementation{Name: "setup", Version: "1.0.0"}, nil)
		if misplaced {
			s.AddReceivingMiddleware(innerMiddleware)
		}
		must(t, gosdk.Install(s, p))
		mcp.AddTool(s, &mcp.Tool{Name: "lookup"}, fail)
		cs := connect(t, s, "")
		for i := range 2 {
			call(context.Background(), cs, adaptertest.Case{Tool: "lookup"})
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

// innerMiddleware is a receiving middleware of the server's own.
func innerMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		return next(ctx, method, req)
	}
}

// TestZeroPipeline checks that a Pipeline not built with filter.New, the
// zero value, is the default configuration: a failure is masked and logged
// to slog.Default, and a failing logger falls back to standard error.
func TestZeroPipeline(t *testing.T) {
	log := defaultLog(t)
	s := mcp.NewServer(&mcp.Implementation{Name: "zero", Version: "1.0.0"}, nil)
	must(t, gosdk.Install(s, &filter.Pipeline{}))
	mcp.AddTool(s, &mcp.Tool{Name: "lookup"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return nil, nil, errors.New("dial db: password=" + adaptertest.Canary)
	})
	r, _ := call(context.Background(), connect(t, s, ""), adaptertest.Case{Tool: "lookup"})
	adaptertest.Check(t, adaptertest.Case{Tool: "lookup", Want: adaptertest.Expect{IsError: true, Code: codes.InternalError,
		Text: `Internal error in tool "lookup" (ref: {ref}).`, Masked: true, Logged: 1,
		LogContains: []string{"password=" + adaptertest.Canary}}}, r, log.Records(t))
}
