package httpfilter_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
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

// The canaries: bodyCanary is in every body the upstream sends, and
// reaches the log but never the client; urlCanary is in the query and the
// user information of every URL the tool asks for, and reaches neither.
const (
	bodyCanary = "canary-7f3a-s3cr3t"
	urlCanary  = "canary-url-91c2-apikey"
)

// The Date the upstream sends when asked for "fixed", and a Retry-After
// 90 seconds after it.
const (
	fixedDate       = "Wed, 01 Jan 2020 00:00:00 GMT"
	fixedRetryAfter = "Wed, 01 Jan 2020 00:01:30 GMT"
	// fixedReset is an X-RateLimit-Reset 60 seconds after fixedDate.
	fixedReset = "1577836860"
)

// upstream returns an HTTP server on 127.0.0.1 that answers
// /orders/{id}?status=S&ra=R&date=D&rem=N&reset=T with status S, a body
// holding the canary, Retry-After R if set ("in-1h" is an HTTP date an
// hour from now), the Date header D: "fixed" is fixedDate, "none" sends
// none, "" the server's own; and X-RateLimit-Remaining N and
// X-RateLimit-Reset T if set ("in-1h" is Unix seconds an hour from now).
func upstream(t testing.TB) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		status, err := strconv.Atoi(q.Get("status"))
		if err != nil {
			status = http.StatusOK
		}
		switch ra := q.Get("ra"); ra {
		case "":
		case "in-1h":
			w.Header().Set("Retry-After", time.Now().Add(time.Hour).UTC().Format(http.TimeFormat))
		default:
			w.Header().Set("Retry-After", ra)
		}
		if rem := q.Get("rem"); rem != "" {
			w.Header().Set("X-RateLimit-Remaining", rem)
		}
		switch reset := q.Get("reset"); reset {
		case "":
		case "in-1h":
			w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10))
		default:
			w.Header().Set("X-RateLimit-Reset", reset)
		}
		switch q.Get("date") {
		case "fixed":
			w.Header().Set("Date", fixedDate)
		case "none":
			w.Header()["Date"] = nil // net/http then sends none
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error":"order 7 of alice@example.com","trace":%q}`, bodyCanary)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// fetchArgs are the arguments of the tool "fetch".
type fetchArgs struct {
	Status     int    `json:"status"`
	RetryAfter string `json:"retryAfter,omitempty"`
	Date       string `json:"date,omitempty"`
	Remaining  string `json:"remaining,omitempty"`
	Reset      string `json:"reset,omitempty"`
}

// fetcher is the tool's work: it gets an order from the upstream, with an
// API key in the query and a password in the URL, as real tools do, and
// returns Check's error wrapped with %w.
type fetcher struct {
	base   string
	client *http.Client
}

func (f fetcher) fetch(ctx context.Context, in fetchArgs) (string, error) {
	u, err := url.Parse(f.base + "/orders/7")
	if err != nil {
		return "", err
	}
	u.User = url.UserPassword("svc", urlCanary+"-pw")
	u.RawQuery = url.Values{"api_key": {urlCanary}, "status": {strconv.Itoa(in.Status)}, "ra": {in.RetryAfter}, "date": {in.Date}, "rem": {in.Remaining}, "reset": {in.Reset}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", err
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return "", fmt.Errorf("fetch order 7: %w", err)
	}
	if err := httpfilter.Check(resp); err != nil {
		return "", fmt.Errorf("fetch order 7: %w", err)
	}
	defer resp.Body.Close()
	return "order 7", nil
}

// sdkClient calls the tool "fetch" of one SDK's server.
type sdkClient struct {
	name string
	call func(in fetchArgs) *mcperrtest.Result
}

// connect returns a client of a go-sdk server and one of an mcp-go server,
// each with the tool "fetch", and mcperr installed with a pipeline that
// logs to log and has global, and the tool given tool as its filters.
func connect(t *testing.T, log *mcperrtest.Log, f fetcher, global, tool []filter.Filter) []sdkClient {
	t.Helper()
	pipeline := func() *filter.Pipeline {
		p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithFilters(global...))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}

	gs := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1.0.0"}, nil)
	if err := gosdk.Install(gs, pipeline()); err != nil {
		t.Fatal(err)
	}
	err := gosdk.AddTool(gs, &mcp.Tool{Name: "fetch"}, func(ctx context.Context, _ *mcp.CallToolRequest, in fetchArgs) (*mcp.CallToolResult, any, error) {
		text, err := f.fetch(ctx, in)
		if err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
	}, filter.WithFilters(tool...))
	if err != nil {
		t.Fatal(err)
	}
	gc := gosdktest.Connect(t, gs)

	ms := server.NewMCPServer("orders", "1.0.0")
	if err := mcpgo.Install(ms, pipeline()); err != nil {
		t.Fatal(err)
	}
	err = mcpgo.AddTool(ms, mcpgomcp.NewTool("fetch",
		mcpgomcp.WithNumber("status", mcpgomcp.Required()), mcpgomcp.WithString("retryAfter"), mcpgomcp.WithString("date"),
		mcpgomcp.WithString("remaining"), mcpgomcp.WithString("reset")),
		func(ctx context.Context, req mcpgomcp.CallToolRequest) (*mcpgomcp.CallToolResult, error) {
			var in fetchArgs
			if err := req.BindArguments(&in); err != nil {
				return nil, err
			}
			text, err := f.fetch(ctx, in)
			if err != nil {
				return nil, err
			}
			return mcpgomcp.NewToolResultText(text), nil
		}, filter.WithFilters(tool...))
	if err != nil {
		t.Fatal(err)
	}
	mc := mcpgotest.Connect(t, ms)

	return []sdkClient{
		{"go-sdk", func(in fetchArgs) *mcperrtest.Result { return gc.Call("fetch", in) }},
		{"mcp-go", func(in fetchArgs) *mcperrtest.Result { return mc.Call("fetch", in) }},
	}
}
