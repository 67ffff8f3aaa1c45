// Package serverside measures what a server spends on one request, and
// nothing of a client: a Driver writes pre-encoded JSON-RPC requests to a
// server, waits until the server has encoded its answer, and discards the
// answer's bytes. Nothing decodes them, so what testing.AllocsPerRun or a
// benchmark counts is the server's own work (reading the request,
// handling it, encoding the answer) and the driver's, the same for a bare
// server and one with mcperr.
//
// Two transports, the same for both SDKs: newline-delimited JSON over a
// pipe (each SDK's stdio transport given a pipe and a discarding writer),
// and streamable HTTP (each SDK's http.Handler called with a recorder).
package serverside

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// initialize is the initialize request a Driver sends first.
const initialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"serverside","version":"1"}}}`

const initialized = `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`

// ToolCall returns the method and params of a tools/call of tool with the
// arguments args, a JSON object, for Driver.Call.
func ToolCall(tool, args string) string {
	return `"method":"tools/call","params":{"name":` + strconv.Quote(tool) + `,"arguments":` + args + `}}`
}

// Driver sends one request at a time to a server and waits for its answer.
type Driver struct {
	send  func(line []byte) // writes one request and returns once it is answered
	close func()
	id    int64
	buf   []byte
	body  string // the request's method and params, closing brace included
}

// Call sends the driver's request once, with a new id, and waits until the
// server has encoded its answer.
func (d *Driver) Call() {
	d.id++
	d.buf = append(strconv.AppendInt(append(d.buf[:0], `{"jsonrpc":"2.0","id":`...), d.id, 10), ',')
	d.send(append(d.buf, d.body...))
}

// Close stops the server's side of the driver.
func (d *Driver) Close() { d.close() }

// Allocs returns the allocations of one Call, as testing.AllocsPerRun
// counts them over n calls, after a warm-up.
func (d *Driver) Allocs(n int) float64 {
	for range 20 {
		d.Call()
	}
	return testing.AllocsPerRun(n, d.Call)
}

// sink is the server's output over a pipe: it discards every byte, and
// signals each complete line, one JSON-RPC message.
type sink struct {
	lines chan struct{}
	first bytes.Buffer // the first answer, for the caller to check
	seen  int
}

func (s *sink) Write(p []byte) (int, error) {
	for _, b := range p {
		if s.seen == 1 {
			s.first.WriteByte(b)
		}
		if b == '\n' {
			if s.seen == 1 {
				s.first.Truncate(s.first.Len() - 1)
			}
			s.seen++
			s.lines <- struct{}{}
		}
	}
	return len(p), nil
}

// Lines returns a driver of a server that serve runs, reading
// newline-delimited requests from r and writing its answers to w, until
// its context ends; body is the request (see ToolCall). It returns the
// driver and the server's answer to the first call, for the caller to
// check what it measures.
func Lines(tb testing.TB, body string, serve func(ctx context.Context, r io.Reader, w io.Writer)) (*Driver, string) {
	tb.Helper()
	pr, pw := io.Pipe()
	out := &sink{lines: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); serve(ctx, pr, out) }()
	write := func(line []byte, wait bool) {
		if _, err := pw.Write(append(line, '\n')); err != nil {
			tb.Fatalf("writing a request: %v", err)
		}
		if wait {
			<-out.lines // no timer: it would allocate; go test -timeout ends a hang
		}
	}
	write([]byte(initialize), true)
	write([]byte(initialized), false)
	d := &Driver{body: body, send: func(line []byte) { write(line, true) },
		close: func() { cancel(); pw.Close(); <-done }}
	d.Call()
	return d, out.first.String()
}

// HTTP returns a driver of h, a streamable HTTP handler: it initializes one
// session, then calls h.ServeHTTP with each request and a recorder whose
// body it discards. It returns the driver and the answer to the first call.
func HTTP(tb testing.TB, body string, h http.Handler) (*Driver, string) {
	tb.Helper()
	session := ""
	post := func(line string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(line))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	rec := post(initialize)
	if rec.Code != http.StatusOK {
		tb.Fatalf("initialize: %d %s", rec.Code, rec.Body)
	}
	if session = rec.Header().Get("Mcp-Session-Id"); session == "" {
		tb.Fatal("initialize: no Mcp-Session-Id")
	}
	post(initialized)
	var first string
	d := &Driver{body: body, close: func() {}, send: func(line []byte) {
		rec := post(string(line))
		if first == "" {
			first = fmt.Sprintf("%d %s", rec.Code, rec.Body)
		}
	}}
	d.Call()
	return d, first
}

// The failures measured on each SDK, with the same request.
const (
	PublicText = "b must not be zero."                     // a ToolError's message, and the SDK's own error result's
	SecretText = "dial 10.0.0.5: password=hunter2 refused" // a plain error's
)

// Case is one server, bare or with mcperr, and the request sent to it.
type Case struct {
	Name  string
	HTTP  bool   // over streamable HTTP; else newline-delimited over a pipe
	Tools int    // how many tools the server has; the one called is "ship1"
	Mode  string // what the tools do, and whether mcperr is installed: see Cases
	Body  string // the request
	Want  string // what the first answer holds
}

// Cases are the servers measured on each SDK. Every tool takes a string
// "id" and a number "count", both required. Modes: "bare" and "install",
// a success whose arguments (a string count) the SDK or mcperr refuses;
// "sdkresult", the SDK's own error result with PublicText, bare;
// "toolerror", toolerr.New(PublicText) under mcperr; "plain" and
// "masked", a plain error with SecretText, bare and under mcperr.
var Cases = []Case{
	{Name: "refusal/bare", Tools: 3, Mode: "bare", Body: refusal, Want: "count"}, // an error result, or before go-sdk v1.5.0 a protocol error
	{Name: "refusal/mcperr", Tools: 3, Mode: "install", Body: refusal, Want: "VALIDATION_ERROR"},
	{Name: "refusal/mcperr 2000 tools", Tools: 2000, Mode: "install", Body: refusal, Want: "VALIDATION_ERROR"},
	{Name: "http/SDK error result", HTTP: true, Tools: 3, Mode: "sdkresult", Body: fails, Want: PublicText},
	{Name: "http/mcperr ToolError", HTTP: true, Tools: 3, Mode: "toolerror", Body: fails, Want: "TOOL_ERROR"},
	{Name: "http/bare plain error", HTTP: true, Tools: 3, Mode: "plain", Body: fails, Want: "hunter2"},
	{Name: "http/mcperr masked", HTTP: true, Tools: 3, Mode: "masked", Body: fails, Want: "INTERNAL_ERROR"},
}

var (
	refusal = ToolCall("ship1", `{"id":"o1","count":"two"}`)
	fails   = ToolCall("ship1", `{"id":"o1","count":2}`)
)

// Installed reports whether mcperr is installed on the server of mode.
func Installed(mode string) bool { return mode == "install" || mode == "toolerror" || mode == "masked" }

// Limits are the most that mcperr may cost, in allocations per call,
// beside the SDK's own answer to the same failure, server side; Pin fails
// past them. The decision's targets are an argument refusal at most 1.25
// times the SDK's own refusal in allocations, and over streamable HTTP a
// ToolError at most 1.10 times the CPU of the SDK's own error result and
// a masked failure at most 1.15 times a bare one (BenchProcess shows the
// CPU); an adapter passes the limits it holds, and says where one is not
// the target.
type Limits struct {
	Refusal, ToolError, Masked float64
}

// Start returns a driver of c's server, which serve or handler gives, and
// checks its first answer.
func Start(tb testing.TB, c Case, serve func(ctx context.Context, r io.Reader, w io.Writer), handler http.Handler) *Driver {
	tb.Helper()
	var d *Driver
	var first string
	if c.HTTP {
		d, first = HTTP(tb, c.Body, handler)
	} else {
		d, first = Lines(tb, c.Body, serve)
	}
	if !strings.Contains(first, c.Want) {
		d.Close()
		tb.Fatalf("%s: the answer does not hold %q: %s", c.Name, c.Want, first)
	}
	return d
}

// Pin measures the allocations of a call of every case, with the driver
// that start returns, and fails t where a refusal on 2000 tools costs more
// than on 3, or, unless limits is nil, where mcperr costs more than limits
// allow.
func Pin(t *testing.T, limits *Limits, start func(Case) *Driver) {
	allocs := map[string]float64{}
	for _, c := range Cases {
		d := start(c)
		allocs[c.Name] = d.Allocs(300)
		d.Close()
		t.Logf("%-28s %4.0f allocations a call", c.Name, allocs[c.Name])
	}
	if few, many := allocs["refusal/mcperr"], allocs["refusal/mcperr 2000 tools"]; many > few+2 {
		t.Errorf("a refusal on a server of 2000 tools costs %.0f allocations, %.0f on 3 tools", many, few)
	}
	if limits == nil {
		return
	}
	for _, r := range []struct {
		ours, theirs string
		most         float64
	}{
		{"refusal/mcperr", "refusal/bare", limits.Refusal},
		{"http/mcperr ToolError", "http/SDK error result", limits.ToolError},
		{"http/mcperr masked", "http/bare plain error", limits.Masked},
	} {
		ratio := allocs[r.ours] / allocs[r.theirs]
		t.Logf("%s: %.2f × %s (at most %.2f)", r.ours, ratio, r.theirs, r.most)
		if ratio > r.most {
			t.Errorf("%s costs %.0f allocations, %.2f × the %.0f of %s; at most %.2f ×", r.ours, allocs[r.ours], ratio, allocs[r.theirs], r.theirs, r.most)
		}
	}
}

// Bench runs one benchmark a case, with the driver that start returns.
func Bench(b *testing.B, start func(Case) *Driver) {
	for _, c := range Cases {
		b.Run(c.Name, func(b *testing.B) {
			d := start(c)
			defer d.Close()
			b.ReportAllocs()
			for b.Loop() {
				d.Call()
			}
		})
	}
}

// Tool returns the name of the tool c calls and its arguments, for a
// client of an SDK.
func (c Case) Tool() (name string, args map[string]any) {
	var req struct {
		Params struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		} `json:"params"`
	}
	if err := json.Unmarshal([]byte("{"+c.Body), &req); err != nil {
		panic(err)
	}
	return req.Params.Name, req.Params.Arguments
}
