package dsserver_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"example.com/vettest/dsserver"
	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/filter"
)

// canary is in every failing answer of the upstream and in the token.
const canary = "CANARY-7731 password=hunter2"

// upstream answers as the dashboards API, failing where a value says so.
func upstream(w http.ResponseWriter, r *http.Request) {
	fail := func(status int) {
		w.WriteHeader(status)
		_, _ = io.WriteString(w, `{"message":"`+canary+`"}`)
	}
	switch p := r.URL.Path; {
	case p == "/api/datasources/uid/prom":
		_, _ = io.WriteString(w, `{"uid":"prom","type":"prometheus"}`)
	case p == "/api/datasources/uid/gone":
		fail(http.StatusNotFound)
	case strings.HasPrefix(p, "/api/datasources/uid/"):
		fail(http.StatusInternalServerError)
	case p == "/api/ds/query" && r.URL.Query().Get("expr") == "up":
		_, _ = io.WriteString(w, `[{"metric":"up","value":1}]`)
	case p == "/api/search" && r.URL.Query().Get("query") == "cpu":
		_, _ = io.WriteString(w, `[{"uid":"d1","title":"CPU"}]`)
	case p == "/api/silences" && r.URL.Query().Get("state") == "expired":
		_, _ = io.WriteString(w, `[{"id":"s1","state":"expired"}]`)
	case p == "/api/rules":
		_, _ = io.WriteString(w, `[{"uid":"r1","title":"High CPU"}]`)
	default:
		fail(http.StatusBadGateway)
	}
}

// Answer is what the client received for one call.
type Answer struct {
	Name    string         `json:"name"`
	IsError bool           `json:"isError"`
	Texts   []string       `json:"texts"`
	Meta    map[string]any `json:"meta,omitempty"`
	RPC     string         `json:"rpc,omitempty"`
}

// calls are the calls driven, by name.
var calls = []struct {
	name, tool string
	args       map[string]any
}{
	{"datasource", "get_datasource", map[string]any{"uid": "prom"}},
	{"datasource_no_uid", "get_datasource", map[string]any{}},
	{"datasource_gone", "get_datasource", map[string]any{"uid": "gone"}},
	{"datasource_failing", "get_datasource", map[string]any{"uid": "flaky"}},
	{"query", "query_prometheus", map[string]any{"datasourceUid": "prom", "expr": "up"}},
	{"query_no_expr", "query_prometheus", map[string]any{"datasourceUid": "prom"}},
	{"query_datasource_gone", "query_prometheus", map[string]any{"datasourceUid": "gone", "expr": "up"}},
	{"query_bad_start", "query_prometheus", map[string]any{"datasourceUid": "prom", "expr": "up", "start": "yesterday"}},
	{"query_failing", "query_prometheus", map[string]any{"datasourceUid": "prom", "expr": "rate(x)"}},
	{"rules", "manage_rules", map[string]any{"operation": "list"}},
	{"rules_get_no_uid", "manage_rules", map[string]any{"operation": "get"}},
	{"rules_unknown_operation", "manage_rules", map[string]any{"operation": "delete"}},
	{"rules_get_failing", "manage_rules", map[string]any{"operation": "get", "uid": "r9"}},
	{"search", "search_dashboards", map[string]any{"query": "cpu"}},
	{"search_no_query", "search_dashboards", map[string]any{}},
	{"search_failing", "search_dashboards", map[string]any{"query": "mem"}},
	{"silences", "list_silences", map[string]any{"state": "expired"}},
	{"silences_bad_state", "list_silences", map[string]any{"state": "bogus"}},
	{"silences_failing", "list_silences", map[string]any{}},
}

// TestDrive calls every tool through mcp-go's in-process client and writes
// the answers, as JSON, to $DRIVE_OUT; with DRIVE_INSTALL=1 mcperr is
// installed, enforcing, with DRIVE_INSTALL=report in report-only mode. mcperrvet's TestRealisticServerMigrates runs it on
// a copy of the server as written, and on one mcperrvet -fix migrated.
func TestDrive(t *testing.T) {
	out := os.Getenv("DRIVE_OUT")
	if out == "" {
		t.Skip("run by mcperrvet's TestRealisticServerMigrates")
	}
	up := httptest.NewServer(http.HandlerFunc(upstream))
	defer up.Close()
	s := dsserver.New(&dsserver.Client{URL: up.URL, Token: canary, HTTP: up.Client()})
	if mode := os.Getenv("DRIVE_INSTALL"); mode != "" {
		p, err := filter.New(filter.WithLogger(slog.New(slog.NewJSONHandler(io.Discard, nil))), filter.WithReportOnly(mode == "report"))
		if err != nil {
			t.Fatal(err)
		}
		if err := mcpgo.Install(s, p); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := client.NewInProcessClient(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "drive", Version: "1.0.0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	var answers []Answer
	for _, call := range calls {
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = call.tool, call.args
		a := Answer{Name: call.name}
		res, err := c.CallTool(ctx, req)
		if err != nil {
			a.RPC = err.Error()
		} else {
			a.IsError = res.IsError
			for _, block := range res.Content {
				if text, ok := block.(mcp.TextContent); ok {
					a.Texts = append(a.Texts, text.Text)
				}
			}
			if res.Meta != nil {
				a.Meta = res.Meta.AdditionalFields
			}
		}
		answers = append(answers, a)
	}
	b, err := json.MarshalIndent(answers, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
