package mcpgo

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcperr/mcperr/filter"
)

func TestErrorResult(t *testing.T) {
	retry := true
	r := &filter.Response{Code: "DATABASE_ERROR", Message: `Internal error in tool "x" (ref: 0123456789abcdef).`,
		Details: map[string]any{"table": "orders"}, Hints: []string{"Retry in a minute."}, Retryable: &retry,
		Ref: "0123456789abcdef", RequestID: "7", Timestamp: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}
	got, err := json.Marshal(errorResult(r))
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"_meta":{"io.github.mcperr/error":{"version":1,"error":true,"code":"DATABASE_ERROR",` +
		`"message":"Internal error in tool \"x\" (ref: 0123456789abcdef).","details":{"table":"orders"},` +
		`"hints":["Retry in a minute."],"retryable":true,"timestamp":"2025-01-02T03:04:05Z","requestId":"7","ref":"0123456789abcdef"}},` +
		`"content":[{"type":"text","text":"Internal error in tool \"x\" (ref: 0123456789abcdef)."},` +
		`{"type":"text","text":"Code: DATABASE_ERROR\nDetails: {\"table\":\"orders\"}\nRetry: yes.\nHint: Retry in a minute."}],"isError":true}`
	if string(got) != want {
		t.Errorf("error result\n got %s\nwant %s", got, want)
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
