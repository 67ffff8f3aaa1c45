package mcpgo_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

// errBusy stands for a dependency's transient failure.
var errBusy = errors.New("replica 10.0.0.7 busy")

// retryServer returns a client of a server whose pipeline retries twice
// (more opts added), answering errBusy as UNAVAILABLE, and calls, which
// counts the calls of each tool. Each tool fails its first fails[name]
// calls with errBusy (-1: every call), then succeeds.
func retryServer(t *testing.T, log *adaptertest.Log, fails map[string]int, opts ...filter.Option) (*client.Client, *adaptertest.Flaky) {
	t.Helper()
	p, err := filter.New(append([]filter.Option{filter.WithLogger(log.Logger()), filter.WithRetries(2),
		filter.WithFilters(filter.Is(errBusy, filter.Response{Code: codes.Unavailable, Message: "The replica is busy."}))}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	s := server.NewMCPServer("retry", "1.0.0", server.WithToolHandlerMiddleware(func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if strings.HasPrefix(req.Params.Name, "timed_") { // 20 ms: shorter than the first wait
				return withTimeout(20*time.Millisecond, next)(ctx, req)
			}
			return next(ctx, req)
		}
	}))
	if err := mcpgo.Install(s, p); err != nil {
		t.Fatal(err)
	}
	calls := &adaptertest.Flaky{Fails: fails}
	h := func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if calls.Fail(req.Params.Name) {
			return nil, errBusy
		}
		return mcp.NewToolResultText("ok"), nil
	}
	readOnly := mcp.WithReadOnlyHintAnnotation(true)
	s.AddTool(mcp.NewTool("sdk_read", readOnly), h)
	s.AddTool(mcp.NewTool("sdk_write"), h)
	if err := mcpgo.AddTool(s, mcp.NewTool("added_read", mcp.WithIdempotentHintAnnotation(true)), h); err != nil {
		t.Fatal(err)
	}
	s.AddTool(mcp.NewTool("wrapped_read", readOnly), mcpgo.Wrap(h))
	s.AddTool(mcp.NewTool("timed_read", readOnly), h)
	cl := inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION)
	log.Records(t)
	return cl, calls
}

// TestRetries checks, through the SDK's client, that a transient failure
// of a read-only or idempotent tool is retried on the server until it
// succeeds or the attempts are spent, however the tool was added; that a
// tool that may change things, and a request whose deadline leaves no time
// to wait, are not; and what the client and the log see.
func TestRetries(t *testing.T) {
	for _, c := range adaptertest.RetryCases {
		// A server each, so that one's failures do not spend another's budget.
		var log adaptertest.Log
		cl, calls := retryServer(t, &log, adaptertest.RetryFails)
		r := call(t, cl, c.Tool, nil)
		adaptertest.CheckRetried(t, c, r, calls.Calls(c.Tool), log.Records(t))
	}
}

// TestRetriesReportOnly checks that report-only mode never retries: the
// client reads what the SDK alone sends, and the record says the failure
// would have been retried.
func TestRetriesReportOnly(t *testing.T) {
	var log adaptertest.Log
	cl, calls := retryServer(t, &log, map[string]int{"sdk_read": 1}, filter.WithReportOnly(true))
	r := call(t, cl, "sdk_read", nil)
	if r.Envelope() != nil || calls.Calls("sdk_read") != 1 {
		t.Errorf("%d calls: %s %v; want the SDK's own answer after one call", calls.Calls("sdk_read"), r.Raw, r.ProtocolErr)
	}
	if recs := log.Records(t); len(recs) != 1 || recs[0]["would_retry"] != true {
		t.Errorf("records %v, want one saying the failure would have been retried", recs)
	}
}

// TestRetryBudgetUnderLoad checks that 100 concurrent calls of a tool
// whose dependency is down do not each call it three times: the server's
// budget stops the retries.
func TestRetryBudgetUnderLoad(t *testing.T) {
	var log adaptertest.Log
	cl, calls := retryServer(t, &log, map[string]int{"added_read": -1})
	var wg sync.WaitGroup
	for range 100 {
		wg.Go(func() {
			if r := call(t, cl, "added_read", nil); !r.IsError {
				t.Errorf("a call succeeded: %s", r.Raw)
			}
		})
	}
	wg.Wait()
	if n := calls.Calls("added_read"); n < 100 || n > 104 {
		t.Errorf("the tool was called %d times for 100 calls, want 100 and at most 4 retries", n)
	}
}
