package mcpgo

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

func TestFormatID(t *testing.T) {
	tests := []struct {
		id   any
		want string
	}{
		{"abc", "abc"},
		{float64(42), "42"},
		{float64(9007199254740993), "9007199254740992"},
		{int64(7), "7"},
		{3, "3"},
		{json.Number("12"), "12"},
		{mcp.NewRequestId(int64(5)), "5"},
		{true, "true"},
	}
	for _, tt := range tests {
		if got := formatID(tt.id); got != tt.want {
			t.Errorf("formatID(%#v) = %q, want %q", tt.id, got, tt.want)
		}
	}
}

func TestStampRequestID(t *testing.T) {
	req := &mcp.CallToolRequest{}
	stampRequestID(context.Background(), float64(9), req)
	if got := requestIDOf(req); got != "9" {
		t.Errorf("stamped id = %q, want 9", got)
	}
	req.Header.Set(requestIDHeader, "spoofed")
	stampRequestID(context.Background(), nil, req)
	if got := requestIDOf(req); got != "" {
		t.Errorf("a notification-like call kept the id %q", got)
	}
	stampRequestID(context.Background(), "x", nil) // must not panic
}

// TestStampRequestIDAllocs pins the cost of the hook on every call.
func TestStampRequestIDAllocs(t *testing.T) {
	req := &mcp.CallToolRequest{Header: make(map[string][]string)}
	got := testing.AllocsPerRun(100, func() { stampRequestID(context.Background(), float64(12345), req) })
	if got != 2 {
		t.Errorf("the hook allocates %v times a call, want 2", got)
	}
}
