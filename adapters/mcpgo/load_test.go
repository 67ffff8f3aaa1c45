package mcpgo_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.uber.org/goleak"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

// startInProcess starts and initializes an in-process client of s, which
// the caller closes.
func startInProcess(t *testing.T, s *server.MCPServer) *client.Client {
	t.Helper()
	c, err := client.NewInProcessClient(s)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	ir := mcp.InitializeRequest{}
	ir.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	ir.Params.ClientInfo = mcp.Implementation{Name: "load", Version: "0"}
	if _, err := c.Initialize(ctx, ir); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestLoad protects unique refs, one record and one report per failure, no
// canary and no leaked goroutine under 10,000 concurrent mixed calls.
func TestLoad(t *testing.T) {
	leaks := goleak.IgnoreCurrent() // before the server starts
	var log adaptertest.Log
	rep := &adaptertest.RefReporter{}
	s := server.NewMCPServer("load", "1.0.0")
	if err := mcpgo.Install(s, testPipeline(log.Logger(), filter.WithObserver(rep.Report))); err != nil {
		t.Fatal(err)
	}
	for _, tool := range adaptertest.LoadTools() {
		h := hostileHandler(tool.Do)
		switch tool.Name {
		case "tool_error", "panic":
			if err := mcpgo.AddTool(s, mcp.NewTool(tool.Name), h); err != nil {
				t.Fatal(err)
			}
		case "not_found":
			s.AddTool(mcp.NewTool(tool.Name), mcpgo.Wrap(h))
		default:
			s.AddTool(mcp.NewTool(tool.Name), h)
		}
	}

	clients := make([]*client.Client, adaptertest.LoadClients)
	for i := range clients {
		clients[i] = startInProcess(t, s)
	}
	log.Records(t) // forget what connecting logged

	tools := adaptertest.LoadTools()
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	answers := make([]answer, adaptertest.LoadCalls(raceEnabled))
	adaptertest.RunLoad(t, len(answers), func(c, i int) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		req := mcp.CallToolRequest{}
		req.Params.Name = tools[i%len(tools)].Name
		answers[i].res, answers[i].err = clients[c].CallTool(ctx, req)
		cancel()
	})
	results := make([]adaptertest.Result, len(answers))
	for i, a := range answers {
		results[i] = resultOf(t, a.res, a.err)
	}
	adaptertest.CheckLoad(t, results, &log, rep)

	for _, cl := range clients {
		if err := cl.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	}
	// mcperr starts no goroutine of its own: every goroutine left is a leak.
	goleak.VerifyNone(t, leaks)
}

// withTimeout gives the handler h a context that expires after d.
func withTimeout(d time.Duration, h server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx, cancel := context.WithTimeout(ctx, d)
		defer cancel()
		return h(ctx, req)
	}
}

// loadServer returns a server with tool "ok" and tool "x" of h, added
// through e, logging into log, made with opts, and an in-process client of
// it.
func loadServer(t *testing.T, e hostileEntry, log *adaptertest.Log, h server.ToolHandlerFunc, opts ...server.ServerOption) *client.Client {
	t.Helper()
	s := server.NewMCPServer("ctx", "1.0.0", opts...)
	if e.installed {
		if err := mcpgo.Install(s, testPipeline(log.Logger())); err != nil {
			t.Fatal(err)
		}
	} else {
		useDefaultLogger(t, log.Logger())
	}
	e.add(t, s, "x", h, nil)
	e.add(t, s, "ok", hostileHandler(nil), nil)
	cl := inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION)
	log.Records(t)
	return cl
}

// TestLoadClientCancels protects CANCELLED, retryable, without a ref,
// logged once below error level, for a call the client cancels mid-call,
// and a server that keeps serving.
func TestLoadClientCancels(t *testing.T) {
	for _, e := range hostileEntries {
		t.Run(e.name, func(t *testing.T) {
			var log adaptertest.Log
			started := make(chan struct{})
			cl := loadServer(t, e, &log, hostileHandler(adaptertest.BlockUntilDone(started)))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() {
				<-started
				cancel()
			}()
			req := mcp.CallToolRequest{}
			req.Params.Name = "x"
			res, err := cl.CallTool(ctx, req)
			r := resultOf(t, res, err)
			if r.ProtocolErr != nil || !r.IsError || strings.Contains(string(r.Raw), adaptertest.HostileCanary) {
				t.Fatalf("got %v %s, want an isError result without the canary", r.ProtocolErr, r.Raw)
			}
			if want := []string{"The request was cancelled before the tool finished.", "Code: CANCELLED\n" + adaptertest.RetryUnknown}; !slices.Equal(r.Texts, want) {
				t.Errorf("texts %q, want %q", r.Texts, want)
			}
			if env := r.Envelope(); env == nil || env["code"] != string(codes.Cancelled) || env["retryable"] != false || env["outcome"] != "unknown" || env["ref"] != nil {
				t.Errorf("envelope %v, want CANCELLED, not retryable, outcome unknown, no ref", env)
			}
			if recs := log.Records(t); len(recs) != 1 || recs[0]["code"] != string(codes.Cancelled) || recs[0]["level"] == "ERROR" {
				t.Errorf("records %v, want one CANCELLED record below error level", recs)
			}
			checkServing(t, cl)
		})
	}
}

// TestLoadDeadline protects TIMEOUT, retryable, with a ref in exactly one
// ERROR record, for a request whose own deadline, set by the server's own
// middleware around every call, expires, and a server that keeps serving.
func TestLoadDeadline(t *testing.T) {
	for _, e := range hostileEntries {
		t.Run(e.name, func(t *testing.T) {
			var log adaptertest.Log
			// The server's own middleware, given before Install: outermost.
			cl := loadServer(t, e, &log, hostileHandler(adaptertest.BlockUntilDone(nil)),
				server.WithToolHandlerMiddleware(func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
					return withTimeout(20*time.Millisecond, next)
				}))
			r := guardedCall(t, cl, "x", nil)
			adaptertest.CheckTimeout(t, r, log.Records(t), true)
			checkServing(t, cl)
		})
	}
}
