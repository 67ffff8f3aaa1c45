package gosdk_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

// errBusy stands for a dependency's transient failure.
var errBusy = errors.New("replica 10.0.0.7 busy")

// retryServer returns a server whose pipeline retries twice (more opts
// added), answering errBusy as UNAVAILABLE, and calls, which counts the
// calls of each tool. Each tool fails its first fails[name] calls with
// errBusy (-1: every call), then succeeds.
func retryServer(t *testing.T, log *adaptertest.Log, fails map[string]int, opts ...filter.Option) (*mcp.Server, *adaptertest.Flaky) {
	t.Helper()
	p, err := filter.New(append([]filter.Option{filter.WithLogger(log.Logger()), filter.WithRetries(2),
		filter.WithFilters(filter.Is(errBusy, filter.Response{Code: codes.Unavailable, Message: "The replica is busy."}))}, opts...)...)
	must(t, err)
	s := mcp.NewServer(&mcp.Implementation{Name: "retry", Version: "1.0.0"}, nil)
	must(t, gosdk.Install(s, p))
	calls := &adaptertest.Flaky{Fails: fails}
	h := func(_ context.Context, req *mcp.CallToolRequest, _ map[string]any) (*mcp.CallToolResult, any, error) {
		if calls.Fail(req.Params.Name) {
			return nil, nil, errBusy
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
	}
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true}
	mcp.AddTool(s, &mcp.Tool{Name: "sdk_read", Annotations: readOnly}, h)
	mcp.AddTool(s, &mcp.Tool{Name: "sdk_write"}, h)
	must(t, gosdk.AddTool(s, &mcp.Tool{Name: "added_read", Annotations: &mcp.ToolAnnotations{IdempotentHint: true}}, h))
	mcp.AddTool(s, &mcp.Tool{Name: "wrapped_read", Annotations: readOnly}, gosdk.Wrap(h))
	mcp.AddTool(s, &mcp.Tool{Name: "timed_read", Annotations: readOnly}, h)
	s.AddReceivingMiddleware(deadlineFor("timed_read")) // 20 ms: shorter than the first wait
	return s, calls
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
		s, calls := retryServer(t, &log, adaptertest.RetryFails)
		cs := connect(t, s, "")
		log.Records(t)
		r, _ := call(context.Background(), cs, adaptertest.Case{Tool: c.Tool})
		adaptertest.CheckRetried(t, c, r, calls.Calls(c.Tool), failureRecordsOf(log.Records(t)))
	}
}

// TestRetriesReportOnly checks that report-only mode never retries: the
// client reads what the SDK alone sends, and the record says the failure
// would have been retried.
func TestRetriesReportOnly(t *testing.T) {
	var log adaptertest.Log
	s, calls := retryServer(t, &log, map[string]int{"sdk_read": 1}, filter.WithReportOnly(true))
	cs := connect(t, s, "")
	log.Records(t)
	r, _ := call(context.Background(), cs, adaptertest.Case{Tool: "sdk_read"})
	if !r.IsError || r.Envelope() != nil || calls.Calls("sdk_read") != 1 {
		t.Errorf("isError %v after %d calls: %s; want the SDK's own answer after one call", r.IsError, calls.Calls("sdk_read"), r.Raw)
	}
	if recs := failureRecordsOf(log.Records(t)); len(recs) != 1 || recs[0]["would_retry"] != true {
		t.Errorf("records %v, want one saying the failure would have been retried", recs)
	}
}

// TestRetryBudgetUnderLoad checks that 100 concurrent calls of a tool
// whose dependency is down do not each call it three times: the server's
// budget stops the retries.
func TestRetryBudgetUnderLoad(t *testing.T) {
	var log adaptertest.Log
	s, calls := retryServer(t, &log, map[string]int{"added_read": -1})
	cs := connect(t, s, "")
	var wg sync.WaitGroup
	for range 100 {
		wg.Go(func() {
			if r, _ := call(context.Background(), cs, adaptertest.Case{Tool: "added_read"}); !r.IsError {
				t.Errorf("a call succeeded: %s", r.Raw)
			}
		})
	}
	wg.Wait()
	if n := calls.Calls("added_read"); n < 100 || n > 104 {
		t.Errorf("the tool was called %d times for 100 calls, want 100 and at most 4 retries", n)
	}
}
