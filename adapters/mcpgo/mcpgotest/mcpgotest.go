// Package mcpgotest connects mcp-go's own client to an mcp-go server in
// process, for tests, and returns what the client receives for each call as
// an mcperrtest.Result, to be checked with mcperrtest's assertions.
//
//	log := mcperrtest.NewLog(t)
//	// ... build the server with filter.WithLogger(log.Logger()) ...
//	c := mcpgotest.Connect(t, server)
//	mcperrtest.AssertToolError(t, c.Call("get_order", map[string]any{"id": "ord_404"}), codes.NotFound, "Order not found: ord_404")
//
// It is for tests only. It never changes what the server sends or what the
// client receives: it records the responses the client reads, as it reads
// them.
package mcpgotest

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/mcperrtest"
)

// defaultCallTimeout bounds one call, so that a handler that never
// returns fails the test with a message instead of hanging it.
const defaultCallTimeout = time.Minute

// ProtocolVersions returns the protocol versions a test should run a server
// under, newest first: mcp.LATEST_PROTOCOL_VERSION, whose sessions begin
// with server/discover, and mcp.LATEST_LEGACY_PROTOCOL_VERSION, the newest
// with the initialize handshake.
func ProtocolVersions() []string {
	return []string{mcp.LATEST_PROTOCOL_VERSION, mcp.LATEST_LEGACY_PROTOCOL_VERSION}
}

// Option configures Connect.
type Option func(*config)

type config struct {
	version string
	timeout time.Duration
}

// WithProtocolVersion makes the client ask for protocol version v, one of
// mcp.ValidProtocolVersions. Connect fails the test if the session does not
// speak it. By default the client asks for the newest, as mcp-go's client
// does.
func WithProtocolVersion(v string) Option {
	return func(c *config) { c.version = v }
}

// WithCallTimeout bounds each Call to d instead of a minute: a call
// without an answer by then fails the test. A test of a
// handler that must go unanswered (one that calls runtime.Goexit) sets a
// short one. A d of zero or less keeps the default.
func WithCallTimeout(d time.Duration) Option {
	return func(c *config) { c.timeout = d }
}

// Client is mcp-go's client, connected to a server in process, that
// records what it receives.
type Client struct {
	tb      testing.TB
	timeout time.Duration // bounds each Call
	client  *client.Client
	rec     *recordingTransport
	mu      sync.Mutex // serializes Call, so that one response is one call's
	close   func()     // closes the client once
}

// Connect connects mcp-go's own in-process client to s, initializes the
// session and lists s's tools, if it has any, as every client does before
// it calls one.
// The client is closed when the test ends, or by Close. Connect fails the test if the
// session cannot start, or does not speak the protocol version asked for.
func Connect(tb testing.TB, s *server.MCPServer, opts ...Option) *Client {
	tb.Helper()
	cfg := config{timeout: defaultCallTimeout}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.timeout <= 0 {
		cfg.timeout = defaultCallTimeout
	}
	if s == nil {
		tb.Fatalf("mcpgotest.Connect: the server is nil")
		return nil
	}
	if cfg.version != "" && !slices.Contains(mcp.ValidProtocolVersions, cfg.version) {
		tb.Fatalf("mcpgotest.Connect: mcp-go does not speak protocol version %q; it speaks %q", cfg.version, mcp.ValidProtocolVersions)
		return nil
	}
	want := cfg.version
	if want == "" {
		want = ProtocolVersions()[0]
	}
	ctx, cancel := context.WithTimeout(context.Background(), defaultCallTimeout)
	defer cancel()
	rec := &recordingTransport{InProcessTransport: transport.NewInProcessTransport(s)}
	c := client.NewClient(rec)
	if err := c.Start(ctx); err != nil {
		tb.Fatalf("mcpgotest.Connect: start the client: %v", err)
		return nil
	}
	closeOnce := sync.OnceFunc(func() { c.Close() })
	tb.Cleanup(closeOnce)
	ir := mcp.InitializeRequest{}
	ir.Params.ProtocolVersion = want
	ir.Params.ClientInfo = mcp.Implementation{Name: "mcperrtest", Version: "0.0.0"}
	res, err := c.Initialize(ctx, ir)
	if err != nil {
		tb.Fatalf("mcpgotest.Connect: initialize: %v", err)
		return nil
	}
	if res.ProtocolVersion != want {
		tb.Fatalf("mcpgotest.Connect: the session speaks protocol version %q, want %q", res.ProtocolVersion, want)
		return nil
	}
	var req mcp.ListToolsRequest
	for res.Capabilities.Tools != nil {
		page, err := c.ListTools(ctx, req)
		if err != nil {
			tb.Fatalf("mcpgotest.Connect: list the server's tools: %v", err)
			return nil
		}
		if page.NextCursor == "" {
			break
		}
		req.Params.Cursor = page.NextCursor
	}
	return &Client{tb: tb, client: c, rec: rec, close: closeOnce, timeout: cfg.timeout}
}

// Close closes the client and its session, so that the test can check
// afterwards that nothing was left running (goleak.VerifyNone). Connect
// closes it when the test ends; closing twice is harmless. No Call may
// follow.
func (c *Client) Close() { c.close() }

// Call calls tool name with args (nil for none; anything that encodes to a
// JSON object) and returns what the client received. A JSON-RPC error, such
// as the one for an unknown tool, is an answer too: it comes back as a
// Result whose ProtocolError is set, for mcperrtest.AssertProtocolError.
// Call fails the test (with Fatalf) only when there is no answer at all:
// a minute (see WithCallTimeout) passed, or the handler called
// runtime.Goexit, whose call mcperr logs once and leaves unanswered. The
// in-process client runs the handler on the calling goroutine: Call makes
// each call from a goroutine of its own, so that such a handler ends that
// one, not the test's.
//
// Calls on one Client run one at a time.
func (c *Client) Call(name string, args any) *mcperrtest.Result {
	c.tb.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	if args != nil {
		req.Params.Arguments = args
	}
	return c.do(string(mcp.MethodToolsCall), name, func(ctx context.Context) error {
		_, err := c.client.CallTool(ctx, req)
		return err
	})
}

// ReadResource reads the resource uri and returns what the client
// received: a Result whose ProtocolError is set when the read failed, for
// mcperrtest.AssertMasked and mcperrtest.AssertProtocolError, as Call.
func (c *Client) ReadResource(uri string) *mcperrtest.Result {
	c.tb.Helper()
	req := mcp.ReadResourceRequest{}
	req.Params.URI = uri
	return c.do(string(mcp.MethodResourcesRead), uri, func(ctx context.Context) error {
		_, err := c.client.ReadResource(ctx, req)
		return err
	})
}

// GetPrompt gets the prompt name with args and returns what the client
// received, as ReadResource.
func (c *Client) GetPrompt(name string, args map[string]string) *mcperrtest.Result {
	c.tb.Helper()
	req := mcp.GetPromptRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	return c.do(string(mcp.MethodPromptsGet), name, func(ctx context.Context) error {
		_, err := c.client.GetPrompt(ctx, req)
		return err
	})
}

// do sends one request of method for target with send, on a goroutine of
// its own so that a handler that never answers fails the test instead of
// hanging it, and returns what the client received.
func (c *Client) do(method, target string, send func(ctx context.Context) error) *mcperrtest.Result {
	c.tb.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	c.rec.start(method)
	var err error
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		err = send(ctx)
	}()
	select {
	case <-ended:
	case <-ctx.Done():
		// A handler that ignores its context still runs; the request has
		// no answer.
		c.rec.take(true, 0)
		c.tb.Fatalf("mcpgotest: %s %q: no response: %v", method, target, ctx.Err())
		return nil
	}
	raw, received := c.rec.take(false, time.Second)
	if raw == nil {
		if err == nil {
			err = errors.New("the calling goroutine ended without one, as it does when the handler calls runtime.Goexit")
		}
		c.tb.Fatalf("mcpgotest: %s %q: no response: %v", method, target, err)
		return nil
	}
	res, perr := mcperrtest.ParseResponse(target, raw)
	if perr != nil {
		c.tb.Fatalf("mcpgotest: %s %q: %v\nthe client received: %s", method, target, perr, raw)
		return nil
	}
	res.Method = method
	res.Received = received
	return res
}

// SDKClient returns mcp-go's own client, for requests the kit does not
// make.
func (c *Client) SDKClient() *client.Client { return c.client }

// recordingTransport is the client's in-process transport, recording the
// response to the tools/call request in flight and the notifications the
// client receives meanwhile.
type recordingTransport struct {
	*transport.InProcessTransport

	mu       sync.Mutex
	method   string // of the request in flight
	waiting  bool
	raw      []byte
	received []json.RawMessage
	last     time.Time // when the last notification arrived
}

// quietFor is how long take waits, after the response, for no further
// notification: mcp-go hands a session's notifications to the client on a
// goroutine of its own, so one the server sent before its response may
// reach the client just after it.
const quietFor = 25 * time.Millisecond

// start prepares for a new request of method.
func (t *recordingTransport) start(method string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.method, t.waiting, t.raw, t.received, t.last = method, true, nil, nil, time.Now()
}

// take returns the response to the call, or nil, and the notifications
// received while it was in flight, and stops waiting. Unless quick, it
// first waits until no notification has arrived for quietFor, at most
// limit.
func (t *recordingTransport) take(quick bool, limit time.Duration) ([]byte, []json.RawMessage) {
	deadline := time.Now().Add(limit)
	for !quick {
		t.mu.Lock()
		quiet := time.Since(t.last)
		t.mu.Unlock()
		if quiet >= quietFor || time.Now().After(deadline) {
			break
		}
		time.Sleep(quietFor - quiet)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.waiting = false
	return t.raw, t.received
}

// SetNotificationHandler records each notification the client receives
// while a call is in flight, and hands every notification to handler.
func (t *recordingTransport) SetNotificationHandler(handler func(mcp.JSONRPCNotification)) {
	t.InProcessTransport.SetNotificationHandler(func(n mcp.JSONRPCNotification) {
		t.mu.Lock()
		if t.waiting {
			if raw, err := json.Marshal(n); err == nil {
				t.received = append(t.received, raw)
			}
			t.last = time.Now()
		}
		t.mu.Unlock()
		if handler != nil {
			handler(n)
		}
	})
}

// SendRequest sends request and keeps the response the client receives,
// if it answers a request of the method in flight: the last one, since the
// client may send more than one for a call under the newest protocol.
func (t *recordingTransport) SendRequest(ctx context.Context, request transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	resp, err := t.InProcessTransport.SendRequest(ctx, request)
	if err != nil || resp == nil {
		return resp, err
	}
	raw, merr := json.Marshal(resp)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.waiting && merr == nil && request.Method == t.method {
		t.raw = raw
	}
	return resp, err
}
