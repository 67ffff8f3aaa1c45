package mcpgo

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
)

// TestErrorResult checks the tool result of a failure: one text block per
// text, in order, the envelope under _meta[filter.MetaKey] with its details
// as encoded, no structured content, isError set.
func TestErrorResult(t *testing.T) {
	f := &filter.Failure{
		Texts: []string{`Internal error in tool "x" (ref: 0123456789abcdef).`, "Code: DATABASE_ERROR\nDetails: {\"table\":\"orders\"}\nRetry: yes.\nHint: Retry in a minute."},
		Envelope: filter.Envelope{Version: 1, Error: true, Code: "DATABASE_ERROR", Category: codes.Server,
			Message: `Internal error in tool "x" (ref: 0123456789abcdef).`, Details: json.RawMessage(`{"table":"orders"}`),
			Hints: []string{"Retry in a minute."}, Retryable: true, Timestamp: "2025-01-02T03:04:05Z",
			RequestID: "0193d2f4-7b1e-7c3a-9f00-1234567890ab", Ref: "0123456789abcdef"},
	}
	res := errorResult(f)
	got, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"_meta":{"io.github.mcperr/error":{"version":1,"error":true,"code":"DATABASE_ERROR","category":"server",` +
		`"message":"Internal error in tool \"x\" (ref: 0123456789abcdef).","details":{"table":"orders"},` +
		`"hints":["Retry in a minute."],"retryable":true,"timestamp":"2025-01-02T03:04:05Z",` +
		`"requestId":"0193d2f4-7b1e-7c3a-9f00-1234567890ab","ref":"0123456789abcdef"}},` +
		`"content":[{"type":"text","text":"Internal error in tool \"x\" (ref: 0123456789abcdef)."},` +
		`{"type":"text","text":"Code: DATABASE_ERROR\nDetails: {\"table\":\"orders\"}\nRetry: yes.\nHint: Retry in a minute."}],"isError":true}`
	if string(got) != want {
		t.Errorf("error result\n got %s\nwant %s", got, want)
	}
	if env, ok := EnvelopeOf(res); !ok || env.Ref != f.Envelope.Ref || string(env.Details) != `{"table":"orders"}` {
		t.Errorf("EnvelopeOf(the server's result) = %+v, %v; want the failure's envelope", env, ok)
	}
}

func TestIsProtocolError(t *testing.T) {
	required := mcp.URLElicitationRequiredError{}
	tests := []struct {
		err  error
		want bool
	}{
		{required, true},
		{&required, true},
		{fmt.Errorf("login: %w", required), false},
		{fmt.Errorf("boom"), false},
	}
	for _, tt := range tests {
		if got := isProtocolError(tt.err); got != tt.want {
			t.Errorf("isProtocolError(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}
