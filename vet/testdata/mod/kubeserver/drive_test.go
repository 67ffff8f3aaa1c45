package kubeserver_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"example.com/vettest/kubeserver"
	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/filter"
)

// canary is in every failing answer of the upstream and in the token.
const canary = "CANARY-7731 password=hunter2"

// upstream answers as a cluster's API, failing on every path it does not
// know.
func upstream(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/api/v1/pods/web":
		_, _ = io.WriteString(w, "pod web: Running")
	case "/api/v1/pods/web/log":
		_, _ = io.WriteString(w, "listening on :8080")
	case "/apis/apps/v1/StatefulSet/scale":
		_, _ = io.WriteString(w, "scaled")
	default:
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, `{"message":"`+canary+`"}`)
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
	{"pods_get", "pods_get", map[string]any{"name": "web"}},
	{"pods_get_no_name", "pods_get", map[string]any{}},
	{"pods_get_number", "pods_get", map[string]any{"name": 7}},
	{"pods_get_failing", "pods_get", map[string]any{"name": "db"}},
	{"pods_log", "pods_log", map[string]any{"name": "web", "container": "app"}},
	{"pods_log_no_container", "pods_log", map[string]any{"name": "web"}},
	{"pods_log_failing", "pods_log", map[string]any{"name": "db", "container": "app"}},
	{"nodes_top_failing", "nodes_top", map[string]any{}},
	{"scale", "resources_scale", map[string]any{"kind": "StatefulSet", "replicas": 2}},
	{"scale_bad_kind", "resources_scale", map[string]any{"kind": "Pod"}},
	{"scale_no_replicas", "resources_scale", map[string]any{"kind": "Deployment"}},
	{"scale_failing", "resources_scale", map[string]any{"kind": "Deployment", "replicas": 3}},
}

// TestDrive calls every tool through go-sdk's in-memory client and writes
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
	s := kubeserver.New(&kubeserver.Cluster{URL: up.URL, Token: canary, HTTP: up.Client()})
	if mode := os.Getenv("DRIVE_INSTALL"); mode != "" {
		p, err := filter.New(filter.WithLogger(slog.New(slog.NewJSONHandler(io.Discard, nil))), filter.WithReportOnly(mode == "report"))
		if err != nil {
			t.Fatal(err)
		}
		if err := gosdk.Install(s, p); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "drive", Version: "1.0.0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var answers []Answer
	for _, call := range calls {
		a := Answer{Name: call.name}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: call.tool, Arguments: call.args})
		if err != nil {
			a.RPC = err.Error()
		} else {
			a.IsError = res.IsError
			for _, block := range res.Content {
				if text, ok := block.(*mcp.TextContent); ok {
					a.Texts = append(a.Texts, text.Text)
				}
			}
			a.Meta = res.Meta
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
