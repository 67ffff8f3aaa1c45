package mcpgotest_test

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/adapters/mcpgo/mcpgotest"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/mcperrtest"
)

// noAnswerWait is how long the test waits for an answer that must not
// come: long enough for the server to have run the handler.
const noAnswerWait = 2 * time.Second

// signalHandler is a slog.Handler that hands each record to its inner
// handler, then says so on written.
type signalHandler struct {
	slog.Handler
	written chan<- struct{}
}

func (h signalHandler) Handle(ctx context.Context, r slog.Record) error {
	err := h.Handler.Handle(ctx, r)
	h.written <- struct{}{}
	return err
}

// waitWritten waits for one record on written, for at most ten seconds.
func waitWritten(t *testing.T, written <-chan struct{}) {
	t.Helper()
	select {
	case <-written:
	case <-time.After(10 * time.Second):
		t.Fatal("no record was written")
	}
}

// TestCallWithoutAnswer checks the kit on a handler that calls
// runtime.Goexit: mcperr logs the call once, at error level with a ref,
// and leaves it unanswered; the in-process client runs the handler on the
// calling goroutine, yet Call fails the test with Fatalf instead of ending
// the test's goroutine; the server serves on.
func TestCallWithoutAnswer(t *testing.T) {
	log := mcperrtest.NewLog(t)
	written := make(chan struct{}, 8)
	p, err := filter.New(filter.WithLogger(slog.New(signalHandler{log.Logger().Handler(), written})))
	if err != nil {
		t.Fatal(err)
	}
	s := server.NewMCPServer("goexit", "1.0.0")
	if err := mcpgo.Install(s, p); err != nil {
		t.Fatal(err)
	}
	if err := mcpgo.AddTool(s, mcp.NewTool("exit"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		runtime.Goexit()
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := mcpgo.AddTool(s, mcp.NewTool("ok"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("all good"), nil
	}); err != nil {
		t.Fatal(err)
	}

	f := &fakeTB{}
	returned := false
	f.Run(func(tb testing.TB) {
		c := mcpgotest.Connect(tb, s, mcpgotest.WithCallTimeout(noAnswerWait))
		c.Call("exit", nil)
		returned = true
	})
	if returned {
		t.Error("Call returned for a call that got no answer")
	}
	if fatals := f.Fatals(); len(fatals) != 1 || !strings.Contains(fatals[0], `call "exit": no response`) {
		t.Errorf("reported %q, want one Fatalf that the call got no response", f.Reported())
	}
	waitWritten(t, written) // the record may follow the client's giving up
	recs := log.Records()
	if len(recs) != 1 || recs[0].Level != slog.LevelError || recs[0].Attrs["ref"] == nil ||
		!strings.Contains(fmt.Sprint(recs[0].Attrs["error"]), "runtime.Goexit") {
		t.Errorf("records %v, want one at error level with a ref, naming runtime.Goexit", recs)
	}

	c := mcpgotest.Connect(t, s)
	res := c.Call("ok", nil)
	if mcperrtest.AssertSuccess(t, res) && res.Text() != "all good" {
		t.Errorf("text %q, want %q", res.Text(), "all good")
	}
}
