// Package gosdktest connects go-sdk's own client to a go-sdk server in
// memory, for tests, and returns what the client receives for each call as
// an mcperrtest.Result, to be checked with mcperrtest's assertions.
//
//	log := mcperrtest.NewLog(t)
//	// ... build the server with filter.WithLogger(log.Logger()) ...
//	c := gosdktest.Connect(t, server)
//	mcperrtest.AssertToolError(t, c.Call("get_order", map[string]any{"id": "ord_404"}), codes.NotFound, "Order not found: ord_404")
//
// It is for tests only. It never changes what the server sends or what the
// client receives: it records the responses the client reads, as it reads
// them.
package gosdktest

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/internal/gosdkcompat"
	"github.com/mcperr/mcperr/mcperrtest"
)

// defaultCallTimeout bounds one call, so that a handler that never
// returns fails the test with a message instead of hanging it.
const defaultCallTimeout = time.Minute

// ProtocolVersions returns the protocol versions a test should run a server
// under, newest first: the newest the go-sdk in the build speaks (with
// go-sdk v1.8.0, 2026-07-28, whose sessions begin with server/discover),
// and the newest it speaks with the initialize handshake, if that is
// another. What a result looks like differs between them (the newest adds
// to its _meta). Before go-sdk v1.8.0, whose client cannot ask for a
// version, it is the one version the client speaks.
func ProtocolVersions() []string { return gosdkcompat.ProtocolVersions() }

// Option configures Connect.
type Option func(*config)

type config struct {
	version string
	timeout time.Duration
}

// WithProtocolVersion makes the client ask for protocol version v, one of
// those go-sdk speaks. Connect fails the test if the session does not speak
// it, or if the go-sdk in the build cannot ask for a version (before
// v1.8.0). By default the client asks for the newest, as go-sdk's client
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

// Client is go-sdk's client, connected to a server in memory, that records
// what it receives.
type Client struct {
	tb      testing.TB
	timeout time.Duration // bounds each Call
	session *mcp.ClientSession
	rec     *recorder
	mu      sync.Mutex // serializes Call, so that one response is one call's
	close   func()     // closes the session once

	unanswered atomic.Bool // a call got no answer
}

// Connect connects go-sdk's own client to s over in-memory transports and
// lists s's tools, as every client does before it calls one. The session
// is closed when the test ends, or by Close. Connect fails the test if s cannot be
// connected, or the session does not speak the protocol version asked for.
func Connect(tb testing.TB, s *mcp.Server, opts ...Option) *Client {
	tb.Helper()
	cfg := config{timeout: defaultCallTimeout}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.timeout <= 0 {
		cfg.timeout = defaultCallTimeout
	}
	if s == nil {
		tb.Fatalf("gosdktest.Connect: the server is nil")
		return nil
	}
	sessionOpts, err := gosdkcompat.ClientOptions(cfg.version)
	if err != nil {
		tb.Fatalf("gosdktest.Connect: go-sdk does not speak protocol version %q: %v", cfg.version, err)
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), defaultCallTimeout)
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		tb.Fatalf("gosdktest.Connect: connect the server: %v", err)
		return nil
	}
	rec := &recorder{}
	client := mcp.NewClient(&mcp.Implementation{Name: "mcperrtest", Version: "0.0.0"}, nil)
	cs, err := client.Connect(ctx, &recordingTransport{inner: ct, rec: rec}, sessionOpts)
	if err != nil {
		ss.Close()
		tb.Fatalf("gosdktest.Connect: connect the client: %v", err)
		return nil
	}
	c := &Client{tb: tb, session: cs, rec: rec, timeout: cfg.timeout}
	c.close = sync.OnceFunc(func() { c.closeSession(ss) })
	tb.Cleanup(c.close)
	want := cfg.version
	if want == "" {
		want = ProtocolVersions()[0]
	}
	if got := cs.InitializeResult().ProtocolVersion; got != want {
		tb.Fatalf("gosdktest.Connect: go-sdk does not speak protocol version %q: the session speaks %q; it speaks %q", want, got, ProtocolVersions())
		return nil
	}
	for _, err := range cs.Tools(ctx, nil) {
		if err != nil {
			tb.Fatalf("gosdktest.Connect: list the server's tools: %v", err)
			return nil
		}
	}
	return c
}

// closeSession closes the client's session and waits until the server
// has ended its side, ss. It does not wait after a call that got no
// answer: go-sdk counts such a call in flight for as long as the session
// lives, so the server session never ends.
func (c *Client) closeSession(ss *mcp.ServerSession) {
	c.session.Close()
	if c.unanswered.Load() {
		c.tb.Logf("gosdktest: not waiting for the server session to end: a call got no answer, and go-sdk counts it in flight for as long as the session lives")
		return
	}
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		ss.Wait()
	}()
	select {
	case <-ended:
	case <-time.After(defaultCallTimeout):
		c.tb.Errorf("gosdktest: the server session did not end within %v of closing the client", defaultCallTimeout)
	}
}

// Close closes the session and waits until the server has ended its side,
// so that the test can check afterwards that nothing was left running
// (goleak.VerifyNone). Connect closes it when the test ends; closing twice
// is harmless. No Call may follow.
func (c *Client) Close() { c.close() }

// Call calls tool name with args (nil for none; anything that encodes to a
// JSON object) and returns what the client received. A JSON-RPC error, such
// as the one for an unknown tool, is an answer too: it comes back as a
// Result whose ProtocolError is set, for mcperrtest.AssertProtocolError.
// Call fails the test (with Fatalf) only when there is no answer at all:
// the connection is gone, or a minute (see WithCallTimeout) passed, as for
// a handler that called runtime.Goexit, whose call mcperr logs once and
// leaves unanswered.
//
// Calls on one Client run one at a time.
func (c *Client) Call(name string, args any) *mcperrtest.Result {
	c.tb.Helper()
	return c.do("tools/call", name, func(ctx context.Context) error {
		_, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		return err
	})
}

// ReadResource reads the resource uri and returns what the client
// received: a Result whose ProtocolError is set when the read failed, for
// mcperrtest.AssertMasked and mcperrtest.AssertProtocolError, as Call.
func (c *Client) ReadResource(uri string) *mcperrtest.Result {
	c.tb.Helper()
	return c.do("resources/read", uri, func(ctx context.Context) error {
		_, err := c.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		return err
	})
}

// GetPrompt gets the prompt name with args and returns what the client
// received, as ReadResource.
func (c *Client) GetPrompt(name string, args map[string]string) *mcperrtest.Result {
	c.tb.Helper()
	return c.do("prompts/get", name, func(ctx context.Context) error {
		_, err := c.session.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
		return err
	})
}

// do sends one request of method for target with send, and returns what
// the client received.
func (c *Client) do(method, target string, send func(ctx context.Context) error) *mcperrtest.Result {
	c.tb.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	c.rec.start(method)
	err := send(ctx)
	raw, received := c.rec.take()
	if raw == nil {
		c.unanswered.Store(true)
		c.tb.Fatalf("gosdktest: %s %q: no response: %v", method, target, err)
		return nil
	}
	res, perr := mcperrtest.ParseResponse(target, raw)
	if perr != nil {
		c.tb.Fatalf("gosdktest: %s %q: %v\nthe client received: %s", method, target, perr, raw)
		return nil
	}
	res.Method = method
	res.Received = received
	return res
}

// SDKClient returns go-sdk's own client session, for requests the kit does
// not make.
func (c *Client) SDKClient() *mcp.ClientSession { return c.session }

// recorder keeps the response to the tools/call request in flight, and
// every other message the client reads meanwhile.
type recorder struct {
	mu       sync.Mutex
	method   string // of the request in flight
	waiting  bool
	id       jsonrpc.ID
	sent     bool
	raw      []byte
	received []json.RawMessage
}

// start prepares for a new request of method.
func (r *recorder) start(method string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.method, r.waiting, r.sent, r.raw, r.received = method, true, false, nil, nil
}

// take returns the response to the call, or nil, and the other messages
// read while it was in flight, and stops waiting.
func (r *recorder) take() ([]byte, []json.RawMessage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.waiting = false
	return r.raw, r.received
}

// other keeps msg, a message that is not the call's response, if a call is
// in flight.
func (r *recorder) other(msg jsonrpc.Message) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.waiting {
		return
	}
	if raw, err := jsonrpc.EncodeMessage(msg); err == nil {
		r.received = append(r.received, raw)
	}
}

// request notes the id of a request of the method in flight that the
// client writes. The last one of a call is the one answered last: go-sdk
// may send more than one for a call under the newest protocol.
func (r *recorder) request(req *jsonrpc.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.waiting && req.Method == r.method {
		r.id, r.sent = req.ID, true
	}
}

// response keeps the encoded resp if it answers the call's request, and
// among the other messages otherwise.
func (r *recorder) response(resp *jsonrpc.Response) {
	r.mu.Lock()
	if !r.waiting || !r.sent || resp.ID != r.id {
		r.mu.Unlock()
		r.other(resp)
		return
	}
	defer r.mu.Unlock()
	raw, err := jsonrpc.EncodeMessage(resp)
	if err == nil {
		r.raw = raw
	}
}

// recordingTransport is the client's transport, recording what it reads.
type recordingTransport struct {
	inner mcp.Transport
	rec   *recorder
}

func (t *recordingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &recordingConn{Connection: conn, rec: t.rec}, nil
}

// recordingConn is a connection of the client, recording the tools/call
// requests it writes and the responses it reads.
type recordingConn struct {
	mcp.Connection
	rec *recorder
}

func (c *recordingConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		c.rec.request(req)
	}
	return c.Connection.Write(ctx, msg)
}

func (c *recordingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err != nil {
		return msg, err
	}
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.rec.response(resp)
	} else {
		c.rec.other(msg)
	}
	return msg, err
}
