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

// TestHandleRPCCodes pins the JSON-RPC code of each kind of failure, for
// each kind of request and protocol revision.
func TestHandleRPCCodes(t *testing.T) {
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
		return filter.Call{Kind: filter.KindResource, Resource: "file:///a.txt", ProtocolVersion: v}
	}
	prompt := filter.Call{Kind: filter.KindPrompt, Prompt: "greet", ProtocolVersion: "2025-11-25"}
	completion := filter.Call{Kind: filter.KindCompletion, Prompt: "greet"}
	notFound := domain.NewNotFound("File", "a.txt")
	for _, c := range []struct {
		name string
		call filter.Call
		err  error
		code int64
		uri  bool
	}{
		{"internal", resource("2026-07-28"), errors.New("boom"), filter.CodeInternalError, false},
		{"panic", prompt, &filter.PanicError{Value: "x"}, filter.CodeInternalError, false},
		{"server code", prompt, toolerr.New("Payments are down.").WithCode("PAYMENTS_DOWN"), filter.CodeInternalError, false},
		{"timeout", completion, fmt.Errorf("x: %w", context.DeadlineExceeded), filter.CodeInternalError, false},
		{"not found, 2026-07-28", resource("2026-07-28"), notFound, filter.CodeInvalidParams, true},
		{"not found, 2025-11-25", resource("2025-11-25"), notFound, filter.CodeResourceNotFound, true},
		{"not found, 2024-11-05", resource("2024-11-05"), notFound, filter.CodeResourceNotFound, true},
		{"not found, unknown version", resource(""), notFound, filter.CodeInvalidParams, true},
		{"not found in a prompt", prompt, notFound, filter.CodeInvalidParams, false},
		{"validation", prompt, domain.NewValidation("name", "x", "Too long"), filter.CodeInvalidParams, false},
		{"forbidden", resource("2025-11-25"), domain.NewAuthorization("files:read", "u1"), filter.CodeInvalidParams, false},
		{"business", prompt, toolerr.New("The order is locked.").WithCode("ORDER_LOCKED"), filter.CodeInvalidParams, false},
		{"tool error", completion, toolerr.New("No such argument."), filter.CodeInvalidParams, false},
		{"rate limited", resource("2026-07-28"), domain.NewRateLimited(0), filter.CodeInvalidParams, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := p.HandleRPC(context.Background(), c.call, c.err)
			if e.Code != c.code {
				t.Errorf("code = %d, want %d (%s)", e.Code, c.code, e.Message)
			}
			if e.Message != e.Response.Message || e.Error() != e.Message {
				t.Errorf("message %q, response %q", e.Message, e.Response.Message)
			}
			b, err := json.Marshal(e.Data)
			if err != nil {
				t.Fatal(err)
			}
			var data map[string]any
			if err := json.Unmarshal(b, &data); err != nil {
				t.Fatalf("data %s: %v", b, err)
			}
			if data["code"] != string(e.Response.Code) || data["message"] != e.Message || data["error"] != true {
				t.Errorf("data is not the envelope: %s", b)
			}
			if _, has := data["uri"]; has != c.uri || c.uri && data["uri"] != c.call.Resource {
				t.Errorf("data uri: %s, want uri %v", b, c.uri)
			}
		})
	}
	if e := p.HandleRPC(context.Background(), prompt, nil); e != nil {
		t.Errorf("HandleRPC(nil) = %v, want nil", e)
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
		return p.Handle(context.Background(), call, errors.New("boom")).Message
	}
	long := "file:///" + strings.Repeat("a", 5000)
	for _, c := range []struct {
		call filter.Call
		want string
	}{
		{filter.Call{Tool: "lookup"}, `Internal error in tool "lookup" (ref: 4f9c2a7d1e0b3c58).`},
		{filter.Call{Kind: filter.KindResource, Resource: "file:///x"}, `Internal error in resource "file:///x" (ref: 4f9c2a7d1e0b3c58).`},
		{filter.Call{Kind: filter.KindResource, Resource: "file:///a b\n"}, `Internal error in resource "file:///a b\n" (ref: 4f9c2a7d1e0b3c58).`},
		{filter.Call{Kind: filter.KindPrompt, Prompt: "greet"}, `Internal error in prompt "greet" (ref: 4f9c2a7d1e0b3c58).`},
		{filter.Call{Kind: filter.KindCompletion, Prompt: "greet"}, `Internal error in completion for prompt "greet" (ref: 4f9c2a7d1e0b3c58).`},
		{filter.Call{Kind: filter.KindCompletion, Resource: "orders://{id}"}, `Internal error in completion for resource "orders://{id}" (ref: 4f9c2a7d1e0b3c58).`},
		{filter.Call{Kind: filter.KindCompletion}, `Internal error in completion (ref: 4f9c2a7d1e0b3c58).`},
	} {
		if got := handle(c.call); got != c.want {
			t.Errorf("%+v: %q, want %q", c.call, got, c.want)
		}
	}
	got := handle(filter.Call{Kind: filter.KindResource, Resource: long})
	if !strings.HasSuffix(got, "(ref: 4f9c2a7d1e0b3c58).") || len(got) > 400 {
		t.Errorf("long URI: %d bytes, %q", len(got), got[len(got)-40:])
	}
}

// discard returns a logger that writes nothing.
func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }
