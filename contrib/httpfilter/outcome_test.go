package httpfilter_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	mcpgomcp "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/adapters/gosdk/gosdktest"
	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/adapters/mcpgo/mcpgotest"
	"github.com/mcperr/mcperr/contrib/httpfilter"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/mcperrtest"
)

// TestServerErrorAfterAChange checks, on both SDKs, an upstream that
// answers 502 Bad Gateway to every request: a POST may have made its
// change, so a tool that is not annotated read-only or idempotent tells
// the model the outcome is unknown, while a read-only tool that POSTs (a
// search) and a tool that GETs keep "retry"; the message of a POST's 502
// leaves the advice to the Retry line; and 503, which says the
// request was not handled, keeps "retry" on any tool.
func TestServerErrorAfterAChange(t *testing.T) {
	status := http.StatusBadGateway
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(status)
	}))
	defer up.Close()
	do := func(ctx context.Context, method string) error {
		req, err := http.NewRequestWithContext(ctx, method, up.URL+"/charges", nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		return httpfilter.Check(resp)
	}
	tools := []struct {
		name     string
		method   string
		readOnly bool
	}{{"charge", http.MethodPost, false}, {"search", http.MethodPost, true}, {"get_charge", http.MethodGet, false}}

	p, err := filter.New(filter.WithLogger(mcperrtest.NewLog(t).Logger()), filter.WithFilters(httpfilter.New()))
	if err != nil {
		t.Fatal(err)
	}
	gs := mcp.NewServer(&mcp.Implementation{Name: "pay", Version: "1.0.0"}, nil)
	ms := server.NewMCPServer("pay", "1.0.0")
	if err := gosdk.Install(gs, p); err != nil {
		t.Fatal(err)
	}
	if err := mcpgo.Install(ms, p); err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools {
		mcp.AddTool(gs, &mcp.Tool{Name: tool.name, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: tool.readOnly}},
			func(ctx context.Context, _ *mcp.CallToolRequest, _ map[string]any) (*mcp.CallToolResult, any, error) {
				return nil, nil, do(ctx, tool.method)
			})
		ms.AddTool(mcpgomcp.NewTool(tool.name, mcpgomcp.WithReadOnlyHintAnnotation(tool.readOnly)),
			func(ctx context.Context, _ mcpgomcp.CallToolRequest) (*mcpgomcp.CallToolResult, error) {
				return nil, do(ctx, tool.method)
			})
	}
	gc, mc := gosdktest.Connect(t, gs), mcpgotest.Connect(t, ms)

	for _, st := range []int{http.StatusBadGateway, http.StatusServiceUnavailable} {
		status = st
		for _, tool := range tools {
			for sdk, res := range map[string]*mcperrtest.Result{"go-sdk": gc.Call(tool.name, map[string]any{}), "mcp-go": mc.Call(tool.name, map[string]any{})} {
				env := res.Envelope
				if env == nil {
					t.Fatalf("%s %s %d: no envelope: %s", sdk, tool.name, st, res)
				}
				unknown := st == http.StatusBadGateway && tool.name == "charge"
				want := "The service the tool called failed (HTTP 502 Bad Gateway); retry the call later."
				switch {
				case st == http.StatusBadGateway && tool.method == http.MethodPost:
					// The advice is the Retry line's alone.
					want = "The service the tool called failed (HTTP 502 Bad Gateway)."
				case st == http.StatusServiceUnavailable:
					want = "The service the tool called is unavailable right now (HTTP 503 Service Unavailable); retry the call shortly."
				}
				if env.Message != want || (env.Outcome == "unknown") != unknown || env.Retryable == unknown {
					t.Errorf("%s %s %d: message %q, outcome %q, retryable %v; want %q, unknown outcome %v", sdk, tool.name, st, env.Message, env.Outcome, env.Retryable, want, unknown)
				}
			}
		}
	}
}

// TestUnavailableRetried checks, on both SDKs, an upstream that answers
// 503 with Retry-After: 1 and then 200, with retries on: a tool annotated
// read-only is called again on the server, after the second the upstream
// asked for, and succeeds.
func TestUnavailableRetried(t *testing.T) {
	var calls atomic.Int64
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1)%2 == 1 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("7 orders"))
	}))
	defer up.Close()
	get := func(ctx context.Context) (string, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, up.URL+"/orders", nil)
		if err != nil {
			return "", err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		if err := httpfilter.Check(resp); err != nil {
			return "", err
		}
		b, err := io.ReadAll(resp.Body)
		return string(b), err
	}
	log := mcperrtest.NewLog(t)
	p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithFilters(httpfilter.New()), filter.WithRetries(1))
	if err != nil {
		t.Fatal(err)
	}
	gs := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1.0.0"}, nil)
	ms := server.NewMCPServer("orders", "1.0.0")
	if err := gosdk.Install(gs, p); err != nil {
		t.Fatal(err)
	}
	if err := mcpgo.Install(ms, p); err != nil {
		t.Fatal(err)
	}
	mcp.AddTool(gs, &mcp.Tool{Name: "count_orders", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ map[string]any) (*mcp.CallToolResult, any, error) {
			text, err := get(ctx)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, err
		})
	ms.AddTool(mcpgomcp.NewTool("count_orders", mcpgomcp.WithReadOnlyHintAnnotation(true)),
		func(ctx context.Context, _ mcpgomcp.CallToolRequest) (*mcpgomcp.CallToolResult, error) {
			text, err := get(ctx)
			if err != nil {
				return nil, err
			}
			return mcpgomcp.NewToolResultText(text), nil
		})
	for sdk, c := range map[string]interface {
		Call(string, any) *mcperrtest.Result
	}{"go-sdk": gosdktest.Connect(t, gs), "mcp-go": mcpgotest.Connect(t, ms)} {
		calls.Store(0)
		start := time.Now()
		res := c.Call("count_orders", map[string]any{})
		if !mcperrtest.AssertSuccess(t, res) || res.Text() != "7 orders" || calls.Load() != 2 {
			t.Errorf("%s: %s after %d upstream calls, want 7 orders after 2", sdk, res, calls.Load())
		}
		mcperrtest.AssertAttempts(t, res, log, 2)
		if waited := time.Since(start); waited < time.Second {
			t.Errorf("%s: answered in %v, before the second Retry-After asked for", sdk, waited)
		}
	}
}
