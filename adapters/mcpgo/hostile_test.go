package mcpgo_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

// hostileEntry is one way a tool reaches a server with mcperr.
type hostileEntry struct {
	name string
	// installed: Install gave the server the test's pipeline, so its
	// filters, observers (the reporter among them) and logger apply.
	// Otherwise the tool runs with the default configuration, which logs
	// to slog.Default, and filters are the tool's own.
	installed bool
	add       func(t *testing.T, s *server.MCPServer, name string, h server.ToolHandlerFunc, fs []filter.Filter)
}

var hostileEntries = []hostileEntry{
	{"Install+s.AddTool", true, func(_ *testing.T, s *server.MCPServer, name string, h server.ToolHandlerFunc, _ []filter.Filter) {
		s.AddTool(mcp.NewTool(name), h)
	}},
	{"Install+mcpgo.AddTool", true, func(t *testing.T, s *server.MCPServer, name string, h server.ToolHandlerFunc, _ []filter.Filter) {
		if err := mcpgo.AddTool(s, mcp.NewTool(name), h); err != nil {
			t.Fatal(err)
		}
	}},
	{"Install+mcpgo.Wrap", true, func(_ *testing.T, s *server.MCPServer, name string, h server.ToolHandlerFunc, _ []filter.Filter) {
		s.AddTool(mcp.NewTool(name), mcpgo.Wrap(h))
	}},
}

// hostileHandler runs do as a handler; it answers "all good" when do
// returns nil.
func hostileHandler(do adaptertest.HostileBehaviour) server.ToolHandlerFunc {
	return func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if do != nil {
			if err := do(ctx); err != nil {
				return nil, err
			}
		}
		return mcp.NewToolResultText("all good"), nil
	}
}

// TestHostile protects the core promise against hostile handlers, errors,
// filters, reporters, renderers, observers and log handlers: one isError
// result, no canary, the ref in one record and at most one report; or, for
// a runtime.Goexit, no answer and one ERROR record with a ref; and the
// server keeps serving.
func TestHostile(t *testing.T) {
	for _, e := range hostileEntries {
		for _, c := range adaptertest.HostileCases() {
			t.Run(e.name+"/"+c.Name, func(t *testing.T) {
				if why := c.SkipFor[e.name]; why != "" {
					t.Skip(why)
				}
				adaptertest.CheckHostile(t, "x", c.Want, runHostile(t, e, c))
			})
		}
	}
}

// runHostile sets up a server with tool "x" doing c and tool "ok" through
// entry e, calls "x" in process, then checks that "ok" still succeeds.
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
	s := server.NewMCPServer("hostile", "1.0.0")
	if e.installed {
		opts := append([]filter.Option{filter.WithFilters(c.Filters...), filter.WithObserver(rep.Report)}, c.Options...)
		if err := mcpgo.Install(s, testPipeline(logger, opts...)); err != nil {
			t.Fatal(err)
		}
	} else {
		useDefaultLogger(t, logger)
	}
	e.add(t, s, "x", hostileHandler(c.Do), c.Filters)
	e.add(t, s, "ok", hostileHandler(nil), nil)
	cl := inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION)
	log.Records(t) // forget what connecting logged

	var r adaptertest.Result
	if c.Want.NoAnswer {
		r = callUnanswered(t, cl, "x")
	} else {
		r = guardedCall(t, cl, "x", nil)
	}
	run := adaptertest.HostileRun{R: r, WantEnvelope: true}
	run.Records, run.Reports, run.Fallback = log.Records(t), rep.Got(), stderr.Lines(t)
	if broken != nil {
		run.Handed = broken.Handed()
	}
	checkServing(t, cl)
	return run
}

// guardedCall calls tool with args on its own goroutine, where the
// in-process client runs the server's handling: a panic or runtime.Goexit
// that escapes the server, or no answer within adaptertest.HostileCallTimeout, is
// returned as the result's ProtocolErr instead of crashing or hanging the
// test.
func guardedCall(t *testing.T, cl *client.Client, tool string, args map[string]any) adaptertest.Result {
	t.Helper()
	type answer struct {
		res   *mcp.CallToolResult
		err   error
		fault error
	}
	ctx, cancel := context.WithTimeout(context.Background(), adaptertest.HostileCallTimeout)
	defer cancel()
	done := make(chan answer, 1)
	go func() {
		var a answer
		returned := false
		defer func() {
			if v := recover(); v != nil {
				a.fault = fmt.Errorf("the call panicked in the caller: %v", v)
			} else if !returned {
				a.fault = errors.New("the call ended the caller's goroutine (runtime.Goexit)")
			}
			done <- a
		}()
		req := mcp.CallToolRequest{}
		req.Params.Name = tool
		if args != nil {
			req.Params.Arguments = args
		}
		a.res, a.err = cl.CallTool(ctx, req)
		returned = true
	}()
	select {
	case a := <-done:
		if a.fault != nil {
			return adaptertest.Result{ProtocolErr: a.fault}
		}
		return resultOf(t, a.res, a.err)
	case <-time.After(adaptertest.HostileCallTimeout + time.Second):
		return adaptertest.Result{ProtocolErr: errors.New("no answer")}
	}
}

// checkServing checks that the server still answers a successful call.
func checkServing(t *testing.T, cl *client.Client) {
	t.Helper()
	adaptertest.CheckServing(t, guardedCall(t, cl, "ok", nil))
}

// TestHostileErrorPanicsOnce protects "logged once, with the ref the
// client got" for an error whose Error panics the first time only.
func TestHostileErrorPanicsOnce(t *testing.T) {
	for _, e := range hostileEntries {
		t.Run(e.name, func(t *testing.T) {
			var log adaptertest.Log
			s := server.NewMCPServer("flaky", "1.0.0")
			if e.installed {
				if err := mcpgo.Install(s, testPipeline(log.Logger())); err != nil {
					t.Fatal(err)
				}
			} else {
				useDefaultLogger(t, log.Logger())
			}
			flaky := &adaptertest.FlakyError{}
			e.add(t, s, "x", hostileHandler(adaptertest.Fails(flaky)), nil)
			e.add(t, s, "ok", hostileHandler(nil), nil)
			cl := inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION)
			log.Records(t)
			r := guardedCall(t, cl, "x", nil)
			run := adaptertest.HostileRun{R: r, Records: log.Records(t), WantEnvelope: true}
			adaptertest.CheckHostile(t, "x", adaptertest.HostileWant{}, run)
			m := adaptertest.MaskedTextRE.FindStringSubmatch(r.Texts[0])
			if len(run.Records) == 1 && m != nil && run.Records[0]["ref"] != m[2] {
				t.Errorf("the record's ref %v is not the client's %s", run.Records[0]["ref"], m[2])
			}
			_ = flaky.Error() // works now: nothing may log again
			checkServing(t, cl)
			if recs := log.Records(t); len(recs) != 0 {
				t.Errorf("records after the call: %v", recs)
			}
		})
	}
}

// TestHostileStreamableHTTP protects, over streamable HTTP, a masked
// answer, not a dropped connection, to panic(http.ErrAbortHandler), and no
// answer but one ERROR record with a ref for runtime.Goexit; the server
// serving on either way.
func TestHostileStreamableHTTP(t *testing.T) {
	for _, e := range hostileEntries {
		for _, c := range adaptertest.HostileHTTPCases() {
			t.Run(e.name+"/"+c.Name, func(t *testing.T) {
				var log adaptertest.Log
				s := server.NewMCPServer("hostile-http", "1.0.0")
				if e.installed {
					if err := mcpgo.Install(s, testPipeline(log.Logger())); err != nil {
						t.Fatal(err)
					}
				} else {
					useDefaultLogger(t, log.Logger())
				}
				e.add(t, s, "x", hostileHandler(c.Do), nil)
				e.add(t, s, "ok", hostileHandler(nil), nil)
				cl := overHTTP(t, s, mcp.LATEST_PROTOCOL_VERSION)
				log.Records(t)
				var r adaptertest.Result
				if c.Want.NoAnswer {
					r = callUnanswered(t, cl, "x")
				} else {
					r = guardedCall(t, cl, "x", nil)
				}
				adaptertest.CheckHostile(t, "x", c.Want, adaptertest.HostileRun{R: r, Records: log.Records(t), WantEnvelope: true})
				checkServing(t, cl)
			})
		}
	}
}

// recursiveCycleEnv, set in the environment of the test binary, makes it
// run callRecursiveCycle instead of the tests.
const recursiveCycleEnv = "MCPERR_MCPGO_RECURSIVE_CYCLE"

// loopError is an error whose Error reads its cause's, as most wrappers'
// do, in a chain that loops back to itself: its text has no end.
type loopError struct{ next error }

func (e *loopError) Error() string {
	return "loop " + adaptertest.HostileCanary + ": " + e.next.Error()
}
func (e *loopError) Unwrap() error { return e.next }

// callRecursiveCycle calls, in process, a tool under Install whose handler
// returns a loopError, then a tool that succeeds, and prints what the
// client read; it returns the process's exit code.
func callRecursiveCycle() int {
	p, err := filter.New(filter.WithLogger(slog.New(slog.NewJSONHandler(io.Discard, nil))))
	if err != nil {
		fmt.Println(err)
		return 1
	}
	s := server.NewMCPServer("cycle", "1.0.0")
	if err := mcpgo.Install(s, p); err != nil {
		fmt.Println(err)
		return 1
	}
	s.AddTool(mcp.NewTool("x"), hostileHandler(func(context.Context) error {
		e := &loopError{}
		e.next = e
		return e
	}))
	s.AddTool(mcp.NewTool("ok"), hostileHandler(nil))
	c := exampleClient(s)
	for _, tool := range []string{"x", "ok"} {
		res, err := callTool(c, tool, nil)
		if err != nil {
			fmt.Println(tool, "protocol error:", err)
			return 1
		}
		for _, content := range res.Content {
			if text, ok := content.(mcp.TextContent); ok {
				fmt.Printf("%s: %s\n", tool, text.Text)
			}
		}
	}
	return 0
}

// TestHostileRecursiveCycle protects the server from an error chain that
// loops back to itself through wrappers whose Error reads their cause's:
// its text has no end, so nothing may ask for it. The call is answered
// masked and the server goes on. The calls run in a child process, since
// a goroutine whose stack overflows takes the whole process down, beyond
// any recover.
func TestHostileRecursiveCycle(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), recursiveCycleEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		// The first line that says why, and mcperr's frames of the stack.
		var why []string
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "fatal error:") || strings.HasPrefix(l, "panic:") ||
				strings.HasPrefix(l, "github.com/mcperr/mcperr/") && !strings.Contains(l, "_test.") {
				why = append(why, l)
			}
		}
		t.Fatalf("the server's process failed: %v\n%s", err, strings.Join(why, "\n"))
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 2 || !adaptertest.MaskedTextRE.MatchString(strings.TrimPrefix(lines[0], "x: ")) ||
		lines[len(lines)-1] != "ok: all good" || strings.Contains(string(out), adaptertest.HostileCanary) {
		t.Errorf("the client read\n%s\nwant the masked text of tool x, then ok's success, and no canary", out)
	}
}
