package httpfilter_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/contrib/httpfilter"
	"github.com/mcperr/mcperr/filter"
)

// runExample starts an upstream that answers with status and the headers,
// runs an MCP server whose tool "order" calls it and checks the response
// with httpfilter.Check, calls the tool, and prints what the model reads
// and the retry advice.
func runExample(status int, headers map[string]string) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		for k, v := range headers {
			w.Header().Set(k, v)
		}
		w.WriteHeader(status)
		io.WriteString(w, `{"error":"no order 7 for alice@example.com"}`)
	}))
	defer up.Close()

	p, err := filter.New(filter.WithLogger(slog.New(slog.DiscardHandler)), filter.WithFilters(httpfilter.New()))
	if err != nil {
		panic(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1.0.0"}, nil)
	if err := gosdk.Install(s, p); err != nil {
		panic(err)
	}
	err = gosdk.AddTool(s, &mcp.Tool{Name: "order"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, up.URL+"/orders/7?api_key=k-123", nil)
		if err != nil {
			return nil, nil, err
		}
		resp, err := up.Client().Do(req)
		if err != nil {
			return nil, nil, fmt.Errorf("get order 7: %w", err)
		}
		if err := httpfilter.Check(resp); err != nil {
			return nil, nil, fmt.Errorf("get order 7: %w", err)
		}
		defer resp.Body.Close()
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "order 7"}}}, nil, nil
	})
	if err != nil {
		panic(err)
	}

	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := s.Connect(ctx, st, nil); err != nil {
		panic(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0.0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "order", Arguments: map[string]any{}})
	if err != nil {
		panic(err)
	}
	env, _ := gosdk.EnvelopeOf(res)
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	fmt.Println(env.Code, "retryable:", env.Retryable, "after:", env.RetryAfterSeconds)
}

// A 404 reads as NOT_FOUND; the body, which names a customer, and the URL,
// which holds an API key, stay on the server.
func ExampleNew() {
	runExample(http.StatusNotFound, nil)
	// Output:
	// The service the tool called has no such record (HTTP 404 Not Found); check the identifiers in the arguments.
	// NOT_FOUND retryable: false after: 0
}

// A 429 reads as RATE_LIMITED, with the upstream's Retry-After as the
// delay.
func ExampleNew_retryAfter() {
	runExample(http.StatusTooManyRequests, map[string]string{"Retry-After": "30"})
	// Output:
	// The service the tool called is rate limiting requests (HTTP 429 Too Many Requests); wait before retrying.
	// RATE_LIMITED retryable: true after: 30
}

// A 503 with Retry-After as an HTTP date, counted from the response's
// Date header.
func ExampleNew_retryAfterDate() {
	runExample(http.StatusServiceUnavailable, map[string]string{
		"Date":        "Mon, 02 Mar 2026 10:00:00 GMT",
		"Retry-After": "Mon, 02 Mar 2026 10:02:00 GMT",
	})
	// Output:
	// The service the tool called is unavailable right now (HTTP 503 Service Unavailable); retry the call shortly.
	// UNAVAILABLE retryable: true after: 120
}

// Check returns a *StatusError for an error status; its text is for the
// log: the URL without its query, the status, the start of the body.
func ExampleCheck() {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", "120")
		w.WriteHeader(http.StatusTooManyRequests)
		io.WriteString(w, `{"error":"quota of tenant acme exhausted"}`)
	}))
	defer up.Close()

	resp, err := http.Get(up.URL + "/v1/orders?api_key=k-123")
	if err != nil {
		panic(err)
	}
	err = httpfilter.Check(resp)
	var se *httpfilter.StatusError
	if errors.As(err, &se) {
		fmt.Println(se.StatusCode, se.RetryAfter, se.Method)
		fmt.Println(strings.ReplaceAll(se.Error(), up.URL, "http://upstream"))
	}
	// Output:
	// 429 2m0s GET
	// GET http://upstream/v1/orders: HTTP 429 Too Many Requests, retry after 2m0s, body "{\"error\":\"quota of tenant acme exhausted\"}"
}

// apiError is the error of a REST client library that keeps the response
// it failed on, as go-github's errors do.
type apiError struct {
	Response *http.Response
	Message  string
}

func (e *apiError) Error() string { return e.Message }

// From answers the errors of a client library by the response they keep:
// here a 403 whose rate limit is used up, which reads as RATE_LIMITED with
// the delay until X-RateLimit-Reset, counted from the Date header.
func ExampleFrom() {
	p, err := filter.New(
		filter.WithLogger(slog.New(slog.DiscardHandler)),
		filter.WithFilters(httpfilter.From(func(e *apiError) *http.Response { return e.Response })),
	)
	if err != nil {
		panic(err)
	}

	h := http.Header{}
	h.Set("Date", "Wed, 01 Jan 2020 00:00:00 GMT")
	h.Set("X-RateLimit-Remaining", "0")
	h.Set("X-RateLimit-Reset", "1577836860") // a minute after Date
	err = fmt.Errorf("list issues: %w", &apiError{
		Response: &http.Response{StatusCode: http.StatusForbidden, Header: h},
		Message:  "API rate limit exceeded for 203.0.113.7",
	})

	f := p.Handle(context.Background(), filter.Call{Tool: "list_issues"}, err)
	fmt.Println(f.Texts[0])
	fmt.Println(f.Envelope.Code, "retryable:", f.Envelope.Retryable, "after:", f.Envelope.RetryAfterSeconds)
	// Output:
	// The service the tool called is rate limiting requests (HTTP 403 Forbidden); wait before retrying.
	// RATE_LIMITED retryable: true after: 60
}
