package mcpgo_test

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
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
	got := stacks.Stacks()
	if len(got) != 1 {
		t.Fatalf("%d records, want one", len(got))
	}
	t.Logf("layers of mcperr when the record is written: %v", adaptertest.Layers(got[0]))
	if layers := adaptertest.Layers(got[0]); !slices.Equal(layers, []string{"adapters/mcpgo", "filter"}) {
		t.Errorf("the record is written through %v, want the middleware calling the pipeline", layers)
	}
	for _, fn := range got[0] {
		if strings.Contains(fn, "failingShip") || strings.Contains(fn, "wrapper") || strings.Contains(fn, "binding") || strings.Contains(fn, ".Wrap") {
			t.Errorf("the handler or its wrapper is on the stack when its failure is logged: %s", fn)
		}
	}
}

// failingShip is a handler that fails with an internal error.
func failingShip(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return nil, errors.New("dial db: connection refused")
}
