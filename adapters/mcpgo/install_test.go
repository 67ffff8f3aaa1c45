package mcpgo_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

// TestOneConfiguration is the bug that Install fixes: a tool wrapped with
// Wrap, one added with AddTool and one added with the SDK alone, on one
// server, must all run with the one configuration Install gave it, with its
// logger, redaction, global filters, observers (a reporter among them),
// renderer and request ids.
func TestOneConfiguration(t *testing.T) {
	const secret = "user ann@example.com: password=hunter2"
	for _, via := range []string{"in-process", "http"} {
		t.Run(via, func(t *testing.T) {
			var log adaptertest.Log
			var mu sync.Mutex
			var reported, observed []filter.Failure
			filtered := map[string]int{}
			p, err := filter.New(
				filter.WithLogger(log.Logger()),
				filter.WithRedaction(true),
				// A reporter is an observer that looks at server failures.
				filter.WithObserver(func(_ context.Context, f filter.Failure) {
					if f.Envelope.Category != codes.Server {
						return
					}
					mu.Lock()
					defer mu.Unlock()
					reported = append(reported, f)
				}),
				filter.WithFilters(filter.Catch(func(_ context.Context, call filter.Call, _ error) (*filter.Response, error) {
					mu.Lock()
					defer mu.Unlock()
					filtered[call.Tool]++
					return nil, nil
				})),
				filter.WithObserver(func(_ context.Context, f filter.Failure) {
					mu.Lock()
					defer mu.Unlock()
					observed = append(observed, f)
				}),
				filter.WithRenderer(adaptertest.MessageOnly))
			if err != nil {
				t.Fatal(err)
			}
			s := server.NewMCPServer("t", "1.0.0")
			if err := mcpgo.Install(s, p); err != nil {
				t.Fatal(err)
			}
			fail := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return nil, errors.New(secret)
			}
			s.AddTool(mcp.NewTool("wrapped"), mcpgo.Wrap(fail))
			if err := mcpgo.AddTool(s, mcp.NewTool("added"), fail); err != nil {
				t.Fatal(err)
			}
			s.AddTool(mcp.NewTool("plain"), fail)

			var c *client.Client
			if via == "http" {
				c = overHTTP(t, s, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
			} else {
				c = inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION)
			}
			log.Records(t)
			for _, tool := range []string{"wrapped", "added", "plain"} {
				mu.Lock()
				reported, observed = nil, nil
				mu.Unlock()
				r := call(t, c, tool, nil)
				if len(r.Texts) != 1 || r.Texts[0] != env0(r)["message"] {
					t.Errorf("%s: texts %q, want the message alone, as a message-only renderer renders it", tool, r.Texts)
				}
				env := r.Envelope()
				if !r.IsError || env["code"] != string(codes.InternalError) {
					t.Fatalf("%s: %s", tool, r.Raw)
				}
				if strings.Contains(string(r.Raw), "hunter2") || strings.Contains(string(r.Raw), "ann@example.com") {
					t.Errorf("%s: the secret reached the client: %s", tool, r.Raw)
				}
				recs := log.Records(t)
				if len(recs) != 1 {
					t.Fatalf("%s: %d records in the pipeline's log, want 1: %v", tool, len(recs), recs)
				}
				rec, _ := json.Marshal(recs[0])
				if strings.Contains(string(rec), "hunter2") || strings.Contains(string(rec), "ann@example.com") {
					t.Errorf("%s: the record is not redacted: %s", tool, rec)
				}
				if recs[0]["ref"] != env["ref"] {
					t.Errorf("%s: record ref %v, envelope ref %v", tool, recs[0]["ref"], env["ref"])
				}
				id, _ := env["requestId"].(string)
				if u, err := uuid.Parse(id); err != nil || u.Version() != 7 || recs[0]["request_id"] != id {
					t.Errorf("%s: envelope requestId %q, record request_id %v; want the same UUID v7 in both", tool, id, recs[0]["request_id"])
				}
				mu.Lock()
				if len(reported) != 1 || reported[0].Envelope.Ref != env["ref"] || reported[0].Call.Tool != tool ||
					reported[0].Err == nil || reported[0].Err.Error() != secret {
					t.Errorf("%s: reporter told %+v, want once, with the client's ref %v and the handler's error", tool, reported, env["ref"])
				}
				if filtered[tool] != 1 {
					t.Errorf("%s: the global filter ran %d times, want 1", tool, filtered[tool])
				}
				if len(observed) != 1 || observed[0].Envelope.Ref != env["ref"] || observed[0].Call.RequestID != id ||
					strings.Contains(observed[0].ErrorText, "hunter2") {
					t.Errorf("%s: observer told %+v, want once, with the client's ref and request id, redacted", tool, observed)
				}
				mu.Unlock()
			}
		})
	}
}

// env0 returns the envelope of r, or an empty one.
func env0(r adaptertest.Result) map[string]any {
	if env := r.Envelope(); env != nil {
		return env
	}
	return map[string]any{}
}

// TestInstallTwice checks that a server has one configuration: the same one
// again is nothing to do, another one is refused, and either way the first
// stays, with its middleware serving every call once.
func TestInstallTwice(t *testing.T) {
	tests := []struct {
		name   string
		first  func(*adaptertest.Log) *filter.Pipeline // nil: the default configuration
		second func(first *filter.Pipeline) *filter.Pipeline
		want   codes.Mistake // zero: no error
	}{
		{"same pipeline", pipelineOf, func(p *filter.Pipeline) *filter.Pipeline { return p }, ""},
		{"another pipeline", pipelineOf, func(*filter.Pipeline) *filter.Pipeline {
			return testPipeline(new(adaptertest.Log).Logger())
		}, codes.ConflictingConfiguration},
		{"the default after a pipeline", pipelineOf, func(*filter.Pipeline) *filter.Pipeline { return defaults() }, codes.ConflictingConfiguration},
		{"a pipeline after the default", nil, func(*filter.Pipeline) *filter.Pipeline {
			return testPipeline(new(adaptertest.Log).Logger())
		}, codes.ConflictingConfiguration},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log adaptertest.Log
			var p *filter.Pipeline
			if tt.first != nil {
				p = tt.first(&log)
			} else {
				useDefaultLogger(t, log.Logger())
				p = defaults()
			}
			s := server.NewMCPServer("t", "1.0.0")
			if err := mcpgo.Install(s, p); err != nil {
				t.Fatal(err)
			}
			checkDefinitionError(t, mcpgo.Install(s, tt.second(p)), tt.want,
				"mcperr is already installed on this server with another pipeline")
			s.AddTool(mcp.NewTool("fail", mcp.WithNumber("n")), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return nil, errors.New("boom")
			})
			c := inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION)
			log.Records(t)
			adaptertest.Check(t, adaptertest.Case{Want: adaptertest.Expect{IsError: true, Code: codes.InternalError,
				Text: `Internal error in tool "fail" (ref: {ref}).`, Masked: true, Logged: 1}}, call(t, c, "fail", nil), log.Records(t))
			adaptertest.Check(t, adaptertest.Case{Want: adaptertest.Expect{IsError: true, Code: codes.ValidationError,
				Text: "Validation failed for n: must be number, not string", Fields: []string{"n"}, Logged: 1}},
				call(t, c, "fail", map[string]any{"n": "x"}), log.Records(t))
		})
	}
}

// pipelineOf returns a pipeline of the tests that logs into log.
func pipelineOf(log *adaptertest.Log) *filter.Pipeline { return testPipeline(log.Logger()) }

// TestAddToolBeforeInstall checks the order Install, then AddTool: AddTool
// on a server without mcperr is refused with NOT_INSTALLED and registers
// nothing, however many times it is tried, and leaves the server free to
// be given its configuration; then Install and AddTool work, and the tool
// runs with that configuration.
func TestAddToolBeforeInstall(t *testing.T) {
	var log, other adaptertest.Log
	useDefaultLogger(t, other.Logger()) // where the default configuration would log
	s := server.NewMCPServer("t", "1.0.0")
	fail := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("boom: " + adaptertest.Canary)
	}
	for range 2 {
		checkDefinitionError(t, mcpgo.AddTool(s, mcp.NewTool("fail"), fail), codes.NotInstalled,
			"mcpgo.AddTool needs mcperr installed on the server first; call mcpgo.Install(s, pipeline) before adding tools")
	}
	if s.GetTool("fail") != nil || len(s.ListTools()) != 0 {
		t.Fatalf("a refused AddTool registered %v", s.ListTools())
	}

	p := testPipeline(log.Logger())
	if err := mcpgo.Install(s, p); err != nil {
		t.Fatalf("Install after a refused AddTool = %v", err)
	}
	if err := mcpgo.AddTool(s, mcp.NewTool("fail"), fail); err != nil {
		t.Fatalf("AddTool after Install = %v", err)
	}
	if s.GetTool("fail") == nil {
		t.Fatal("AddTool after Install registered nothing")
	}
	if err := mcpgo.Install(s, p); err != nil {
		t.Errorf("Install again with the same pipeline = %v, want nothing to do", err)
	}
	checkDefinitionError(t, mcpgo.Install(s, testPipeline(other.Logger())), codes.ConflictingConfiguration,
		"call mcpgo.Install once per server and share one *filter.Pipeline")

	c := inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION)
	log.Records(t)
	other.Records(t)
	adaptertest.Check(t, adaptertest.Case{Want: adaptertest.Expect{IsError: true, Code: codes.InternalError,
		Text: `Internal error in tool "fail" (ref: {ref}).`, Masked: true, Logged: 1,
		LogContains: []string{adaptertest.Canary}}}, call(t, c, "fail", nil), log.Records(t))
	if recs := other.Records(t); len(recs) != 0 {
		t.Errorf("a refused configuration, or the default one, logged %v", recs)
	}
}

func TestInstallRefusesNilServer(t *testing.T) {
	checkDefinitionError(t, mcpgo.Install(nil, testPipeline(new(adaptertest.Log).Logger())), codes.NilValue,
		"Install needs the *server.MCPServer")
	checkDefinitionError(t, mcpgo.Install(nil, nil), codes.NilValue, "Install needs the *server.MCPServer")
	// A caller who ignored filter.New's error gets a definition error, not
	// the defaults without its logger and registry.
	s := server.NewMCPServer("n", "1")
	checkDefinitionError(t, mcpgo.Install(s, nil), codes.NilValue, "filter.New")
	if err := mcpgo.Install(s, testPipeline(new(adaptertest.Log).Logger())); err != nil {
		t.Errorf("a nil pipeline installed something: installing one afterwards: %v", err)
	}
}

// checkDefinitionError checks that err is a *codes.DefinitionError with
// mistake want whose reason holds reason, or nil if want is zero.
func checkDefinitionError(t *testing.T, err error, want codes.Mistake, reason string) {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Errorf("got %v, want no error", err)
		}
		return
	}
	var de *codes.DefinitionError
	if !errors.As(err, &de) || de.Mistake != want || !strings.Contains(de.Reason, reason) {
		t.Errorf("got %v, want a %s definition error saying %q", err, want, reason)
	}
}

// TestNilOption checks that a nil option, such as one left unset in a
// list, is a definition error that names it, from AddTool and, as a panic
// at start-up, from Wrap.
func TestNilOption(t *testing.T) {
	s := server.NewMCPServer("n", "1")
	if err := mcpgo.Install(s, defaults()); err != nil {
		t.Fatal(err)
	}
	h := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil }
	checkDefinitionError(t, mcpgo.AddTool(s, mcp.NewTool("t"), h, filter.WithReportOnly(true), nil), codes.NilValue,
		"option 1 given to mcpgo.AddTool is nil")
	defer func() {
		var de *codes.DefinitionError
		if err, _ := recover().(error); !errors.As(err, &de) || de.Mistake != codes.NilValue {
			t.Errorf("Wrap of a nil handler panicked with %v, want a NIL_VALUE definition error", err)
		}
	}()
	mcpgo.Wrap(nil)
}
