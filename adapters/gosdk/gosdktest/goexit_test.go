package gosdktest_test

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/adapters/gosdk/gosdktest"
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
// and leaves it unanswered; Call fails the test with Fatalf once
// WithCallTimeout has passed; the server serves on.
func TestCallWithoutAnswer(t *testing.T) {
	log := mcperrtest.NewLog(t)
	written := make(chan struct{}, 8)
	p, err := filter.New(filter.WithLogger(slog.New(signalHandler{log.Logger().Handler(), written})))
	if err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "goexit", Version: "1.0.0"}, nil)
	if err := gosdk.Install(s, p); err != nil {
		t.Fatal(err)
	}
	if err := gosdk.AddTool(s, &mcp.Tool{Name: "exit"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		runtime.Goexit()
		return nil, nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := gosdk.AddTool(s, &mcp.Tool{Name: "ok"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "all good"}}}, nil, nil
	}); err != nil {
		t.Fatal(err)
	}

	f := &fakeTB{}
	returned := false
	f.Run(func(tb testing.TB) {
		c := gosdktest.Connect(tb, s, gosdktest.WithCallTimeout(noAnswerWait))
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

	c := gosdktest.Connect(t, s)
	res := c.Call("ok", nil)
	if mcperrtest.AssertSuccess(t, res) && res.Text() != "all good" {
		t.Errorf("text %q, want %q", res.Text(), "all good")
	}
}
