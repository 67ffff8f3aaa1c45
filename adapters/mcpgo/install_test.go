package mcpgo_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/adaptertest"
	"github.com/mcperr/mcperr/toolerr"
)

// TestOneConfiguration is the bug that Install fixes: a tool wrapped with
// Wrap, one added with AddTool and one added with the SDK alone, on one
// server, must all run with the one configuration Install gave it, with its
// logger, redaction, reporter, global filters, observer, renderer and
// request ids.
func TestOneConfiguration(t *testing.T) {
	const secret = "user ann@example.com: password=hunter2"
	for _, via := range []string{"in-process", "http"} {
		t.Run(via, func(t *testing.T) {
			var log adaptertest.Log
			var mu sync.Mutex
			var reported []filter.Incident
			var observed []filter.Failure
			filtered := map[string]int{}
			p, err := filter.New(
				filter.WithLogger(log.Logger()),
				filter.WithRedaction(true),
				filter.WithReporter(filter.ReporterFunc(func(_ context.Context, in filter.Incident) {
					mu.Lock()
					defer mu.Unlock()
					reported = append(reported, in)
				})),
				filter.WithFilters(filter.Func(func(_ context.Context, call filter.Call, _ error) (*filter.Response, error) {
					mu.Lock()
					defer mu.Unlock()
					filtered[call.Tool]++
					return nil, nil
				})),
				filter.WithObserver(filter.ObserverFunc(func(_ context.Context, f filter.Failure) {
					mu.Lock()
					defer mu.Unlock()
					observed = append(observed, f)
				})),
				filter.WithRenderer(filter.RenderMessageOnly))
			if err != nil {
				t.Fatal(err)
			}
			s := server.NewMCPServer("t", "1.0.0")
			if err := mcpgo.Install(s, p, mcpgo.WithRequestIDs()); err != nil {
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
					t.Errorf("%s: texts %q, want the message alone, as RenderMessageOnly renders it", tool, r.Texts)
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
				if id == "" || recs[0]["request_id"] != id {
					t.Errorf("%s: envelope requestId %q, record request_id %v; want the same id in both", tool, id, recs[0]["request_id"])
				}
				mu.Lock()
				if len(reported) != 1 || reported[0].Ref != env["ref"] || reported[0].Call.Tool != tool {
					t.Errorf("%s: reporter called with %+v, want once with the client's ref %v", tool, reported, env["ref"])
				}
				if filtered[tool] != 1 {
					t.Errorf("%s: the global filter ran %d times, want 1", tool, filtered[tool])
				}
				if len(observed) != 1 || observed[0].Response.Ref != env["ref"] || observed[0].Call.RequestID != id ||
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
// stays, with its middleware installed once.
func TestInstallTwice(t *testing.T) {
	tests := []struct {
		name   string
		second func(*server.MCPServer, *filter.Pipeline) error
		want   codes.Code // zero: no error
	}{
		{"same pipeline", func(s *server.MCPServer, p *filter.Pipeline) error { return mcpgo.Install(s, p) }, ""},
		{"another pipeline", func(s *server.MCPServer, _ *filter.Pipeline) error {
			return mcpgo.Install(s, testPipeline(new(adaptertest.Log).Logger()))
		}, codes.ConflictingConfiguration},
		{"default pipeline", func(s *server.MCPServer, _ *filter.Pipeline) error { return mcpgo.Install(s, nil) }, codes.ConflictingConfiguration},
		{"same pipeline, check off", func(s *server.MCPServer, p *filter.Pipeline) error {
			return mcpgo.Install(s, p, mcpgo.WithoutArgumentCheck())
		}, codes.ConflictingConfiguration},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log adaptertest.Log
			p := testPipeline(log.Logger())
			s := server.NewMCPServer("t", "1.0.0")
			if err := mcpgo.Install(s, p); err != nil {
				t.Fatal(err)
			}
			checkDefinitionError(t, tt.second(s, p), tt.want, "mcperr is already installed on this server with another configuration")
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

// TestAddToolThenInstall checks that Install is refused on a server that
// AddTool gave the default configuration, and that the tools keep it.
func TestAddToolThenInstall(t *testing.T) {
	var log adaptertest.Log
	useDefaultLogger(t, log.Logger())
	s := server.NewMCPServer("t", "1.0.0")
	if err := mcpgo.AddTool(s, mcp.NewTool("fail"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("boom")
	}); err != nil {
		t.Fatal(err)
	}
	var other adaptertest.Log
	checkDefinitionError(t, mcpgo.Install(s, testPipeline(other.Logger())), codes.ConflictingConfiguration,
		"tools were added to this server with mcpgo.AddTool before mcpgo.Install")
	c := inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION)
	log.Records(t)
	adaptertest.Check(t, adaptertest.Case{Want: adaptertest.Expect{IsError: true, Code: codes.InternalError,
		Text: `Internal error in tool "fail" (ref: {ref}).`, Masked: true, Logged: 1}}, call(t, c, "fail", nil), log.Records(t))
	if recs := other.Records(t); len(recs) != 0 {
		t.Errorf("the refused configuration logged %v", recs)
	}
}

func TestInstallRefuses(t *testing.T) {
	p := testPipeline(new(adaptertest.Log).Logger())
	noop := filter.Func(func(context.Context, filter.Call, error) (*filter.Response, error) { return nil, nil })
	tests := []struct {
		name   string
		s      *server.MCPServer
		opts   []mcpgo.Option
		code   codes.Code
		reason string
	}{
		{"nil server", nil, nil, codes.InvalidOption, "Install needs the *server.MCPServer"},
		{"per-tool filters", server.NewMCPServer("t", "1"), []mcpgo.Option{mcpgo.WithFilters(noop)}, codes.InvalidOption,
			"WithFilters given to Install: per-tool filters go to AddTool or Wrap; global filters go to filter.WithFilters"},
		{"nil filter", server.NewMCPServer("t", "1"), []mcpgo.Option{mcpgo.WithFilters(nil)}, codes.NilFilter, "given to Install is nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkDefinitionError(t, mcpgo.Install(tt.s, p, tt.opts...), tt.code, tt.reason)
			if tt.s != nil {
				if err := mcpgo.Install(tt.s, p); err != nil {
					t.Errorf("a refused Install left a configuration on the server: Install = %v", err)
				}
			}
		})
	}
}

// checkDefinitionError checks that err is a definition error with code
// want whose reason holds reason, or nil if want is zero.
func checkDefinitionError(t *testing.T, err error, want codes.Code, reason string) {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Errorf("got %v, want no error", err)
		}
		return
	}
	var de *toolerr.DefinitionError
	if !errors.As(err, &de) || de.Code != want || !strings.Contains(de.Reason, reason) {
		t.Errorf("got %v, want a %s definition error saying %q", err, want, reason)
	}
}
