package otelmcp_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	otelcodes "go.opentelemetry.io/otel/codes"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/adapters/gosdk/gosdktest"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/contrib/otelmcp"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/mcperrtest"
)

// TestRetriesOnTheSpan checks what a call the server retried leaves on
// its server span: one mcperr.retry event per failed attempt retried,
// mcperr.retry.attempts, and, for a call that succeeds in the end, no
// error status; for one that fails every attempt, the failure as ever.
func TestRetriesOnTheSpan(t *testing.T) {
	tm := newTelemetry(t)
	errBusy := errors.New("replica busy")
	p, err := filter.New(filter.WithLogger(mcperrtest.NewLog(t).Logger()), filter.WithObserver(otelmcp.Observer()), filter.WithRetries(2),
		filter.WithFilters(filter.Is(errBusy, filter.Response{Code: codes.Unavailable, Message: "Busy.", RetryAfter: time.Millisecond})))
	if err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "otel", Version: "0.1.0"}, nil)
	must(t, gosdk.Install(s, p))
	s.AddReceivingMiddleware(otelmcp.GoSDKMiddleware(tm.options()...))
	calls := 0
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true}
	must(t, gosdk.AddTool(s, &mcp.Tool{Name: "flaky", Annotations: readOnly}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		if calls++; calls < 3 {
			return nil, nil, errBusy
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
	}))
	must(t, gosdk.AddTool(s, &mcp.Tool{Name: "down", Annotations: readOnly}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return nil, nil, errBusy
	}))
	c := gosdktest.Connect(t, s)
	if res := c.Call("flaky", struct{}{}); res.IsError {
		t.Fatalf("flaky: %s", res)
	}
	if res := c.Call("down", struct{}{}); !res.IsError || res.Envelope == nil || res.Envelope.Attempts != 3 {
		t.Fatalf("down: %s, want a failure after 3 attempts", res)
	}

	for _, tc := range []struct {
		name   string
		failed bool
	}{{"tools/call flaky", false}, {"tools/call down", true}} {
		span := tm.span(t, tc.name)
		if got := attrMap(span.Attributes())["mcperr.retry.attempts"]; got != "3" {
			t.Errorf("%s: mcperr.retry.attempts %q, want 3", tc.name, got)
		}
		var attempts []string
		for _, e := range span.Events() {
			if e.Name == otelmcp.RetryEvent {
				a := attrMap(e.Attributes)
				if a["mcperr.code"] != "UNAVAILABLE" {
					t.Errorf("%s: retry event %v, want mcperr.code UNAVAILABLE", tc.name, a)
				}
				attempts = append(attempts, a["mcperr.retry.attempt"])
			}
		}
		if len(attempts) != 2 || attempts[0] != "1" || attempts[1] != "2" {
			t.Errorf("%s: retry events for attempts %v, want 1 and 2", tc.name, attempts)
		}
		if failed := span.Status().Code == otelcodes.Error; failed != tc.failed {
			t.Errorf("%s: status %v, want failed %v", tc.name, span.Status(), tc.failed)
		}
	}
}
