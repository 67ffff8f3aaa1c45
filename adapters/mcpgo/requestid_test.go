package mcpgo_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/adaptertest"
	"github.com/mcperr/mcperr/toolerr"
)

// idServer returns a server with mcperr installed, logging to log, with
// request ids if withIDs, and three failing tools: one added with the SDK
// alone, one wrapped with Wrap and one added with AddTool. If ownHooks, the
// server is given Hooks with server.WithHooks before Install; otherwise
// Install gives it its own. It also returns a function that returns the
// last JSON-RPC id the server's hooks saw.
func idServer(t *testing.T, log *adaptertest.Log, withIDs, ownHooks bool) (*server.MCPServer, func() string) {
	t.Helper()
	var opts []server.ServerOption
	if ownHooks {
		opts = append(opts, server.WithHooks(&server.Hooks{}))
	}
	s := server.NewMCPServer("t", "1.0.0", opts...)
	var ids []mcpgo.Option
	if withIDs {
		ids = append(ids, mcpgo.WithRequestIDs())
	}
	if err := mcpgo.Install(s, testPipeline(log.Logger()), ids...); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var last any
	hooks := s.GetHooks()
	if hooks == nil {
		hooks = &server.Hooks{}
		server.WithHooks(hooks)(s)
	}
	hooks.AddBeforeCallTool(func(_ context.Context, id any, _ *mcp.CallToolRequest) {
		mu.Lock()
		defer mu.Unlock()
		last = id
	})
	fail := func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		// The handler reads the id the failure carries.
		return nil, errors.New("boom in request " + filter.RequestIDFromContext(ctx))
	}
	s.AddTool(mcp.NewTool("fail"), fail)
	s.AddTool(mcp.NewTool("wrapped"), mcpgo.Wrap(fail))
	if err := mcpgo.AddTool(s, mcp.NewTool("added"), fail); err != nil {
		t.Fatal(err)
	}
	return s, func() string {
		mu.Lock()
		defer mu.Unlock()
		return fmt.Sprint(last)
	}
}

// idTools are the tools of idServer.
var idTools = []string{"fail", "wrapped", "added"}

// spoofingClient returns a client over streamable HTTP that sends its own
// request id header, as a client may.
func spoofingClient(t *testing.T, s *server.MCPServer, proto string) *client.Client {
	t.Helper()
	ts := httptest.NewServer(server.NewStreamableHTTPServer(s))
	t.Cleanup(ts.Close)
	c, err := client.NewStreamableHttpClient(ts.URL+"/mcp",
		transport.WithHTTPHeaders(map[string]string{"Mcperr-Request-Id": "spoofed"}))
	if err != nil {
		t.Fatal(err)
	}
	connect(t, c, proto)
	return c
}

// TestWithRequestIDs checks that every call, with or without the option,
// over HTTP (where a client can spoof the header mcperr uses) or in
// process, with the server's own hooks or those Install makes, carries its
// JSON-RPC id: in the handler's context, the envelope and the record.
func TestWithRequestIDs(t *testing.T) {
	for _, proto := range protocols {
		for _, via := range []string{"in-process", "http"} {
			for _, ownHooks := range []bool{true, false} {
				name := via + "/" + proto + "/hooks-of-Install"
				if ownHooks {
					name = via + "/" + proto + "/hooks-of-the-server"
				}
				t.Run(name, func(t *testing.T) {
					var log adaptertest.Log
					s, lastID := idServer(t, &log, true, ownHooks)
					var c *client.Client
					if via == "http" {
						c = spoofingClient(t, s, proto)
					} else {
						c = inProcess(t, s, proto)
					}
					log.Records(t)
					for _, tool := range idTools {
						r := call(t, c, tool, nil)
						id := lastID()
						if got := r.Envelope()["requestId"]; got != id {
							t.Errorf("%s: envelope requestId = %v, want the JSON-RPC id %s", tool, got, id)
						}
						recs := log.Records(t)
						if len(recs) != 1 || recs[0]["request_id"] != id || recs[0]["error"] != "boom in request "+id {
							t.Errorf("%s: records %v, want one with request_id %s, which the handler read too", tool, recs, id)
						}
					}
				})
			}
		}
	}
}

// TestRequestIDsWithoutTheOption checks that request ids are on without
// WithRequestIDs, which is kept for compatibility only: each record and
// envelope carries the JSON-RPC id, never what a client spoofs in the
// header.
func TestRequestIDsWithoutTheOption(t *testing.T) {
	var log adaptertest.Log
	s, lastID := idServer(t, &log, false, true)
	c := spoofingClient(t, s, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	log.Records(t)
	for _, tool := range idTools {
		r := call(t, c, tool, nil)
		id := lastID()
		if got := r.Envelope()["requestId"]; got != id {
			t.Errorf("%s: envelope requestId = %v, want the JSON-RPC id %s", tool, got, id)
		}
		if recs := log.Records(t); len(recs) != 1 || recs[0]["request_id"] != id {
			t.Errorf("%s: records %v, want one with request_id %s", tool, recs, id)
		}
	}
}

// TestWithRequestIDsPerTool checks that WithRequestIDs, which applies to the
// whole server, is refused where one tool is configured.
func TestWithRequestIDsPerTool(t *testing.T) {
	s := server.NewMCPServer("t", "1.0.0")
	err := mcpgo.AddTool(s, mcp.NewTool("sync"), ok, mcpgo.WithRequestIDs())
	var de *toolerr.DefinitionError
	if !errors.As(err, &de) || de.Code != codes.InvalidOption || !strings.Contains(de.Reason, "give it to Install") {
		t.Errorf("AddTool with WithRequestIDs = %v, want an INVALID_OPTION definition error", err)
	}
	if s.GetTool("sync") != nil {
		t.Error("AddTool registered the refused tool")
	}
	if err := mcpgo.Install(s, nil, mcpgo.WithRequestIDs()); err != nil {
		t.Errorf("the refused AddTool left a configuration on the server: Install = %v", err)
	}
}

// TestSessionIDs checks that the log record carries the session id where the
// SDK has one.
func TestSessionIDs(t *testing.T) {
	tests := []struct {
		name    string
		connect func(*testing.T, *server.MCPServer) *client.Client
		want    func(*client.Client, any) bool
	}{
		{"in-process", func(t *testing.T, s *server.MCPServer) *client.Client {
			return inProcess(t, s, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
		}, func(_ *client.Client, id any) bool { s, _ := id.(string); return strings.HasPrefix(s, "inprocess-") }},
		{"http, legacy protocol", func(t *testing.T, s *server.MCPServer) *client.Client {
			return overHTTP(t, s, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
		}, func(c *client.Client, id any) bool { return c.GetSessionId() != "" && id == c.GetSessionId() }},
		{"http, modern protocol has no session", func(t *testing.T, s *server.MCPServer) *client.Client {
			return overHTTP(t, s, mcp.LATEST_PROTOCOL_VERSION)
		}, func(_ *client.Client, id any) bool { return id == nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log adaptertest.Log
			s, _ := idServer(t, &log, false, false)
			c := tt.connect(t, s)
			log.Records(t)
			for _, tool := range idTools {
				call(t, c, tool, nil)
				recs := log.Records(t)
				if len(recs) != 1 || !tt.want(c, recs[0]["session_id"]) {
					t.Errorf("%s: records %v, session id of the client %q", tool, recs, c.GetSessionId())
				}
			}
		})
	}
}
