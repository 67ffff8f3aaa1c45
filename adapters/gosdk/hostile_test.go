package gosdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

// hostileEntry is one way a tool reaches a server with mcperr.
type hostileEntry struct {
	name string
	// installed: Install gave the server the test's pipeline, so results
	// carry the envelope and its filters, reporter and logger apply.
	// Otherwise the tool runs with the default configuration, which logs
	// to slog.Default, and filters are the tool's own.
	installed bool
	add       func(t *testing.T, s *mcp.Server, name string, h mcp.ToolHandlerFor[map[string]any, any], fs []filter.Filter)
}

var hostileEntries = []hostileEntry{
	{"Install+mcp.AddTool", true, func(_ *testing.T, s *mcp.Server, name string, h mcp.ToolHandlerFor[map[string]any, any], _ []filter.Filter) {
		mcp.AddTool(s, &mcp.Tool{Name: name}, h)
	}},
	{"Install+gosdk.AddTool", true, func(t *testing.T, s *mcp.Server, name string, h mcp.ToolHandlerFor[map[string]any, any], _ []filter.Filter) {
		must(t, gosdk.AddTool(s, &mcp.Tool{Name: name}, h))
	}},
	{"Install+gosdk.Wrap", true, func(_ *testing.T, s *mcp.Server, name string, h mcp.ToolHandlerFor[map[string]any, any], _ []filter.Filter) {
		mcp.AddTool(s, &mcp.Tool{Name: name}, gosdk.Wrap(h))
	}},
}

// hostileHandler runs do as a typed handler; it answers "all good" when do
// returns nil.
func hostileHandler(do adaptertest.HostileBehaviour) mcp.ToolHandlerFor[map[string]any, any] {
	return func(ctx context.Context, _ *mcp.CallToolRequest, _ map[string]any) (*mcp.CallToolResult, any, error) {
		if do != nil {
			if err := do(ctx); err != nil {
				return nil, nil, err
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "all good"}}}, nil, nil
	}
}

// TestHostile protects the core promise against hostile handlers, errors, filters, reporters, renderers, observers and log handlers: one isError result, no canary, the ref in one record and at most one report, and the server keeps serving; a runtime.Goexit anywhere leaves its call unanswered, logged once with a ref.
func TestHostile(t *testing.T) {
	for _, e := range hostileEntries {
		for _, c := range adaptertest.HostileCases() {
			t.Run(e.name+"/"+c.Name, func(t *testing.T) {
				if why := c.SkipFor[e.name]; why != "" {
					t.Skip(why)
				}
				if !e.installed {
					// Documented: without Install the SDK rebuilds the
					// result of a typed handler, so no hint blocks.
					c.Want.Hints = nil
				}
				run := runHostile(t, e, c)
				adaptertest.CheckHostile(t, "x", c.Want, run)
			})
		}
	}
}

// runHostile sets up a server with tool "x" doing c and tool "ok" through
// entry e, calls "x", then checks that "ok" still succeeds.
func runHostile(t *testing.T, e hostileEntry, c adaptertest.HostileCase) adaptertest.HostileRun {
	t.Helper()
	var stderr *adaptertest.StderrCapture
	if c.CapturesStderr() {
		stderr = adaptertest.CaptureStderr(t) // before any pipeline is built
	}
	var log adaptertest.Log
	logger := log.Logger()
	var broken *adaptertest.BrokenHandler
	if c.LogMode != "" {
		broken = &adaptertest.BrokenHandler{Mode: c.LogMode}
		logger = slog.New(broken)
	}
	rep := &adaptertest.Reports{Inner: c.Report}
	s := mcp.NewServer(&mcp.Implementation{Name: "hostile", Version: "1.0.0"}, nil)
	if e.installed {
		p, err := filter.New(append([]filter.Option{filter.WithLogger(logger), filter.WithRegistry(adaptertest.Registry()),
			filter.WithFilters(c.Filters...), filter.WithObserver(rep.Report)}, c.Options...)...)
		must(t, err)
		must(t, gosdk.Install(s, p))
	} else {
		old := slog.Default()
		slog.SetDefault(logger)
		t.Cleanup(func() { slog.SetDefault(old) })
	}
	e.add(t, s, "x", hostileHandler(c.Do), c.Filters)
	e.add(t, s, "ok", hostileHandler(nil), nil)
	var cs *mcp.ClientSession
	var r adaptertest.Result
	if c.Want.NoAnswer {
		cs = connectAfterGoexit(t, s)
		r = callUnanswered(cs, "x")
	} else {
		cs = connectBounded(t, s)
		r = callBounded(t, cs, "x", nil)
	}
	run := adaptertest.HostileRun{R: r, Records: log.Records(t), WantEnvelope: e.installed, Reports: rep.Got()}
	if broken != nil {
		run.Handed = broken.Handed()
	}
	run.Fallback = stderr.Lines(t)
	checkServing(t, cs)
	return run
}

// callUnanswered calls tool, which must go unanswered, and gives up after
// adaptertest.NoAnswerWait.
func callUnanswered(cs *mcp.ClientSession, tool string) adaptertest.Result {
	return adaptertest.CallOrNoAnswer(adaptertest.NoAnswerWait, func(ctx context.Context) adaptertest.Result {
		r, _ := call(ctx, cs, adaptertest.Case{Tool: tool})
		return r
	})
}

// connectBounded is the harness's connect, except that the end of the test
// waits at most five seconds for the server session to end, so that a call
// left unanswered cannot hang the suite.
func connectBounded(t *testing.T, s *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	must(t, err)
	c := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0.0"}, nil)
	cs, err := c.Connect(ctx, ct, nil)
	must(t, err)
	listTools(t, cs)
	t.Cleanup(func() {
		cs.Close()
		done := make(chan struct{})
		go func() {
			ss.Wait()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Errorf("the server session did not end: a call is still running")
		}
	})
	return cs
}

// callBounded calls tool with args, giving up after adaptertest.HostileCallTimeout.
func callBounded(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) adaptertest.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), adaptertest.HostileCallTimeout)
	defer cancel()
	r, _ := call(ctx, cs, adaptertest.Case{Tool: tool, Args: args})
	return r
}

// checkServing checks that the server still answers a successful call.
func checkServing(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	adaptertest.CheckServing(t, callBounded(t, cs, "ok", nil))
}

// TestHostileErrorPanicsOnce protects "logged once, with the ref the client got" for an error whose Error panics the first time only.
func TestHostileErrorPanicsOnce(t *testing.T) {
	for _, e := range hostileEntries {
		t.Run(e.name, func(t *testing.T) {
			var log adaptertest.Log
			s := mcp.NewServer(&mcp.Implementation{Name: "flaky", Version: "1.0.0"}, nil)
			if e.installed {
				must(t, gosdk.Install(s, newPipeline(t, &log)))
			} else {
				old := slog.Default()
				slog.SetDefault(log.Logger())
				t.Cleanup(func() { slog.SetDefault(old) })
			}
			flaky := &adaptertest.FlakyError{}
			e.add(t, s, "x", hostileHandler(adaptertest.Fails(flaky)), nil)
			e.add(t, s, "ok", hostileHandler(nil), nil)
			cs := connectBounded(t, s)
			r := callBounded(t, cs, "x", nil)
			run := adaptertest.HostileRun{R: r, Records: log.Records(t), WantEnvelope: e.installed}
			adaptertest.CheckHostile(t, "x", adaptertest.HostileWant{}, run)
			var failed []map[string]any
			for _, rec := range run.Records {
				if rec["msg"] == "tool call failed" {
					failed = append(failed, rec)
				}
			}
			if m := adaptertest.MaskedTextRE.FindStringSubmatch(r.Texts[0]); len(failed) == 1 && m != nil && failed[0]["ref"] != m[2] {
				t.Errorf("the record's ref %v is not the client's %s", failed[0]["ref"], m[2])
			}
			_ = flaky.Error() // works now: nothing may log again
			checkServing(t, cs)
			if recs := log.Records(t); len(recs) != 0 {
				t.Errorf("records after the call: %v", recs)
			}
		})
	}
}

// TestHostileStreamableHTTP protects, over streamable HTTP, a masked answer, not a dropped connection, to panic(http.ErrAbortHandler), and for runtime.Goexit no answer but one record with a ref and a server that goes on serving.
func TestHostileStreamableHTTP(t *testing.T) {
	for _, e := range hostileEntries {
		for _, c := range adaptertest.HostileHTTPCases() {
			t.Run(e.name+"/"+c.Name, func(t *testing.T) {
				var log adaptertest.Log
				s := mcp.NewServer(&mcp.Implementation{Name: "hostile-http", Version: "1.0.0"}, nil)
				if e.installed {
					must(t, gosdk.Install(s, newPipeline(t, &log)))
				} else {
					old := slog.Default()
					slog.SetDefault(log.Logger())
					t.Cleanup(func() { slog.SetDefault(old) })
				}
				e.add(t, s, "x", hostileHandler(c.Do), nil)
				e.add(t, s, "ok", hostileHandler(nil), nil)
				srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
				if !c.Want.NoAnswer {
					defer srv.Close()
				}
				cl := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0.0"}, nil)
				ctx, cancel := context.WithTimeout(context.Background(), adaptertest.HostileCallTimeout)
				defer cancel()
				cs, err := cl.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
				must(t, err)
				defer cs.Close()
				var r adaptertest.Result
				if c.Want.NoAnswer {
					r = callUnanswered(cs, "x")
				} else {
					r = callBounded(t, cs, "x", nil)
				}
				adaptertest.CheckHostile(t, "x", c.Want, adaptertest.HostileRun{R: r, Records: log.Records(t), WantEnvelope: e.installed})
				checkServing(t, cs)
				if c.Want.NoAnswer {
					// The SDK counts the unanswered call as in flight for as
					// long as the session lives: the DELETE that ends it
					// would never be answered (the client gives up after 5
					// seconds), and srv.Close would wait for it forever.
					// Refuse new connections and drop the open ones instead.
					srv.Listener.Close()
					srv.CloseClientConnections()
				}
			})
		}
	}
}

// TestHostileRawHandlerRefusedArguments protects VALIDATION_ERROR for a raw SDK handler given arguments that miss its schema, with its own SetError error kept in the one record.
func TestHostileRawHandlerRefusedArguments(t *testing.T) {
	var log adaptertest.Log
	s := mcp.NewServer(&mcp.Implementation{Name: "raw", Version: "1.0.0"}, nil)
	must(t, gosdk.Install(s, newPipeline(t, &log)))
	schema := json.RawMessage(`{"type":"object","properties":{"n":{"type":"number"}},"required":["n"]}`)
	s.AddTool(&mcp.Tool{Name: "raw", InputSchema: schema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res := &mcp.CallToolResult{}
		res.SetError(errors.New("handler failed: " + adaptertest.HostileCanary))
		return res, nil
	})
	s.AddTool(&mcp.Tool{Name: "ok", InputSchema: adaptertest.EmptySchema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "all good"}}}, nil
	})
	cs := connectBounded(t, s)
	r := callBounded(t, cs, "raw", map[string]any{"m": 1})
	if r.ProtocolErr != nil || !r.IsError || strings.Contains(string(r.Raw), adaptertest.HostileCanary) {
		t.Fatalf("got %v %s, want an isError result without the canary", r.ProtocolErr, r.Raw)
	}
	if env := r.Envelope(); env == nil || env["code"] != string(codes.ValidationError) {
		t.Errorf("envelope %v, want VALIDATION_ERROR", r.Envelope())
	}
	if len(r.Texts) == 0 || r.Texts[0] != "Validation failed for n: is required" {
		t.Errorf("texts %q, want the validation message for n", r.Texts)
	}
	recs := log.Records(t)
	if len(recs) != 1 {
		t.Fatalf("%d records, want 1: %v", len(recs), recs)
	}
	if b, _ := json.Marshal(recs[0]); !strings.Contains(string(b), "handler failed") {
		t.Errorf("the record hides the handler's own error: %s", b)
	}
	checkServing(t, cs)
}
