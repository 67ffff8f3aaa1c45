package mcpgotest_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.uber.org/goleak"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/adapters/mcpgo/mcpgotest"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/mcperrtest"
)

// TestNoGoroutineLeft is what a user's leak check sees: a server with
// mcperr installed, a tool that fails and one that panics, called through
// the kit's client, leaves no goroutine behind once the client is closed.
// mcperr starts none of its own: handlers, filters and the log run on the
// SDK's goroutine.
func TestNoGoroutineLeft(t *testing.T) {
	log := mcperrtest.NewLog(t)
	p, err := filter.New(filter.WithLogger(log.Logger()))
	if err != nil {
		t.Fatal(err)
	}
	s := server.NewMCPServer("leak", "1.0.0")
	if err := mcpgo.Install(s, p); err != nil {
		t.Fatal(err)
	}
	if err := mcpgo.AddTool(s, mcp.NewTool("fail"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("db down: " + canary)
	}); err != nil {
		t.Fatal(err)
	}
	if err := mcpgo.AddTool(s, mcp.NewTool("crash"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		panic("nil map write near " + canary)
	}); err != nil {
		t.Fatal(err)
	}

	c := mcpgotest.Connect(t, s)
	for _, tool := range []string{"fail", "crash", "fail"} {
		res := c.Call(tool, nil)
		mcperrtest.AssertMasked(t, res, log)
		mcperrtest.AssertNoCanary(t, res, canary)
	}
	c.Close()

	goleak.VerifyNone(t)
}
