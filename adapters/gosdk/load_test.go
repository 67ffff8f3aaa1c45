package gosdk_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

// TestLoad protects unique refs, one record and one report per failure, no canary and no leaked goroutine under 10,000 concurrent mixed calls.
func TestLoad(t *testing.T) {
	leaks := goleak.IgnoreCurrent() // before the server starts
	var log adaptertest.Log
	rep := &adaptertest.RefReporter{}
	p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithObserver(rep.Report))
	must(t, err)
	s := mcp.NewServer(&mcp.Implementation{Name: "load", Version: "1.0.0"}, nil)
	must(t, gosdk.Install(s, p))
	for _, tool := range adaptertest.LoadTools() {
		h := hostileHandler(tool.Do)
		switch tool.Name {
		case "tool_error", "panic":
			must(t, gosdk.AddTool(s, &mcp.Tool{Name: tool.Name}, h))
		case "not_found":
			mcp.AddTool(s, &mcp.Tool{Name: tool.Name}, gosdk.Wrap(h))
		default:
			mcp.AddTool(s, &mcp.Tool{Name: tool.Name}, h)
		}
	}

	ctx := context.Background()
	type session struct {
		cs *mcp.ClientSession
		ss *mcp.ServerSession
	}
	sessions := make([]session, adaptertest.LoadClients)
	for i := range sessions {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := s.Connect(ctx, st, nil)
		must(t, err)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0.0"}, nil).Connect(ctx, ct, nil)
		must(t, err)
		sessions[i] = session{cs, ss}
	}

	tools := adaptertest.LoadTools()
	results := make([]adaptertest.Result, adaptertest.LoadCalls(raceEnabled))
	adaptertest.RunLoad(t, len(results), func(c, i int) {
		callCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
		results[i], _ = call(callCtx, sessions[c].cs, adaptertest.Case{Tool: tools[i%len(tools)].Name})
		cancel()
	})
	adaptertest.CheckLoad(t, results, &log, rep)

	for _, sess := range sessions {
		sess.cs.Close()
		sess.ss.Wait()
	}
	// mcperr starts no goroutine: once the sessions end, none is left.
	goleak.VerifyNone(t, leaks)
}

// requestTimeout is a server's own receiving middleware that gives every
// tool call a deadline of d: the request's own deadline.
func requestTimeout(d time.Duration) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "tools/call" {
				return next(ctx, method, req)
			}
			ctx, cancel := context.WithTimeout(ctx, d)
			defer cancel()
			return next(ctx, method, req)
		}
	}
}

// loadServer returns a server with tool "ok" and tool "x" of h, added
// through e, logging into log.
func loadServer(t *testing.T, e hostileEntry, log *signalLog, h mcp.ToolHandlerFor[map[string]any, any]) *mcp.Server {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "ctx", Version: "1.0.0"}, nil)
	if e.installed {
		p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithRegistry(adaptertest.Registry()))
		must(t, err)
		must(t, gosdk.Install(s, p))
	} else {
		old := slog.Default()
		slog.SetDefault(log.Logger())
		t.Cleanup(func() { slog.SetDefault(old) })
	}
	e.add(t, s, "x", h, nil)
	e.add(t, s, "ok", hostileHandler(nil), nil)
	return s
}

// failureRecords returns the "tool call failed" records in recs.
func failureRecords(recs []map[string]any) []map[string]any {
	var out []map[string]any
	for _, rec := range recs {
		if rec["msg"] == "tool call failed" {
			out = append(out, rec)
		}
	}
	return out
}

// TestLoadClientCancels protects one CANCELLED record below error level, without a ref, for a call the client cancels mid-call, and a server that keeps serving.
func TestLoadClientCancels(t *testing.T) {
	for _, e := range hostileEntries {
		t.Run(e.name, func(t *testing.T) {
			log := newSignalLog()
			started := make(chan struct{})
			cs := connectBounded(t, loadServer(t, e, log, hostileHandler(adaptertest.BlockUntilDone(started))))
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				<-started
				cancel()
			}()
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "x"})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("client got %v, want context.Canceled", err)
			}
			var recs []map[string]any
			for len(recs) == 0 {
				log.wait(t) // the server learns of the cancellation after the client
				recs = failureRecords(log.Records(t))
			}
			if len(recs) != 1 || recs[0]["code"] != string(codes.Cancelled) || recs[0]["level"] == "ERROR" || recs[0]["ref"] != nil {
				t.Errorf("records %v, want one CANCELLED record below error level, without a ref", recs)
			}
			checkServing(t, cs)
			if recs := failureRecords(log.Records(t)); len(recs) != 0 {
				t.Errorf("more records: %v", recs)
			}
		})
	}
}

// TestLoadDeadline protects TIMEOUT, retryable, with a ref in exactly one
// ERROR record, for a request whose own deadline, set by the server's own
// middleware around every call, expires, and a server that keeps serving.
func TestLoadDeadline(t *testing.T) {
	for _, e := range hostileEntries {
		t.Run(e.name, func(t *testing.T) {
			log := newSignalLog()
			s := loadServer(t, e, log, hostileHandler(adaptertest.BlockUntilDone(nil)))
			s.AddReceivingMiddleware(requestTimeout(20 * time.Millisecond)) // added last: outermost
			cs := connectBounded(t, s)
			r := callBounded(t, cs, "x", nil)
			adaptertest.CheckTimeout(t, r, failureRecords(log.Records(t)), e.installed)
			checkServing(t, cs)
		})
	}
}
