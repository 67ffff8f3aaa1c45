package mcpgo_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.uber.org/goleak"

	"github.com/mcperr/mcperr/adapters/mcpgo"
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
	loadClients = 8  // in-process clients of TestLoad
	loadWorkers = 16 // concurrent callers per client
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

// TestLoad protects unique refs, one record and one report per failure, no canary and no leaked goroutine under 10,000 concurrent mixed calls.
func TestLoad(t *testing.T) {
	leaks := goleak.IgnoreCurrent() // before the server starts
	var log adaptertest.Log
	rep := &refReporter{}
	s := server.NewMCPServer("load", "1.0.0")
	if err := mcpgo.Install(s, testPipeline(log.Logger(), filter.WithReporter(rep))); err != nil {
		t.Fatal(err)
	}
	s.AddTool(mcp.NewTool("ok"), hostileHandler(nil))
	if err := mcpgo.AddTool(s, mcp.NewTool("tool_error"), hostileHandler(fails(toolerr.New("Out of stock.").
		WithCause(errors.New("stock db: "+hostileCanary))))); err != nil {
		t.Fatal(err)
	}
	s.AddTool(mcp.NewTool("internal"), hostileHandler(func(context.Context) error {
		return fmt.Errorf("dial 10.0.0.5: password=%s refused", hostileCanary)
	}))
	if err := mcpgo.AddTool(s, mcp.NewTool("panic"), hostileHandler(panicsWith("nil map write: "+hostileCanary))); err != nil {
		t.Fatal(err)
	}
	s.AddTool(mcp.NewTool("not_found"), mcpgo.Wrap(hostileHandler(fails(domain.NewNotFound("Order", "ord_1")))))

	clients := make([]*client.Client, loadClients)
	for i := range clients {
		clients[i] = startInProcess(t, s)
	}
	log.Records(t) // forget what connecting logged

	n := loadCalls()
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	answers := make([]answer, n)
	var wg sync.WaitGroup
	start := time.Now()
	for ci, cl := range clients {
		next := make(chan int)
		for range loadWorkers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
					req := mcp.CallToolRequest{}
					req.Params.Name = loadTools[i%len(loadTools)].name
					answers[i].res, answers[i].err = cl.CallTool(ctx, req)
					cancel()
				}
			}()
		}
		go func() {
			defer close(next)
			for i := ci; i < n; i += loadClients {
				next <- i
			}
		}()
	}
	wg.Wait()
	t.Logf("%d calls from %d clients in %v", n, loadClients, time.Since(start))

	refs := map[string]int{} // ref -> index of its call
	for i, a := range answers {
		tool := loadTools[i%len(loadTools)]
		r := resultOf(t, a.res, a.err)
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

	for _, cl := range clients {
		if err := cl.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	}
	// Workers that wait for the next call are kept on purpose, a few of them
	// for a few seconds (internal/isolate); anything else is a leak.
	goleak.VerifyNone(t, leaks, goleak.IgnoreTopFunction("github.com/mcperr/mcperr/internal/isolate.worker"))
}

// withTimeout gives the handler h a context that expires after d.
func withTimeout(d time.Duration, h server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx, cancel := context.WithTimeout(ctx, d)
		defer cancel()
		return h(ctx, req)
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
// through e, logging into log, and an in-process client of it.
func loadServer(t *testing.T, e hostileEntry, log *adaptertest.Log, h server.ToolHandlerFunc) *client.Client {
	t.Helper()
	s := server.NewMCPServer("ctx", "1.0.0")
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

// TestLoadClientCancels protects CANCELLED, retryable, without a ref, logged once below error level, for a call the client cancels mid-call, and a server that keeps serving.
func TestLoadClientCancels(t *testing.T) {
	for _, e := range hostileEntries {
		t.Run(e.name, func(t *testing.T) {
			var log adaptertest.Log
			started := make(chan struct{})
			cl := loadServer(t, e, &log, hostileHandler(blockUntilDone(started)))
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
			if r.ProtocolErr != nil || !r.IsError || strings.Contains(string(r.Raw), hostileCanary) {
				t.Fatalf("got %v %s, want an isError result without the canary", r.ProtocolErr, r.Raw)
			}
			if want := "The request was cancelled before the tool finished."; len(r.Texts) != 1 || r.Texts[0] != want {
				t.Errorf("texts %q, want %q", r.Texts, want)
			}
			if env := r.Envelope(); env == nil || env["code"] != string(codes.Cancelled) || env["retryable"] != true || env["ref"] != nil {
				t.Errorf("envelope %v, want CANCELLED, retryable, no ref", env)
			}
			if recs := log.Records(t); len(recs) != 1 || recs[0]["code"] != string(codes.Cancelled) || recs[0]["level"] == "ERROR" {
				t.Errorf("records %v, want one CANCELLED record below error level", recs)
			}
			checkServing(t, cl)
		})
	}
}

// TestLoadDeadline protects TIMEOUT, retryable, with a ref in exactly one ERROR record, for a handler whose own deadline expires, and a server that keeps serving.
func TestLoadDeadline(t *testing.T) {
	for _, e := range hostileEntries {
		t.Run(e.name, func(t *testing.T) {
			var log adaptertest.Log
			cl := loadServer(t, e, &log, withTimeout(20*time.Millisecond, hostileHandler(blockUntilDone(nil))))
			r := guardedCall(t, cl, "x", nil)
			if r.ProtocolErr != nil || !r.IsError || strings.Contains(string(r.Raw), hostileCanary) {
				t.Fatalf("got %v %s, want an isError result without the canary", r.ProtocolErr, r.Raw)
			}
			if want := "The tool did not finish in time. Try again, perhaps with a smaller request."; len(r.Texts) != 1 || r.Texts[0] != want {
				t.Errorf("texts %q, want %q", r.Texts, want)
			}
			recs := log.Records(t)
			if len(recs) != 1 || recs[0]["code"] != string(codes.Timeout) || recs[0]["level"] != "ERROR" {
				t.Fatalf("records %v, want one TIMEOUT record at error level", recs)
			}
			ref, _ := recs[0]["ref"].(string)
			if !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(ref) {
				t.Errorf("record ref %q, want 16 hex digits", ref)
			}
			if env := r.Envelope(); env == nil || env["code"] != string(codes.Timeout) || env["retryable"] != true || env["ref"] != ref {
				t.Errorf("envelope %v, want TIMEOUT, retryable, ref %s", env, ref)
			}
			checkServing(t, cl)
		})
	}
}
