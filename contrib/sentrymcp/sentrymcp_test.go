package sentrymcp_test

import (
	"context"
	"encoding/json"
	"errors"
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
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/contrib/sentrymcp"
	"github.com/mcperr/mcperr/domain"
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

// whenDone returns a handler that waits for its request to end and fails
// with what its context says, behind text.
func whenDone(text string) func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
	return func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		<-ctx.Done()
		return nil, nil, fmt.Errorf("%s: %w", text, ctx.Err())
	}
}

// TestObserver runs go-sdk's client against a go-sdk server whose tools
// fail with a secret in their errors, and checks what reached Sentry.
func TestObserver(t *testing.T) {
	hub, tr := newHub(t)
	log := mcperrtest.NewLog(t)
	p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithObserver(sentrymcp.Observer(hub)))
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
		"slow":      whenDone("query with password=" + secret),
		"toolerror": fail(toolerr.New("b must not be zero.")),
		"lookup":    fail(toolerr.New("Failed to get user.").WithCause(fmt.Errorf("dial: password=%s refused", secret))),
		"notfound":  fail(domain.NewNotFound("Order", "ord_9")),
		"cancelled": whenDone("password=" + secret),
		"panics": func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			panic("token " + secret)
		},
	} {
		if err := gosdk.AddTool(s, &mcp.Tool{Name: name}, h); err != nil {
			t.Fatal(err)
		}
	}
	// The server's own middleware, outermost: "slow" runs out of the
	// request's time, and "cancelled" is cancelled, as a client cancels.
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if call, ok := req.(*mcp.CallToolRequest); ok && call.Params != nil {
				switch call.Params.Name {
				case "slow":
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, time.Millisecond)
					defer cancel()
				case "cancelled":
					var cancel context.CancelFunc
					ctx, cancel = context.WithCancel(ctx)
					cancel()
				}
			}
			return next(ctx, method, req)
		}
	})
	c := gosdktest.Connect(t, s)

	// checkEvent checks the one event a server error sent.
	checkEvent := func(t *testing.T, events []*sentry.Event, tool, code string, res *mcperrtest.Result) {
		t.Helper()
		if len(events) != 1 {
			t.Fatalf("%d events, want 1", len(events))
		}
		ref := res.Envelope.Ref
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
			"code":        code,
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
	}

	for _, tool := range []string{"plain", "crdb", "panics"} {
		t.Run(tool, func(t *testing.T) {
			before := len(tr.sent())
			res := c.Call(tool, nil)
			if mcperrtest.AssertMasked(t, res, log) == "" {
				return
			}
			checkEvent(t, tr.sent()[before:], tool, "INTERNAL_ERROR", res)
		})
	}

	// A TIMEOUT is a server error too: it has a ref, and an event.
	t.Run("slow", func(t *testing.T) {
		before := len(tr.sent())
		res := c.Call("slow", nil)
		if res.Envelope == nil || res.Envelope.Code != codes.Timeout || res.Envelope.Ref == "" {
			t.Fatalf("slow: %+v, want a TIMEOUT with a ref", res)
		}
		mcperrtest.AssertNoCanary(t, res, secret)
		checkEvent(t, tr.sent()[before:], "slow", "TIMEOUT", res)
	})

	// The tool's words over a cause nothing classifies: the model reads
	// them, and the failure is the server's, an incident with a ref.
	t.Run("lookup", func(t *testing.T) {
		before := len(tr.sent())
		res := c.Call("lookup", nil)
		if texts := res.Texts(); len(texts) == 0 || texts[0] != "Failed to get user." || res.Envelope == nil || res.Envelope.Ref == "" {
			t.Fatalf("lookup: %+v, want the tool's words with a ref", res)
		}
		mcperrtest.AssertNoCanary(t, res, secret)
		checkEvent(t, tr.sent()[before:], "lookup", "TOOL_ERROR", res)
	})

	// Client errors are no incident.
	before := len(tr.sent())
	mcperrtest.AssertToolError(t, c.Call("toolerror", nil), codes.ToolFailed, "b must not be zero.")
	mcperrtest.AssertToolError(t, c.Call("notfound", nil), codes.NotFound, "Order not found: ord_9")
	if res := c.Call("cancelled", nil); res.Envelope == nil || res.Envelope.Code != codes.Cancelled {
		t.Errorf("cancelled: %+v, want CANCELLED", res)
	}
	if n := len(tr.sent()) - before; n != 0 {
		t.Errorf("client errors sent %d events", n)
	}
}

// TestEventKinds checks the tags of the events of each kind of request.
func TestEventKinds(t *testing.T) {
	for _, tc := range []struct {
		call filter.Call
		want map[string]string
	}{
		{filter.Call{Method: "resources/read", Resource: "file:///vault.txt", RequestID: "9", SessionID: "s1"},
			map[string]string{"mcp.method": "resources/read", "resource": "file:///vault.txt", "request_id": "9", "session_id": "s1"}},
		// A URI's password and query stay out of the tags.
		{filter.Call{Method: "resources/read", Resource: "db://app:" + secret + "@db/orders?token=" + secret, RequestID: "15"},
			map[string]string{"mcp.method": "resources/read", "resource": "db://app:‹×›@db/orders?‹×›", "request_id": "15"}},
		{filter.Call{Method: "prompts/get", Prompt: "greet", RequestID: "10"},
			map[string]string{"mcp.method": "prompts/get", "prompt": "greet", "request_id": "10"}},
		{filter.Call{Method: "completion/complete", Prompt: "greet", RequestID: "12"},
			map[string]string{"mcp.method": "completion/complete", "prompt": "greet", "request_id": "12"}},
		{filter.Call{Method: "tools/call", Tool: "lookup", RequestID: "13"},
			map[string]string{"mcp.method": "tools/call", "tool": "lookup", "request_id": "13"}},
		// A failure reported, not sent; a hand-built result.
		{filter.Call{Tool: "lookup", RequestID: "14"},
			map[string]string{"mcp.method": "tools/call", "tool": "lookup", "request_id": "14", "report_only": "true", "hand_built": "true"}},
		// An empty Method is a tools/call; a long tag is cut to valid UTF-8.
		{filter.Call{Tool: strings.Repeat("é", 150), RequestID: "11"},
			map[string]string{"mcp.method": "tools/call", "tool": strings.Repeat("é", 100), "request_id": "11"}},
	} {
		f := filter.Failure{
			Call:      tc.call,
			Texts:     []string{"Internal error (ref: 0123456789abcdef).", "password=" + secret},
			Envelope:  filter.Envelope{Code: codes.InternalError, Category: codes.Server, Ref: "0123456789abcdef", Message: "password=" + secret},
			Err:       fmt.Errorf("key=%s", secret),
			ErrorText: "key=" + secret,
		}
		f.ReportOnly = tc.want["report_only"] == "true"
		f.HandBuilt = tc.want["hand_built"] == "true"
		e := sentrymcp.Event(f)
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

// Observer with a nil hub uses the hub of the call's context.
func TestObserverHubFromContext(t *testing.T) {
	hub, tr := newHub(t)
	p, err := filter.New(filter.WithLogger(slog.New(slog.DiscardHandler)), filter.WithObserver(sentrymcp.Observer(nil)))
	if err != nil {
		t.Fatal(err)
	}
	f := p.Handle(sentry.SetHubOnContext(context.Background(), hub), filter.Call{Tool: "x"}, errors.New("boom"))
	if e := tr.sent(); len(e) != 1 || e[0].Tags["ref"] != f.Envelope.Ref || f.Envelope.Ref == "" {
		t.Fatalf("events %v, want one with ref %s", e, f.Envelope.Ref)
	}
}
