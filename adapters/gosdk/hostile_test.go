package gosdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	crdb "github.com/cockroachdb/errors"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/adaptertest"
	"github.com/mcperr/mcperr/toolerr"
)

// hostileCanary is planted in every error text and panic value of the
// hostile tests; no byte a client receives may hold it.
const hostileCanary = "hunter2-CANARY-hostile"

// hostileCallTimeout bounds every client call of the hostile tests, so that
// a call left unanswered fails its test instead of hanging the suite.
const hostileCallTimeout = 5 * time.Second

// maskedTextRE is the one text of a masked error.
var maskedTextRE = regexp.MustCompile(`^Internal error in tool "([^"]*)" \(ref: ([0-9a-f]{16})\)\.$`)

// hostileServeEnv, when set, makes the test binary serve one hostile server
// over stdio instead of running the tests: for failures that, unfixed, take
// the whole process down.
const hostileServeEnv = "MCPERR_GOSDK_HOSTILE_SERVE"

func init() {
	if os.Getenv(hostileServeEnv) == "wrap-default-logger-panics" {
		os.Exit(serveWrapDefaultLoggerPanics())
	}
}

// derefError's Error dereferences its receiver: a typed nil of it panics.
type derefError struct{ msg string }

func (e *derefError) Error() string { return e.msg }

// flakyError's Error panics the first time it is called, then works.
type flakyError struct {
	mu    sync.Mutex
	calls int
}

func (e *flakyError) Error() string {
	e.mu.Lock()
	e.calls++
	n := e.calls
	e.mu.Unlock()
	if n == 1 {
		panic("Error() panicked: " + hostileCanary)
	}
	return "flaky: " + hostileCanary
}

// selfError unwraps to itself.
type selfError struct{}

func (e *selfError) Error() string { return "self: " + hostileCanary }
func (e *selfError) Unwrap() error { return e }

// pairError is one of two errors that unwrap to each other.
type pairError struct {
	name  string
	other *pairError
}

func (e *pairError) Error() string { return "pair " + e.name + ": " + hostileCanary }
func (e *pairError) Unwrap() error { return e.other }

// joinSelfError's Unwrap() []error holds itself.
type joinSelfError struct{}

func (e *joinSelfError) Error() string   { return "join self: " + hostileCanary }
func (e *joinSelfError) Unwrap() []error { return []error{e} }

// layerError is one layer of a long chain.
type layerError struct{ next error }

func (e *layerError) Error() string { return "layer: " + e.next.Error() }
func (e *layerError) Unwrap() error { return e.next }

// hintedError is a third-party error that carries a hint meant for its own
// callers, not for a model.
type hintedError struct{}

func (e *hintedError) Error() string     { return "driver: " + hostileCanary }
func (e *hintedError) ErrorHint() string { return "secret driver hint: " + hostileCanary }

// newPair returns one of two errors that unwrap to each other.
func newPair() error {
	a, b := &pairError{name: "a"}, &pairError{name: "b"}
	a.other, b.other = b, a
	return a
}

// longChain returns a chain of n wrappers around a plain error.
func longChain(n int) error {
	var err error = errors.New("bottom: " + hostileCanary)
	for range n {
		err = &layerError{next: err}
	}
	return err
}

// brokenHandler is a slog.Handler that fails every record it is handed,
// after keeping its text: it panics, returns an error or ends its
// goroutine.
type brokenHandler struct {
	mode string // "panic", "error" or "goexit"
	mu   sync.Mutex
	seen []string
}

func (h *brokenHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *brokenHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *brokenHandler) WithGroup(string) slog.Handler            { return h }

func (h *brokenHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	h.mu.Lock()
	h.seen = append(h.seen, b.String())
	h.mu.Unlock()
	switch h.mode {
	case "panic":
		panic("log handler broke: " + hostileCanary)
	case "goexit":
		runtime.Goexit()
	}
	return errors.New("log handler failed: " + hostileCanary)
}

// handed returns the texts of the records h was handed.
func (h *brokenHandler) handed() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.seen...)
}

// reports records every incident handed to the reporter, then runs inner.
type reports struct {
	mu    sync.Mutex
	refs  []string
	inner func(filter.Incident)
}

func (r *reports) Report(_ context.Context, in filter.Incident) {
	r.mu.Lock()
	r.refs = append(r.refs, in.Ref)
	r.mu.Unlock()
	if r.inner != nil {
		r.inner(in)
	}
}

func (r *reports) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.refs...)
}

// stderrCapture holds what the pipeline's last-resort handler, which writes
// to standard error, wrote during a test.
type stderrCapture struct{ f *os.File }

// captureStderr points os.Stderr at a file until the test ends. A pipeline
// built meanwhile writes its last-resort records there.
func captureStderr(t *testing.T) *stderrCapture {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	must(t, err)
	old := os.Stderr
	os.Stderr = f
	t.Cleanup(func() {
		os.Stderr = old
		f.Close()
	})
	return &stderrCapture{f: f}
}

// lines returns the non-empty lines written so far.
func (c *stderrCapture) lines(t *testing.T) []string {
	t.Helper()
	if c == nil {
		return nil
	}
	b, err := os.ReadFile(c.f.Name())
	must(t, err)
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

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
	{"Wrap without Install", false, func(_ *testing.T, s *mcp.Server, name string, h mcp.ToolHandlerFor[map[string]any, any], fs []filter.Filter) {
		var opts []gosdk.Option
		if len(fs) > 0 {
			opts = append(opts, gosdk.WithFilters(fs...))
		}
		mcp.AddTool(s, &mcp.Tool{Name: name}, gosdk.Wrap(h, opts...))
	}},
}

// behaviour is what a hostile tool does: return an error, or panic, or end
// its goroutine. A nil behaviour succeeds.
type behaviour func(ctx context.Context) error

// hostileHandler runs do as a typed handler; it answers "all good" when do
// returns nil.
func hostileHandler(do behaviour) mcp.ToolHandlerFor[map[string]any, any] {
	return func(ctx context.Context, _ *mcp.CallToolRequest, _ map[string]any) (*mcp.CallToolResult, any, error) {
		if do != nil {
			if err := do(ctx); err != nil {
				return nil, nil, err
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "all good"}}}, nil, nil
	}
}

// fails returns a behaviour that returns err.
func fails(err error) behaviour { return func(context.Context) error { return err } }

// panicsWith returns a behaviour that panics with v.
func panicsWith(v any) behaviour { return func(context.Context) error { panic(v) } }

// hostileWant is what the client must read for a failing call.
type hostileWant struct {
	// text is the exact first text block; empty means the masked text of
	// tool "x" with a ref.
	text string
	// code is the envelope's code, INTERNAL_ERROR when empty.
	code codes.Code
	// hints are the exact blocks after the first.
	hints []string
	// bounded asks only that the text be at most filter.MaxMessage bytes
	// long and the hints at most filter.MaxHints of filter.MaxHint bytes,
	// instead of exact texts.
	bounded bool
	// logHas are strings the failure's one record must hold.
	logHas []string
}

// hostileCase is one hostile failure.
type hostileCase struct {
	name string
	do   behaviour
	// filters are global on an installed server, the tool's own for Wrap.
	filters []filter.Filter
	// report runs inside the reporter of an installed server.
	report func(filter.Incident)
	// logMode breaks the logger: "panic", "error" or "goexit".
	logMode string
	want    hostileWant
	// skipFor maps entry names to why the case does not apply there.
	skipFor map[string]string
}

// typedNilFilter transforms every error into a typed nil whose Error
// panics.
var typedNilFilter = filter.Func(func(context.Context, filter.Call, error) (*filter.Response, error) {
	var e *derefError
	return nil, e
})

// panickingFilter panics on every error.
var panickingFilter = filter.Func(func(context.Context, filter.Call, error) (*filter.Response, error) {
	panic("filter broke: " + hostileCanary)
})

// goexitFilter ends its goroutine on every error.
var goexitFilter = filter.Func(func(context.Context, filter.Call, error) (*filter.Response, error) {
	runtime.Goexit()
	return nil, nil
})

const noReporter = "the default configuration of a tool wrapped without Install has no reporter"

// hostileCases are the failures every entry point must answer.
func hostileCases() []hostileCase {
	plain := fails(errors.New("db down: " + hostileCanary))
	var typedNil *derefError
	return []hostileCase{
		{name: "plain error", do: plain},
		{name: "typed nil whose Error panics", do: fails(typedNil)},
		{name: "Error panics once then works", do: func(context.Context) error { return &flakyError{} }},
		{name: "chain cyclic through Unwrap() error on itself", do: fails(&selfError{}), want: hostileWant{logHas: []string{"*gosdk_test.selfError"}}},
		{name: "chain cyclic through two errors", do: fails(newPair()), want: hostileWant{logHas: []string{"*gosdk_test.pairError"}}},
		{name: "chain cyclic through Unwrap() []error", do: fails(&joinSelfError{}), want: hostileWant{logHas: []string{"*gosdk_test.joinSelfError"}}},
		{name: "chain longer than MaxChain", do: fails(longChain(filter.MaxChain + 5)), want: hostileWant{logHas: []string{"*gosdk_test.layerError"}}},
		{name: "panic", do: panicsWith("nil map write: " + hostileCanary), want: hostileWant{logHas: []string{"nil map write", "goroutine"}}},
		{name: "panic with nil", do: panicsWith(nil), want: hostileWant{logHas: []string{"panic called with nil argument"}}},
		{name: "panic with http.ErrAbortHandler", do: panicsWith(http.ErrAbortHandler), want: hostileWant{logHas: []string{http.ErrAbortHandler.Error()}}},
		{name: "runtime.Goexit", do: func(context.Context) error { runtime.Goexit(); return nil },
			want: hostileWant{logHas: []string{"runtime.Goexit"}}},
		{name: "filter panics", do: plain, filters: []filter.Filter{panickingFilter}},
		{name: "filter turns the error into a typed nil whose Error panics", do: plain, filters: []filter.Filter{typedNilFilter}},
		{name: "filter calls runtime.Goexit", do: plain, filters: []filter.Filter{goexitFilter}},
		{name: "reporter panics", do: plain, report: func(filter.Incident) { panic("reporter broke: " + hostileCanary) },
			skipFor: map[string]string{"Wrap without Install": noReporter}},
		{name: "reporter calls runtime.Goexit", do: plain, report: func(filter.Incident) { runtime.Goexit() },
			skipFor: map[string]string{"Wrap without Install": noReporter}},
		{name: "log handler panics", do: plain, logMode: "panic",
			skipFor: map[string]string{"Wrap without Install": "covered in a child process by TestHostileWrapWithoutInstallDefaultLoggerPanics"}},
		{name: "log handler returns an error", do: plain, logMode: "error"},
		{name: "log handler calls runtime.Goexit", do: plain, logMode: "goexit"},
		{name: "issue link is not a hint", do: fails(crdb.WithIssueLink(errors.New("unsupported: "+hostileCanary),
			crdb.IssueLink{IssueURL: "https://example.invalid/" + hostileCanary, Detail: "detail " + hostileCanary}))},
		{name: "third-party ErrorHint deep in the chain", do: fails(fmt.Errorf("query: %w", &hintedError{}))},
		{name: "hint below a ToolError's cause", do: fails(toolerr.New("The order service failed.").
			WithCause(crdb.WithHint(errors.New("cause: "+hostileCanary), "secret hint: "+hostileCanary))),
			want: hostileWant{text: "The order service failed.", code: codes.ToolFailed}},
		{name: "hint at the top survives masking", do: fails(crdb.WithHint(errors.New("db: "+hostileCanary), "Retry later.")),
			want: hostileWant{hints: []string{"Hint: Retry later."}}},
		{name: "oversized message and hints", do: func(context.Context) error {
			e := toolerr.New(strings.Repeat("m", 3*filter.MaxMessage)).WithHint(strings.Repeat("h", 4*filter.MaxHint))
			return crdb.WithHint(crdb.WithHint(e, strings.Repeat("i", 2*filter.MaxHint)), strings.Repeat("j", 2*filter.MaxHint))
		}, want: hostileWant{code: codes.ToolFailed, bounded: true}},
	}
}

// hostileRun is what one hostile call gave.
type hostileRun struct {
	r         adaptertest.Result
	records   []map[string]any // the logger's records
	handed    []string         // records handed to a broken log handler
	fallback  []string         // the last-resort handler's lines
	reports   []string         // refs handed to the reporter
	installed bool
}

// TestHostile protects the core promise against hostile handlers, errors, filters, reporters and log handlers: one isError result, no canary, the ref in one record and at most one report, and the server keeps serving.
func TestHostile(t *testing.T) {
	for _, e := range hostileEntries {
		for _, c := range hostileCases() {
			t.Run(e.name+"/"+c.name, func(t *testing.T) {
				if why := c.skipFor[e.name]; why != "" {
					t.Skip(why)
				}
				if !e.installed {
					// Documented: without Install the SDK rebuilds the
					// result of a typed handler, so no hint blocks.
					c.want.hints = nil
				}
				run := runHostile(t, e, c)
				checkHostile(t, "x", c.want, run)
			})
		}
	}
}

// runHostile sets up a server with tool "x" doing c and tool "ok" through
// entry e, calls "x", then checks that "ok" still succeeds.
func runHostile(t *testing.T, e hostileEntry, c hostileCase) hostileRun {
	t.Helper()
	var stderr *stderrCapture
	if c.logMode != "" {
		stderr = captureStderr(t) // before any pipeline is built
	}
	var log adaptertest.Log
	logger := log.Logger()
	var broken *brokenHandler
	if c.logMode != "" {
		broken = &brokenHandler{mode: c.logMode}
		logger = slog.New(broken)
	}
	rep := &reports{inner: c.report}
	s := mcp.NewServer(&mcp.Implementation{Name: "hostile", Version: "1.0.0"}, nil)
	if e.installed {
		p, err := filter.New(filter.WithLogger(logger), filter.WithRegistry(adaptertest.Registry()),
			filter.WithFilters(c.filters...), filter.WithReporter(rep))
		must(t, err)
		must(t, gosdk.Install(s, p))
	} else {
		old := slog.Default()
		slog.SetDefault(logger)
		t.Cleanup(func() { slog.SetDefault(old) })
	}
	e.add(t, s, "x", hostileHandler(c.do), c.filters)
	e.add(t, s, "ok", hostileHandler(nil), nil)
	cs := connectBounded(t, s)

	r := callBounded(t, cs, "x", nil)
	run := hostileRun{r: r, records: log.Records(t), installed: e.installed, reports: rep.got()}
	if broken != nil {
		run.handed = broken.handed()
	}
	run.fallback = stderr.lines(t)
	checkServing(t, cs)
	return run
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

// callBounded calls tool with args, giving up after hostileCallTimeout.
func callBounded(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) adaptertest.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hostileCallTimeout)
	defer cancel()
	r, _ := call(ctx, cs, adaptertest.Case{Tool: tool, Args: args})
	return r
}

// checkServing checks that the server still answers a successful call.
func checkServing(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	r := callBounded(t, cs, "ok", nil)
	if r.ProtocolErr != nil || r.IsError || len(r.Texts) != 1 || r.Texts[0] != "all good" {
		t.Errorf("the server stopped serving: the next call got %v %s", r.ProtocolErr, r.Raw)
	}
}

// checkHostile checks what one failing call of tool gave against want.
func checkHostile(t *testing.T, tool string, want hostileWant, run hostileRun) {
	t.Helper()
	r := run.r
	if r.ProtocolErr != nil {
		t.Fatalf("want one isError result, got a protocol error or no answer: %v", r.ProtocolErr)
	}
	if strings.Contains(string(r.Raw), hostileCanary) {
		t.Errorf("the canary reached the client: %s", r.Raw)
	}
	if !r.IsError || len(r.Texts) == 0 {
		t.Fatalf("want an isError result with text, got %s", r.Raw)
	}
	if len(r.Texts[0]) > filter.MaxMessage {
		t.Errorf("message of %d bytes, more than MaxMessage", len(r.Texts[0]))
	}
	if n := len(r.Texts) - 1; n > filter.MaxHints {
		t.Errorf("%d hint blocks, more than MaxHints", n)
	}
	for _, h := range r.Texts[1:] {
		if !strings.HasPrefix(h, "Hint: ") || len(h) > len("Hint: ")+filter.MaxHint {
			t.Errorf("hint block %.40q... of %d bytes: want \"Hint: \" and at most MaxHint bytes", h, len(h))
		}
	}
	ref := ""
	switch {
	case want.bounded:
	case want.text == "":
		m := maskedTextRE.FindStringSubmatch(r.Texts[0])
		if m == nil || m[1] != tool {
			t.Fatalf("text %q, want the masked text of tool %q with a ref", r.Texts[0], tool)
		}
		ref = m[2]
	case r.Texts[0] != want.text:
		t.Errorf("text %q, want %q", r.Texts[0], want.text)
	}
	if !want.bounded && fmt.Sprint(r.Texts[1:]) != fmt.Sprint(want.hints) && !(len(r.Texts) == 1 && len(want.hints) == 0) {
		t.Errorf("hint blocks %q, want %q", r.Texts[1:], want.hints)
	}
	env := r.Envelope()
	switch {
	case env == nil && run.installed:
		t.Errorf("no envelope in _meta[%q]: %s", filter.MetaKey, r.Raw)
	case env != nil:
		code := want.code
		if code == "" {
			code = codes.InternalError
		}
		if env["error"] != true || env["code"] != string(code) || env["message"] != r.Texts[0] {
			t.Errorf("envelope %v, want code %s and the text as message", env, code)
		}
		if ref != "" && env["ref"] != ref {
			t.Errorf("envelope ref %v, text ref %q", env["ref"], ref)
		}
	}
	checkOneRecord(t, run, ref, want.logHas)
}

// checkOneRecord checks that the failure was logged once: one "tool call
// failed" record, in the logger or, if the logger failed, in the
// last-resort handler, holding ref when there is one; and that the reporter
// was called at most once, with ref.
func checkOneRecord(t *testing.T, run hostileRun, ref string, logHas []string) {
	t.Helper()
	failed, withRef := 0, 0
	var text string // the failure's record
	for _, rec := range run.records {
		b, _ := json.Marshal(rec)
		if rec["msg"] == "tool call failed" {
			failed++
			text = string(b)
		}
		if ref != "" && strings.Contains(string(b), ref) {
			withRef++
		}
	}
	for _, l := range run.fallback {
		if strings.Contains(l, `msg="tool call failed"`) {
			failed++
			text = l
		}
		if ref != "" && strings.Contains(l, ref) {
			withRef++
		}
	}
	if failed != 1 {
		t.Errorf("%d records of the failure, want 1: log %v, last resort %q", failed, run.records, run.fallback)
	}
	if ref != "" && withRef != 1 {
		t.Errorf("ref %s is in %d records, want 1: log %v, last resort %q", ref, withRef, run.records, run.fallback)
	}
	for _, s := range logHas {
		if !strings.Contains(text, s) {
			t.Errorf("the failure's record lacks %q: %.3000s", s, text)
		}
	}
	if run.handed != nil {
		n := 0
		for _, h := range run.handed {
			if strings.Contains(h, ref) && strings.HasPrefix(h, "tool call failed") {
				n++
			}
		}
		if n != 1 {
			t.Errorf("the broken log handler was handed the failure %d times, want once: %q", n, run.handed)
		}
	}
	if len(run.reports) > 1 || len(run.reports) == 1 && run.reports[0] != ref {
		t.Errorf("reporter called with %q, want at most once with the client's ref %q", run.reports, ref)
	}
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
			flaky := &flakyError{}
			e.add(t, s, "x", hostileHandler(fails(flaky)), nil)
			e.add(t, s, "ok", hostileHandler(nil), nil)
			cs := connectBounded(t, s)
			r := callBounded(t, cs, "x", nil)
			run := hostileRun{r: r, records: log.Records(t), installed: e.installed}
			checkHostile(t, "x", hostileWant{}, run)
			var failed []map[string]any
			for _, rec := range run.records {
				if rec["msg"] == "tool call failed" {
					failed = append(failed, rec)
				}
			}
			if m := maskedTextRE.FindStringSubmatch(r.Texts[0]); len(failed) == 1 && m != nil && failed[0]["ref"] != m[2] {
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

// TestHostileStreamableHTTP protects a masked answer, not a dropped connection, to panic(http.ErrAbortHandler) and runtime.Goexit over streamable HTTP.
func TestHostileStreamableHTTP(t *testing.T) {
	for _, e := range hostileEntries {
		for _, c := range []hostileCase{
			{name: "panic with http.ErrAbortHandler", do: panicsWith(http.ErrAbortHandler),
				want: hostileWant{logHas: []string{http.ErrAbortHandler.Error()}}},
			{name: "runtime.Goexit", do: func(context.Context) error { runtime.Goexit(); return nil },
				want: hostileWant{logHas: []string{"runtime.Goexit"}}},
		} {
			t.Run(e.name+"/"+c.name, func(t *testing.T) {
				var log adaptertest.Log
				s := mcp.NewServer(&mcp.Implementation{Name: "hostile-http", Version: "1.0.0"}, nil)
				if e.installed {
					must(t, gosdk.Install(s, newPipeline(t, &log)))
				} else {
					old := slog.Default()
					slog.SetDefault(log.Logger())
					t.Cleanup(func() { slog.SetDefault(old) })
				}
				e.add(t, s, "x", hostileHandler(c.do), nil)
				e.add(t, s, "ok", hostileHandler(nil), nil)
				srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
				defer srv.Close()
				cl := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0.0"}, nil)
				ctx, cancel := context.WithTimeout(context.Background(), hostileCallTimeout)
				defer cancel()
				cs, err := cl.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
				must(t, err)
				defer cs.Close()
				r := callBounded(t, cs, "x", nil)
				checkHostile(t, "x", c.want, hostileRun{r: r, records: log.Records(t), installed: e.installed})
				checkServing(t, cs)
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
		res.SetError(errors.New("handler failed: " + hostileCanary))
		return res, nil
	})
	s.AddTool(&mcp.Tool{Name: "ok", InputSchema: adaptertest.EmptySchema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "all good"}}}, nil
	})
	cs := connectBounded(t, s)
	r := callBounded(t, cs, "raw", map[string]any{"m": 1})
	if r.ProtocolErr != nil || !r.IsError || strings.Contains(string(r.Raw), hostileCanary) {
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

// serveWrapDefaultLoggerPanics serves, over stdio, a server without Install
// whose tool "x" is wrapped with Wrap and fails, with slog.Default's handler
// panicking.
func serveWrapDefaultLoggerPanics() int {
	slog.SetDefault(slog.New(&brokenHandler{mode: "panic"}))
	s := mcp.NewServer(&mcp.Implementation{Name: "hostile-stdio", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "x"}, gosdk.Wrap(hostileHandler(fails(errors.New("db down: "+hostileCanary)))))
	mcp.AddTool(s, &mcp.Tool{Name: "ok"}, hostileHandler(nil))
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// TestHostileWrapWithoutInstallDefaultLoggerPanics protects the process and the answer when Wrap runs without Install and slog.Default's handler panics (in a child process: the failure kills it).
func TestHostileWrapWithoutInstallDefaultLoggerPanics(t *testing.T) {
	stderr, err := os.CreateTemp(t.TempDir(), "stderr")
	must(t, err)
	defer stderr.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), hostileServeEnv+"=wrap-default-logger-panics")
	cmd.Stderr = stderr
	cl := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0.0"}, nil)
	cs, err := cl.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	must(t, err)
	defer cs.Close()
	r := callBounded(t, cs, "x", nil)
	if r.ProtocolErr != nil {
		out, _ := os.ReadFile(stderr.Name())
		t.Fatalf("no answer: %v; the server's stderr:\n%.2000s", r.ProtocolErr, out)
	}
	checkHostile(t, "x", hostileWant{}, hostileRun{r: r, fallback: (&stderrCapture{f: stderr}).lines(t)})
	checkServing(t, cs)
}
