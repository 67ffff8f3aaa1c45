package gosdktest_test

import (
	"context"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/adapters/gosdk/gosdktest"
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
	s := mcp.NewServer(&mcp.Implementation{Name: "leak", Version: "1.0.0"}, nil)
	if err := gosdk.Install(s, p); err != nil {
		t.Fatal(err)
	}
	if err := gosdk.AddTool(s, &mcp.Tool{Name: "fail"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return nil, nil, errors.New("db down: " + canary)
	}); err != nil {
		t.Fatal(err)
	}
	if err := gosdk.AddTool(s, &mcp.Tool{Name: "crash"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		panic("nil map write near " + canary)
	}); err != nil {
		t.Fatal(err)
	}

	c := gosdktest.Connect(t, s)
	for _, tool := range []string{"fail", "crash", "fail"} {
		res := c.Call(tool, nil)
		mcperrtest.AssertMasked(t, res, log)
		mcperrtest.AssertNoCanary(t, res, canary)
	}
	c.Close()

	goleak.VerifyNone(t)
}
