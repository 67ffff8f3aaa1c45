package mcpgo_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

// TestOutcomeUnknown checks, through the SDK's client, that a failure
// that may have taken effect tells the model to check first on a tool that
// is not annotated read-only or idempotent, and keeps its retry advice on
// one that is, however the tool was added; and that the request's own
// deadline does the same.
func TestOutcomeUnknown(t *testing.T) {
	errSent := errors.New("POST https://pay.example/charges: 502 Bad Gateway")
	fails := func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if strings.HasPrefix(req.Params.Name, "timed_") {
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return nil, errSent
	}
	var log adaptertest.Log
	p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithFilters(filter.Is(errSent, filter.Response{
		Code: codes.ExternalServiceError, Message: "The payment service failed.", MayHaveTakenEffect: true})))
	if err != nil {
		t.Fatal(err)
	}
	timed := map[string]bool{"timed_pay": true, "timed_quote": true}
	s := server.NewMCPServer("pay", "1.0.0", server.WithToolHandlerMiddleware(func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if timed[req.Params.Name] {
				return withTimeout(20*time.Millisecond, next)(ctx, req)
			}
			return next(ctx, req)
		}
	}))
	if err := mcpgo.Install(s, p); err != nil {
		t.Fatal(err)
	}
	readOnly, idempotent := mcp.WithReadOnlyHintAnnotation(true), mcp.WithIdempotentHintAnnotation(true)
	s.AddTool(mcp.NewTool("sdk_pay"), fails)
	s.AddTool(mcp.NewTool("sdk_quote", readOnly), fails)
	if err := mcpgo.AddTool(s, mcp.NewTool("added_pay", mcp.WithDestructiveHintAnnotation(true)), fails); err != nil {
		t.Fatal(err)
	}
	if err := mcpgo.AddTool(s, mcp.NewTool("added_refund", idempotent), fails); err != nil {
		t.Fatal(err)
	}
	s.AddTool(mcp.NewTool("wrapped_quote", readOnly), mcpgo.Wrap(fails))
	s.AddTool(mcp.NewTool("wrapped_pay", mcp.WithReadOnlyHintAnnotation(false)), mcpgo.Wrap(fails))
	s.AddTool(mcp.NewTool("timed_pay"), fails)
	s.AddTool(mcp.NewTool("timed_quote", readOnly), fails)
	unknown := map[string]bool{"sdk_pay": true, "added_pay": true, "wrapped_pay": true, "timed_pay": true}

	cl := inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION)
	log.Records(t)
	for _, tool := range []string{"sdk_pay", "sdk_quote", "added_pay", "added_refund", "wrapped_quote", "wrapped_pay", "timed_pay", "timed_quote"} {
		r := call(t, cl, tool, nil)
		env := r.Envelope()
		if !r.IsError || env == nil || len(r.Texts) != 2 {
			t.Fatalf("%s: %v %s, want an error result with an envelope", tool, r.ProtocolErr, r.Raw)
		}
		retry := "Retry: yes."
		if unknown[tool] {
			retry = adaptertest.RetryUnknown
		}
		if !slices.Contains(strings.Split(r.Texts[1], "\n"), retry) || (env["outcome"] == "unknown") != unknown[tool] || env["retryable"] == unknown[tool] {
			t.Errorf("%s: %q, envelope %v; want %q", tool, r.Texts[1], env, retry)
		}
		if wantCode := map[bool]string{true: "TIMEOUT", false: "EXTERNAL_SERVICE_ERROR"}[timed[tool]]; env["code"] != wantCode {
			t.Errorf("%s: code %v, want %s", tool, env["code"], wantCode)
		}
		adaptertest.ValidateEnvelope(t, env)
	}
	if recs := log.Records(t); len(recs) != 8 {
		t.Errorf("%d records, want 8: %v", len(recs), recs)
	}
}
