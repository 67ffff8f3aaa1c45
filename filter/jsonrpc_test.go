package filter_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/toolerr"
)

// TestJSONRPCCodes pins the JSON-RPC code of each kind of failure, for
// each kind of request and protocol revision.
func TestJSONRPCCodes(t *testing.T) {
	reg, err := codes.NewRegistry(
		codes.Info{Code: "PAYMENTS_DOWN", Category: codes.Server, Description: "The payment service is down."},
		codes.Info{Code: "ORDER_LOCKED", Category: codes.Business, Description: "The order is locked."})
	if err != nil {
		t.Fatal(err)
	}
	p, err := filter.New(filter.WithLogger(discard()), filter.WithRegistry(reg))
	if err != nil {
		t.Fatal(err)
	}
	resource := func(v string) filter.Call {
		return filter.Call{Method: "resources/read", Resource: "file:///a.txt", ProtocolVersion: v}
	}
	prompt := filter.Call{Method: "prompts/get", Prompt: "greet", ProtocolVersion: "2025-11-25"}
	completion := filter.Call{Method: "completion/complete", Prompt: "greet"}
	const (
		invalidParams    = -32602
		internalError    = -32603
		resourceNotFound = -32002
	)
	notFound := domain.NewNotFound("File", "a.txt")
	for _, c := range []struct {
		name string
		call filter.Call
		err  error
		code int64
		uri  bool
	}{
		{"internal", resource("2026-07-28"), errors.New("boom"), internalError, false},
		{"panic", prompt, &filter.PanicError{Value: "x"}, internalError, false},
		{"server code", prompt, toolerr.New("Payments are down.").WithCode("PAYMENTS_DOWN"), internalError, false},
		{"timeout", completion, fmt.Errorf("x: %w", context.DeadlineExceeded), internalError, false},
		{"not found, 2026-07-28", resource("2026-07-28"), notFound, invalidParams, true},
		{"not found, 2025-11-25", resource("2025-11-25"), notFound, resourceNotFound, true},
		{"not found, 2024-11-05", resource("2024-11-05"), notFound, resourceNotFound, true},
		{"not found, unknown version", resource(""), notFound, invalidParams, true},
		{"not found in a prompt", prompt, notFound, invalidParams, false},
		{"not found in a completion", filter.Call{Method: "completion/complete", Resource: "file:///{x}", ProtocolVersion: "2025-11-25"}, notFound, invalidParams, false},
		{"validation", prompt, domain.NewValidation("name", "x", "Too long"), invalidParams, false},
		{"forbidden", resource("2025-11-25"), domain.NewAuthorization("files:read", "u1"), invalidParams, false},
		{"business", prompt, toolerr.New("The order is locked.").WithCode("ORDER_LOCKED"), invalidParams, false},
		{"tool error", completion, toolerr.New("No such argument."), invalidParams, false},
		{"rate limited", resource("2026-07-28"), domain.NewRateLimited(0), invalidParams, false},
		{"cancelled", resource("2026-07-28"), context.Canceled, invalidParams, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := checked(t, p.Handle(endedAs(context.Background(), c.err), c.call, c.err))
			if f.JSONRPCCode != c.code {
				t.Errorf("JSON-RPC code = %d, want %d (%s)", f.JSONRPCCode, c.code, f.Envelope.Message)
			}
			if len(f.Texts) == 0 || f.Texts[0] != f.Envelope.Message {
				t.Errorf("texts %q, envelope message %q", f.Texts, f.Envelope.Message)
			}
			b, err := json.Marshal(f.Envelope)
			if err != nil {
				t.Fatal(err)
			}
			var data map[string]any
			if err := json.Unmarshal(b, &data); err != nil {
				t.Fatalf("data %s: %v", b, err)
			}
			if data["code"] != string(f.Envelope.Code) || data["message"] != f.Envelope.Message || data["error"] != true {
				t.Errorf("data is not the envelope: %s", b)
			}
			if _, has := data["uri"]; has != c.uri || c.uri && data["uri"] != c.call.Resource {
				t.Errorf("data uri: %s, want uri %v", b, c.uri)
			}
		})
	}
	for _, method := range []string{"", "tools/call"} {
		f := checked(t, p.Handle(context.Background(), filter.Call{Method: method, Tool: "x"}, notFound))
		if f.JSONRPCCode != 0 || f.Envelope.URI != "" {
			t.Errorf("a tool call (method %q): JSON-RPC code %d, uri %q; want neither", method, f.JSONRPCCode, f.Envelope.URI)
		}
	}
	if f := p.Handle(context.Background(), prompt, nil); f != nil {
		t.Errorf("Handle(nil) = %v, want nil", f)
	}
}

// TestLogRecordsNameTheRequest checks the record of each kind of request:
// its message, and the attribute that names what failed.
func TestLogRecordsNameTheRequest(t *testing.T) {
	for _, c := range []struct {
		call filter.Call
		msg  string
		key  string
		want any
	}{
		{filter.Call{Tool: "divide"}, "tool call failed", "tool", "divide"},
		{filter.Call{Method: "tools/call", Tool: "divide"}, "tool call failed", "tool", "divide"},
		{filter.Call{Method: "resources/read", Resource: "file:///x"}, "resource read failed", "resource", "file:///x"},
		{filter.Call{Method: "prompts/get", Prompt: "greet"}, "prompt get failed", "prompt", "greet"},
		{filter.Call{Method: "completion/complete", Prompt: "greet"}, "completion failed", "completion", map[string]any{"prompt": "greet"}},
		{filter.Call{Method: "completion/complete", Resource: "file:///{x}"}, "completion failed", "completion", map[string]any{"resource": "file:///{x}"}},
	} {
		h := newHarness(t)
		h.handle(t, context.Background(), c.call, errors.New("boom"))
		recs := h.records(t)
		if len(recs) != 1 || recs[0]["msg"] != c.msg || fmt.Sprint(recs[0][c.key]) != fmt.Sprint(c.want) {
			t.Errorf("%+v: records %v, want %q with %s=%v", c.call, recs, c.msg, c.key, c.want)
		}
	}
}

// TestMaskedTexts pins the one shape of a masked error's text, whatever
// failed, and that a long URI cannot push the ref out.
func TestMaskedTexts(t *testing.T) {
	handle := func(call filter.Call) string {
		// A new pipeline for each call: a ref generator must not repeat.
		p, err := filter.New(filter.WithLogger(discard()), filter.WithRefGenerator(fixedRef))
		if err != nil {
			t.Fatal(err)
		}
		return checked(t, p.Handle(context.Background(), call, errors.New("boom"))).Envelope.Message
	}
	long := "file:///" + strings.Repeat("a", 5000)
	for _, c := range []struct {
		call filter.Call
		want string
	}{
		{filter.Call{Tool: "lookup"}, `Internal error in tool "lookup" (ref: 4f9c2a7d1e0b3c58).`},
		{filter.Call{Method: "resources/read", Resource: "file:///x"}, `Internal error in resource "file:///x" (ref: 4f9c2a7d1e0b3c58).`},
		{filter.Call{Method: "resources/read", Resource: "file:///a b\n"}, `Internal error in resource "file:///a b\n" (ref: 4f9c2a7d1e0b3c58).`},
		{filter.Call{Method: "prompts/get", Prompt: "greet"}, `Internal error in prompt "greet" (ref: 4f9c2a7d1e0b3c58).`},
		{filter.Call{Method: "completion/complete", Prompt: "greet"}, `Internal error in completion for prompt "greet" (ref: 4f9c2a7d1e0b3c58).`},
		{filter.Call{Method: "completion/complete", Resource: "orders://{id}"}, `Internal error in completion for resource "orders://{id}" (ref: 4f9c2a7d1e0b3c58).`},
		{filter.Call{Method: "completion/complete"}, `Internal error in completion (ref: 4f9c2a7d1e0b3c58).`},
	} {
		if got := handle(c.call); got != c.want {
			t.Errorf("%+v: %q, want %q", c.call, got, c.want)
		}
	}
	got := handle(filter.Call{Method: "resources/read", Resource: long})
	if !strings.HasSuffix(got, "(ref: 4f9c2a7d1e0b3c58).") || len(got) > 400 {
		t.Errorf("long URI: %d bytes, %q", len(got), got[len(got)-40:])
	}
}

// discard returns a logger that writes nothing.
func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }
