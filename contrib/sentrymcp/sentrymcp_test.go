package sentrymcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	crdb "github.com/cockroachdb/errors"
	"github.com/getsentry/sentry-go"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/adapters/gosdk/gosdktest"
	"github.com/mcperr/mcperr/contrib/sentrymcp"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/mcperrtest"
	"github.com/mcperr/mcperr/toolerr"
)

// secret is planted in every error; it must never reach an event.
const secret = "hunter2"

// fakeTransport keeps the events a client sends, and sends nothing.
type fakeTransport struct {
	mu     sync.Mutex
	events []*sentry.Event
}

func (f *fakeTransport) Configure(sentry.ClientOptions)        {}
func (f *fakeTransport) Flush(time.Duration) bool              { return true }
func (f *fakeTransport) FlushWithContext(context.Context) bool { return true }
func (f *fakeTransport) Close()                                {}
func (f *fakeTransport) SendEvent(e *sentry.Event) {
	f.mu.Lock()
	f.events = append(f.events, e)
	f.mu.Unlock()
}
func (f *fakeTransport) sent() []*sentry.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*sentry.Event(nil), f.events...)
}

// newHub returns a hub whose client sends to a fakeTransport.
func newHub(t *testing.T) (*sentry.Hub, *fakeTransport) {
	t.Helper()
	tr := &fakeTransport{}
	client, err := sentry.NewClient(sentry.ClientOptions{Dsn: "https://public@sentry.invalid/1", Transport: tr, DisableMetrics: true})
	if err != nil {
		t.Fatal(err)
	}
	return sentry.NewHub(client, sentry.NewScope()), tr
}

// TestReporter runs go-sdk's client against a go-sdk server whose tools
// fail with a secret in their errors, and checks what reached Sentry.
func TestReporter(t *testing.T) {
	hub, tr := newHub(t)
	log := mcperrtest.NewLog(t)
	p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithReporter(sentrymcp.Reporter(hub)))
	if err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "sentry", Version: "0.1.0"}, nil)
	if err := gosdk.Install(s, p); err != nil {
		t.Fatal(err)
	}
	fail := func(err error) func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return nil, nil, err
		}
	}
	for name, h := range map[string]func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error){
		"plain":     fail(fmt.Errorf("dial 10.0.0.5: password=%s refused", secret)),
		"crdb":      fail(crdb.Wrapf(crdb.Newf("password=%s", secret), "connect to %s", "db.internal")),
		"toolerror": fail(toolerr.New("b must not be zero.")),
		"panics": func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			panic("token " + secret)
		},
	} {
		if err := gosdk.AddTool(s, &mcp.Tool{Name: name}, h); err != nil {
			t.Fatal(err)
		}
	}
	c := gosdktest.Connect(t, s)

	for _, tool := range []string{"plain", "crdb", "panics"} {
		t.Run(tool, func(t *testing.T) {
			before := len(tr.sent())
			res := c.Call(tool, nil)
			ref := mcperrtest.AssertMasked(t, res, log)
			events := tr.sent()[before:]
			if len(events) != 1 {
				t.Fatalf("%d events, want 1", len(events))
			}
			e := events[0]
			b, err := json.Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(b), secret) {
				t.Errorf("the event holds the secret: %s", b)
			}
			if !strings.Contains(string(b), ref) {
				t.Errorf("the event does not hold the ref %s: %s", ref, b)
			}
			want := map[string]string{
				"report_type": "error",
				"ref":         ref,
				"code":        "INTERNAL_ERROR",
				"mcp.method":  "tools/call",
				"tool":        tool,
				"request_id":  res.Envelope.RequestID,
			}
			if !maps.Equal(e.Tags, want) {
				t.Errorf("tags %v, want %v", e.Tags, want)
			}
			if e.ServerName != "<redacted>" || e.Level != sentry.LevelError || len(e.Exception) == 0 {
				t.Errorf("server name %q, level %q, %d exceptions", e.ServerName, e.Level, len(e.Exception))
			}
		})
	}

	// A client error is no incident.
	before := len(tr.sent())
	mcperrtest.AssertToolError(t, c.Call("toolerror", nil), "TOOL_ERROR", "b must not be zero.")
	if n := len(tr.sent()) - before; n != 0 {
		t.Errorf("a ToolError sent %d events", n)
	}
}

// TestEventKinds checks the tags of a resource's and a prompt's incidents.
func TestEventKinds(t *testing.T) {
	for _, tc := range []struct {
		call filter.Call
		want map[string]string
	}{
		{filter.Call{Kind: filter.KindResource, Resource: "file:///vault.txt", RequestID: "9", SessionID: "s1"},
			map[string]string{"mcp.method": "resources/read", "resource": "file:///vault.txt", "request_id": "9", "session_id": "s1"}},
		{filter.Call{Kind: filter.KindPrompt, Prompt: "greet", RequestID: "10"},
			map[string]string{"mcp.method": "prompts/get", "prompt": "greet", "request_id": "10"}},
		{filter.Call{Tool: strings.Repeat("é", 150), RequestID: "11"},
			map[string]string{"mcp.method": "tools/call", "tool": strings.Repeat("é", 100), "request_id": "11"}},
	} {
		e := sentrymcp.Event(filter.Incident{Ref: "0123456789abcdef", Call: tc.call, Code: "INTERNAL_ERROR", Err: fmt.Errorf("key=%s", secret)})
		want := map[string]string{"report_type": "error", "ref": "0123456789abcdef", "code": "INTERNAL_ERROR"}
		maps.Copy(want, tc.want)
		if !maps.Equal(e.Tags, want) {
			t.Errorf("tags %v, want %v", e.Tags, want)
		}
		if b, _ := json.Marshal(e); strings.Contains(string(b), secret) {
			t.Errorf("the event holds the secret: %s", b)
		}
	}
}

// Reporter with a nil hub uses the hub of the call's context.
func TestReporterHubFromContext(t *testing.T) {
	hub, tr := newHub(t)
	p, err := filter.New(filter.WithLogger(slog.New(slog.DiscardHandler)), filter.WithReporter(sentrymcp.Reporter(nil)))
	if err != nil {
		t.Fatal(err)
	}
	r := p.Handle(sentry.SetHubOnContext(context.Background(), hub), filter.Call{Tool: "x"}, fmt.Errorf("boom"))
	if e := tr.sent(); len(e) != 1 || e[0].Tags["ref"] != r.Ref {
		t.Fatalf("events %v, want one with ref %s", e, r.Ref)
	}
}
