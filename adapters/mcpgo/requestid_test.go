package mcpgo_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

// idFail is a failing handler that reads the request id its failure
// carries, and puts it in its error.
func idFail(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return nil, errors.New("boom in request " + filter.RequestIDFromContext(ctx))
}

// idServer returns a server with mcperr installed, logging to log, and
// three failing tools that read their request id: one added with the SDK
// alone, one wrapped with Wrap and one added with AddTool.
func idServer(t *testing.T, log *adaptertest.Log) *server.MCPServer {
	t.Helper()
	s := installed(t, testPipeline(log.Logger()))
	s.AddTool(mcp.NewTool("fail"), idFail)
	s.AddTool(mcp.NewTool("wrapped"), mcpgo.Wrap(idFail))
	if err := mcpgo.AddTool(s, mcp.NewTool("added"), idFail); err != nil {
		t.Fatal(err)
	}
	return s
}

// idTools are the tools of idServer.
var idTools = []string{"fail", "wrapped", "added"}

// checkRequestID checks that the handler, the envelope and the record of
// the failure r of tool agree on one request id, a UUID v7 not in seen,
// and adds it to seen.
func checkRequestID(t *testing.T, tool string, r adaptertest.Result, recs []map[string]any, seen map[string]bool) {
	t.Helper()
	id, _ := r.Envelope()["requestId"].(string)
	if u, err := uuid.Parse(id); err != nil || u.Version() != 7 || u.String() != id {
		t.Errorf("%s: envelope requestId %q, want a UUID v7 in its canonical form", tool, id)
	}
	if r.Typed.RequestID != id {
		t.Errorf("%s: EnvelopeOf's RequestID %q, the envelope's %q", tool, r.Typed.RequestID, id)
	}
	if seen[id] {
		t.Errorf("%s: request id %s given to two requests", tool, id)
	}
	seen[id] = true
	if len(recs) != 1 || recs[0]["request_id"] != id || recs[0]["error"] != "boom in request "+id {
		t.Errorf("%s: records %v, want one with request_id %s, which the handler read too", tool, recs, id)
	}
}

// TestRequestIDs checks that every call, in process or over HTTP, however
// its tool was added, carries its own request id, a UUID v7 minted by
// mcperr, and that the handler, the envelope and the record agree on it.
func TestRequestIDs(t *testing.T) {
	for _, proto := range protocols {
		for _, via := range []string{"in-process", "http"} {
			t.Run(via+"/"+proto, func(t *testing.T) {
				var log adaptertest.Log
				s := idServer(t, &log)
				var c *client.Client
				if via == "http" {
					c = overHTTP(t, s, proto)
				} else {
					c = inProcess(t, s, proto)
				}
				log.Records(t)
				seen := map[string]bool{}
				for range 2 {
					for _, tool := range idTools {
						checkRequestID(t, tool, call(t, c, tool, nil), log.Records(t), seen)
					}
				}
			})
		}
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
			s := idServer(t, &log)
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
