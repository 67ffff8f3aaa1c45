package mcpgo_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

// TestOneInterceptionPoint checks where a failure is handled: a wrapped
// handler's error, on a server with Install, is logged by the middleware,
// which called the pipeline once the handler had returned; neither the
// handler nor its wrapper is on the stack when the record is written.
func TestOneInterceptionPoint(t *testing.T) {
	var stacks adaptertest.StackLog
	s := server.NewMCPServer("one", "1.0.0")
	if err := mcpgo.Install(s, testPipeline(slog.New(&stacks))); err != nil {
		t.Fatal(err)
	}
	s.AddTool(mcp.NewTool("ship"), mcpgo.Wrap(failingShip))
	r := call(t, inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION), "ship", nil)
	if env := r.Envelope(); env == nil || env["code"] != string(codes.InternalError) {
		t.Fatalf("%s, want the masked failure", r.Raw)
	}
	adaptertest.CheckOneInterceptionPoint(t, &stacks, "adapters/mcpgo", "failingShip")
}

// failingShip is a handler that fails with an internal error.
func failingShip(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return nil, errors.New("dial db: connection refused")
}
