package toolkit_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/internal/testrig/realistic/obsserver/toolkit"
)

type echoIn struct {
	Text string `json:"text"`
}

// TestRegisterLogsEachCall calls a tool registered with Register through
// go-sdk's own client and reads the line logged for each call.
func TestRegisterLogsEachCall(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey || a.Key == "took" {
			return slog.Attr{}
		}
		return a
	}}))
	s := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "1.0.0"}, nil)
	toolkit.Register(s, logger, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		if in.Text == "" {
			return nil, nil, errors.New("text is empty")
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1.0.0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, text := range []string{"hi", ""} {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": text}}); err != nil {
			t.Fatal(err)
		}
	}
	want := "level=INFO msg=\"tool call\" tool=echo\nlevel=WARN msg=\"tool call\" tool=echo error=\"text is empty\"\n"
	if got := buf.String(); got != want {
		t.Errorf("logged\n%s\nwant\n%s", got, want)
	}
}
