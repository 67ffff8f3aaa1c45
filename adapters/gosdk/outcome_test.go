package gosdk_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

// TestOutcomeUnknown checks, through the SDK's client, that a failure
// that may have taken effect tells the model to check first on a tool that
// is not annotated read-only or idempotent, and keeps its retry advice on
// one that is, however the tool was added, whether the client listed the
// tools or not; and that the request's own deadline does the same.
func TestOutcomeUnknown(t *testing.T) {
	errSent := errors.New("POST https://pay.example/charges: 502 Bad Gateway")
	fails := func(ctx context.Context, req *mcp.CallToolRequest, _ map[string]any) (*mcp.CallToolResult, any, error) {
		if strings.HasPrefix(req.Params.Name, "timed_") {
			<-ctx.Done()
			return nil, nil, ctx.Err()
		}
		return nil, nil, errSent
	}
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true}
	idempotent := &mcp.ToolAnnotations{IdempotentHint: true, DestructiveHint: new(bool)}
	newServer := func(t *testing.T, log *adaptertest.Log) *mcp.Server {
		p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithFilters(filter.Is(errSent, filter.Response{
			Code: codes.ExternalServiceError, Message: "The payment service failed.", MayHaveTakenEffect: true})))
		must(t, err)
		s := mcp.NewServer(&mcp.Implementation{Name: "pay", Version: "1.0.0"}, nil)
		must(t, gosdk.Install(s, p))
		mcp.AddTool(s, &mcp.Tool{Name: "sdk_pay"}, fails)
		mcp.AddTool(s, &mcp.Tool{Name: "sdk_quote", Annotations: readOnly}, fails)
		must(t, gosdk.AddTool(s, &mcp.Tool{Name: "added_pay", Annotations: &mcp.ToolAnnotations{OpenWorldHint: new(bool)}}, fails))
		must(t, gosdk.AddTool(s, &mcp.Tool{Name: "added_refund", Annotations: idempotent}, fails))
		mcp.AddTool(s, &mcp.Tool{Name: "wrapped_quote", Annotations: readOnly}, gosdk.Wrap(fails))
		mcp.AddTool(s, &mcp.Tool{Name: "wrapped_pay"}, gosdk.Wrap(fails))
		s.AddReceivingMiddleware(deadlineFor("timed_pay", "timed_quote"))
		mcp.AddTool(s, &mcp.Tool{Name: "timed_pay"}, fails)
		mcp.AddTool(s, &mcp.Tool{Name: "timed_quote", Annotations: readOnly}, fails)
		return s
	}
	unknown := map[string]bool{"sdk_pay": true, "added_pay": true, "wrapped_pay": true, "timed_pay": true}
	for _, listed := range []bool{true, false} {
		log := &adaptertest.Log{}
		s := newServer(t, log)
		var cs *mcp.ClientSession
		if listed {
			cs = connect(t, s, "")
		} else {
			cs = connectUnlisted(t, s)
		}
		for _, tool := range []string{"sdk_pay", "sdk_quote", "added_pay", "added_refund", "wrapped_quote", "wrapped_pay", "timed_pay", "timed_quote"} {
			r, _ := call(context.Background(), cs, adaptertest.Case{Tool: tool})
			env := r.Envelope()
			if !r.IsError || env == nil || len(r.Texts) != 2 {
				t.Fatalf("listed %v, %s: %v %s, want an error result with an envelope", listed, tool, r.ProtocolErr, r.Raw)
			}
			retry := "Retry: yes."
			if unknown[tool] {
				retry = adaptertest.RetryUnknown
			}
			if !slices.Contains(strings.Split(r.Texts[1], "\n"), retry) || (env["outcome"] == "unknown") != unknown[tool] || env["retryable"] == unknown[tool] {
				t.Errorf("listed %v, %s: %q, envelope %v; want %q", listed, tool, r.Texts[1], env, retry)
			}
			if wantCode := map[bool]string{true: "TIMEOUT", false: "EXTERNAL_SERVICE_ERROR"}[strings.HasPrefix(tool, "timed_")]; env["code"] != wantCode {
				t.Errorf("listed %v, %s: code %v, want %s", listed, tool, env["code"], wantCode)
			}
			adaptertest.ValidateEnvelope(t, env)
		}
		if recs := failureRecordsOf(log.Records(t)); len(recs) != 8 {
			t.Errorf("listed %v: %d failure records, want 8: %v", listed, len(recs), recs)
		}
	}
}

// deadlineFor returns middleware that gives the calls of the named tools
// a deadline of 20 ms.
func deadlineFor(tools ...string) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if r, ok := req.(*mcp.CallToolRequest); ok && r.Params != nil {
				for _, name := range tools {
					if r.Params.Name == name {
						var cancel context.CancelFunc
						ctx, cancel = context.WithTimeout(ctx, 20*time.Millisecond)
						defer cancel()
					}
				}
			}
			return next(ctx, method, req)
		}
	}
}

// failureRecordsOf returns the records of failures: those with a code.
func failureRecordsOf(recs []map[string]any) []map[string]any {
	var out []map[string]any
	for _, r := range recs {
		if r["code"] != nil {
			out = append(out, r)
		}
	}
	return out
}
