package gosdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/adaptertest"
	"github.com/mcperr/mcperr/toolerr"
)

// loadCalls is the number of calls TestLoad makes: 10,000, or 1,000 under
// the race detector or -short.
func loadCalls() int {
	if raceEnabled || testing.Short() {
		return 1000
	}
	return 10000
}

const (
	loadSessions = 8  // client sessions of TestLoad
	loadWorkers  = 16 // concurrent callers per session
)

// loadTools are the tools of TestLoad, in the order calls cycle through
// them, and what each must answer: text, or "" for a masked error.
var loadTools = []struct {
	name string
	code codes.Code // "" for success
	text string     // "" for the masked text
}{
	{"ok", "", "all good"},
	{"tool_error", codes.ToolFailed, "Out of stock."},
	{"internal", codes.InternalError, ""},
	{"panic", codes.InternalError, ""},
	{"not_found", codes.NotFound, "Order not found: ord_1"},
}

// hexRefRE finds what may be refs in a log record.
var hexRefRE = regexp.MustCompile(`[0-9a-f]{16}`)

// refReporter records the ref of every incident.
type refReporter struct {
	mu   sync.Mutex
	refs map[string]int
}

func (r *refReporter) Report(_ context.Context, in filter.Incident) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.refs == nil {
		r.refs = map[string]int{}
	}
	r.refs[in.Ref]++
}

// TestLoad protects unique refs, one record and one report per failure, no canary and no leaked goroutine under 10,000 concurrent mixed calls.
func TestLoad(t *testing.T) {
	leaks := goleak.IgnoreCurrent() // before the server starts
	var log adaptertest.Log
	rep := &refReporter{}
	p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithReporter(rep))
	must(t, err)
	s := mcp.NewServer(&mcp.Implementation{Name: "load", Version: "1.0.0"}, nil)
	must(t, gosdk.Install(s, p))
	mcp.AddTool(s, &mcp.Tool{Name: "ok"}, hostileHandler(nil))
	must(t, gosdk.AddTool(s, &mcp.Tool{Name: "tool_error"}, hostileHandler(fails(toolerr.New("Out of stock.").
		WithCause(errors.New("stock db: "+hostileCanary))))))
	mcp.AddTool(s, &mcp.Tool{Name: "internal"}, hostileHandler(func(context.Context) error {
		return fmt.Errorf("dial 10.0.0.5: password=%s refused", hostileCanary)
	}))
	must(t, gosdk.AddTool(s, &mcp.Tool{Name: "panic"}, hostileHandler(panicsWith("nil map write: "+hostileCanary))))
	mcp.AddTool(s, &mcp.Tool{Name: "not_found"}, gosdk.Wrap(hostileHandler(fails(domain.NewNotFound("Order", "ord_1")))))

	ctx := context.Background()
	type session struct {
		cs *mcp.ClientSession
		ss *mcp.ServerSession
	}
	sessions := make([]session, loadSessions)
	for i := range sessions {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := s.Connect(ctx, st, nil)
		must(t, err)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0.0"}, nil).Connect(ctx, ct, nil)
		must(t, err)
		sessions[i] = session{cs, ss}
	}

	n := loadCalls()
	results := make([]adaptertest.Result, n)
	var wg sync.WaitGroup
	start := time.Now()
	for si, sess := range sessions {
		next := make(chan int)
		for range loadWorkers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					callCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
					results[i], _ = call(callCtx, sess.cs, adaptertest.Case{Tool: loadTools[i%len(loadTools)].name})
					cancel()
				}
			}()
		}
		go func() {
			defer close(next)
			for i := si; i < n; i += loadSessions {
				next <- i
			}
		}()
	}
	wg.Wait()
	t.Logf("%d calls over %d sessions in %v", n, loadSessions, time.Since(start))

	refs := map[string]int{} // ref -> index of its call
	for i, r := range results {
		tool := loadTools[i%len(loadTools)]
		if r.ProtocolErr != nil {
			t.Fatalf("call %d (%s): %v", i, tool.name, r.ProtocolErr)
		}
		if strings.Contains(string(r.Raw), hostileCanary) {
			t.Fatalf("call %d (%s): the canary reached the client: %s", i, tool.name, r.Raw)
		}
		if len(r.Texts) == 0 {
			t.Fatalf("call %d (%s): no text: %s", i, tool.name, r.Raw)
		}
		if tool.code == "" {
			if r.IsError || r.Texts[0] != tool.text {
				t.Fatalf("call %d (ok) failed: %s", i, r.Raw)
			}
			continue
		}
		env := r.Envelope()
		if !r.IsError || env == nil || env["code"] != string(tool.code) {
			t.Fatalf("call %d (%s): %s, want an isError result with code %s", i, tool.name, r.Raw, tool.code)
		}
		if tool.text != "" {
			if r.Texts[0] != tool.text {
				t.Fatalf("call %d (%s): text %q, want %q", i, tool.name, r.Texts[0], tool.text)
			}
			continue
		}
		m := maskedTextRE.FindStringSubmatch(r.Texts[0])
		if m == nil || m[1] != tool.name || env["ref"] != m[2] {
			t.Fatalf("call %d (%s): text %q, envelope ref %v: want the masked text and the same ref", i, tool.name, r.Texts[0], env["ref"])
		}
		if j, dup := refs[m[2]]; dup {
			t.Fatalf("calls %d and %d got the same ref %s", j, i, m[2])
		}
		refs[m[2]] = i
	}

	// Every failure is logged once; each ref is in exactly one record.
	records := log.Records(t)
	if want := n - (n+len(loadTools)-1)/len(loadTools); len(records) != want {
		t.Errorf("%d records, want one per failing call: %d", len(records), want)
	}
	inRecords := map[string]int{}
	for _, rec := range records {
		b, _ := json.Marshal(rec)
		seen := map[string]bool{}
		for _, h := range hexRefRE.FindAllString(string(b), -1) {
			if _, ok := refs[h]; ok && !seen[h] {
				seen[h] = true
				inRecords[h]++
			}
		}
	}
	rep.mu.Lock()
	reported := rep.refs
	rep.mu.Unlock()
	for ref, i := range refs {
		if inRecords[ref] != 1 {
			t.Errorf("ref %s of call %d is in %d records, want 1", ref, i, inRecords[ref])
		}
		if reported[ref] != 1 {
			t.Errorf("ref %s of call %d reported %d times, want once", ref, i, reported[ref])
		}
	}
	if len(reported) != len(refs) {
		t.Errorf("%d refs reported, %d masked failures", len(reported), len(refs))
	}

	for _, sess := range sessions {
		sess.cs.Close()
		sess.ss.Wait()
	}
	// Workers that wait for the next call are kept on purpose, a few of them
	// for a few seconds (internal/isolate); anything else is a leak.
	goleak.VerifyNone(t, leaks, goleak.IgnoreTopFunction("github.com/mcperr/mcperr/internal/isolate.worker"))
}

// withTimeout gives the handler h a context that expires after d.
func withTimeout(d time.Duration, h mcp.ToolHandlerFor[map[string]any, any]) mcp.ToolHandlerFor[map[string]any, any] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in map[string]any) (*mcp.CallToolResult, any, error) {
		ctx, cancel := context.WithTimeout(ctx, d)
		defer cancel()
		return h(ctx, req, in)
	}
}

// blockUntilDone returns a behaviour that closes started, if not nil, and
// returns its context's error, with the canary, once the context is done.
func blockUntilDone(started chan<- struct{}) behaviour {
	return func(ctx context.Context) error {
		if started != nil {
			close(started)
		}
		<-ctx.Done()
		return fmt.Errorf("query %s: %w", hostileCanary, ctx.Err())
	}
}

// loadServer returns a server with tool "ok" and tool "x" of h, added
// through e, logging into log.
func loadServer(t *testing.T, e hostileEntry, log *adaptertest.Log, h mcp.ToolHandlerFor[map[string]any, any]) *mcp.Server {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "ctx", Version: "1.0.0"}, nil)
	if e.installed {
		must(t, gosdk.Install(s, newPipeline(t, log)))
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
			var log adaptertest.Log
			started := make(chan struct{})
			cs := connectBounded(t, loadServer(t, e, &log, hostileHandler(blockUntilDone(started))))
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
			for deadline := time.Now().Add(5 * time.Second); len(recs) == 0 && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
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

// TestLoadDeadline protects TIMEOUT, retryable, with a ref in exactly one ERROR record, for a handler whose own deadline expires, and a server that keeps serving.
func TestLoadDeadline(t *testing.T) {
	for _, e := range hostileEntries {
		t.Run(e.name, func(t *testing.T) {
			var log adaptertest.Log
			cs := connectBounded(t, loadServer(t, e, &log, withTimeout(20*time.Millisecond, hostileHandler(blockUntilDone(nil)))))
			r := callBounded(t, cs, "x", nil)
			if r.ProtocolErr != nil || !r.IsError || strings.Contains(string(r.Raw), hostileCanary) {
				t.Fatalf("got %v %s, want an isError result without the canary", r.ProtocolErr, r.Raw)
			}
			if want := "The tool did not finish in time. Try again, perhaps with a smaller request."; len(r.Texts) != 1 || r.Texts[0] != want {
				t.Errorf("texts %q, want %q", r.Texts, want)
			}
			recs := failureRecords(log.Records(t))
			if len(recs) != 1 || recs[0]["code"] != string(codes.Timeout) || recs[0]["level"] != "ERROR" {
				t.Fatalf("records %v, want one TIMEOUT record at error level", recs)
			}
			ref, _ := recs[0]["ref"].(string)
			if !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(ref) {
				t.Errorf("record ref %q, want 16 hex digits", ref)
			}
			env := r.Envelope()
			switch {
			case env == nil && e.installed:
				t.Errorf("no envelope: %s", r.Raw)
			case env != nil:
				if env["code"] != string(codes.Timeout) || env["retryable"] != true || env["ref"] != ref {
					t.Errorf("envelope %v, want TIMEOUT, retryable, ref %s", env, ref)
				}
			}
			checkServing(t, cs)
		})
	}
}
