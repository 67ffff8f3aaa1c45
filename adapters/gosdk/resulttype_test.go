package gosdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/gosdkcompat"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

// TestFailureIsACompleteResult: on protocol 2026-07-28 a CallToolResult
// must say "resultType": "complete"; a failure answered with a result mcperr
// builds (a raw handler's error, a panic, a refusal before the handler)
// says it as the SDK's own results do.
func TestFailureIsACompleteResult(t *testing.T) {
	if !gosdkcompat.CanChooseVersion() {
		t.Skip("this go-sdk release does not speak protocol 2026-07-28")
	}
	var log adaptertest.Log
	p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithArgumentCheck(true))
	must(t, err)
	s := mcp.NewServer(&mcp.Implementation{Name: "complete", Version: "1.0.0"}, nil)
	must(t, gosdk.Install(s, p))
	schema := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)
	s.AddTool(&mcp.Tool{Name: "raw", InputSchema: schema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("dial: password=hunter2")
	})
	s.AddTool(&mcp.Tool{Name: "boom", InputSchema: schema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		panic("boom")
	})
	cs := connect(t, s, "2026-07-28")
	for _, c := range []struct {
		tool string
		args map[string]any
	}{{"raw", nil}, {"boom", nil}, {"raw", map[string]any{"n": "two"}}} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		must(t, err)
		b, err := json.Marshal(res)
		must(t, err)
		if !res.IsError || !strings.Contains(string(b), `"resultType":"complete"`) {
			t.Errorf("%s %v: %s, want an error result marked complete", c.tool, c.args, b)
		}
	}
}
