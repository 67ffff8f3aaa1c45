package gosdk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/errgen"
	"github.com/mcperr/mcperr/internal/panics"
)

// FuzzGoSDK calls, through the SDK's real in-memory client, tools that
// return or panic with generated errors, registered every way mcperr
// supports, and checks what the client receives: one error result, never a
// protocol error; nothing private in the raw JSON; a ref that names exactly
// one log record; and a server that still answers the next call.
//
//	go test -run='^$' -fuzz='^FuzzGoSDK$' -fuzztime=2m ./adapters/gosdk
func FuzzGoSDK(f *testing.F) {
	for _, seed := range fzSeeds() {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fzServer(t).call(t, data)
	})
}

// fzTools are the ways a failing tool is registered. Each reads its
// behaviour by the "n" of its arguments.
var fzTools = []string{
	"added_typed",   // gosdk.AddTool
	"added_raw",     // gosdk.AddRawTool
	"sdk_typed",     // mcp.AddTool, the middleware alone
	"sdk_raw",       // Server.AddTool, the middleware alone
	"sdk_raw_set",   // Server.AddTool, the error set with SetError
	"wrapped_typed", // mcp.AddTool with gosdk.Wrap
	"wrapped_raw",   // Server.AddTool with gosdk.WrapRaw
}

// fzBehaviour is what one call of a failing tool does.
type fzBehaviour struct {
	err    error
	panics bool
}

// fail returns the error, or panics with it; with the value of a
// *filter.PanicError, the value the generator meant to panic with.
func (b *fzBehaviour) fail() error {
	if b.panics {
		if pe, ok := b.err.(*filter.PanicError); ok {
			panic(pe.Value)
		}
		panic(b.err)
	}
	return b.err
}

// fzArgs are the arguments of every tool.
type fzArgs struct {
	N int64 `json:"n"`
}

// fzState is the one server of a fuzz worker and its client.
type fzState struct {
	cs         *mcp.ClientSession
	log        errgen.Log
	wire       fzWire
	registry   *codes.Registry
	behaviours sync.Map // int64 → *fzBehaviour
	next       atomic.Int64
	mu         sync.Mutex
	incidents  []filter.Incident
}

var (
	fzOnce sync.Once
	fzS    *fzState
	fzErr  error
)

// fzWire keeps what the client read, as the SDK's LoggingTransport writes
// it: one "read: <JSON>" line for each message.
type fzWire struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (w *fzWire) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

// take returns what the client read since the last take.
func (w *fzWire) take() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var read strings.Builder
	for line := range strings.Lines(w.buf.String()) {
		if rest, ok := strings.CutPrefix(line, "read: "); ok {
			read.WriteString(rest)
		}
	}
	w.buf.Reset()
	return read.String()
}

func (st *fzState) behaviour(n int64) *fzBehaviour {
	if b, ok := st.behaviours.Load(n); ok {
		return b.(*fzBehaviour)
	}
	return &fzBehaviour{err: errors.New("no behaviour " + errgen.Canary)}
}

func (st *fzState) typed(_ context.Context, _ *mcp.CallToolRequest, in fzArgs) (*mcp.CallToolResult, any, error) {
	return nil, nil, st.behaviour(in.N).fail()
}

func (st *fzState) raw(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in fzArgs
	_ = json.Unmarshal(req.Params.Arguments, &in)
	return nil, st.behaviour(in.N).fail()
}

func (st *fzState) rawSet(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	_, err := st.raw(ctx, req)
	res := &mcp.CallToolResult{}
	res.SetError(err) // the SDK calls Error, which may panic
	return res, nil
}

// fzServer returns the server of this worker, built on first use.
func fzServer(t *testing.T) *fzState {
	fzOnce.Do(func() { fzS, fzErr = fzNewServer() })
	if fzErr != nil {
		t.Fatal(fzErr)
	}
	return fzS
}

func fzNewServer() (*fzState, error) {
	st := &fzState{registry: errgen.Registry()}
	rep := filter.ReporterFunc(func(_ context.Context, in filter.Incident) {
		st.mu.Lock()
		defer st.mu.Unlock()
		st.incidents = append(st.incidents, in)
	})
	p, err := filter.New(filter.WithLogger(st.log.Logger()), filter.WithRegistry(st.registry), filter.WithReporter(rep))
	if err != nil {
		return nil, err
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "fuzz", Version: "1.0.0"}, nil)
	if err := gosdk.Install(s, p); err != nil {
		return nil, err
	}
	object := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)
	tool := func(name string) *mcp.Tool { return &mcp.Tool{Name: name, InputSchema: object} }
	typedTool := func(name string) *mcp.Tool { return &mcp.Tool{Name: name} }
	if err := gosdk.AddTool(s, typedTool("added_typed"), st.typed); err != nil {
		return nil, err
	}
	if err := gosdk.AddRawTool(s, tool("added_raw"), st.raw); err != nil {
		return nil, err
	}
	mcp.AddTool(s, typedTool("sdk_typed"), st.typed)
	s.AddTool(tool("sdk_raw"), st.raw)
	s.AddTool(tool("sdk_raw_set"), st.rawSet)
	mcp.AddTool(s, typedTool("wrapped_typed"), gosdk.Wrap(st.typed))
	s.AddTool(tool("wrapped_raw"), gosdk.WrapRaw(st.raw))
	mcp.AddTool(s, typedTool("ok"), func(context.Context, *mcp.CallToolRequest, fzArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
	})

	ctx := context.Background()
	serverT, clientT := mcp.NewInMemoryTransports()
	if _, err := s.Connect(ctx, serverT, nil); err != nil {
		return nil, err
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "fuzz-client", Version: "1.0.0"}, nil)
	st.cs, err = c.Connect(ctx, &mcp.LoggingTransport{Transport: clientT, Writer: &st.wire}, nil)
	if err != nil {
		return nil, err
	}
	st.wire.take()
	if _, err := st.log.Take(); err != nil {
		return nil, err
	}
	return st, nil
}

// fzCallTimeout bounds one call: far more than any call needs.
const fzCallTimeout = 5 * time.Second

// callTool calls tool with the behaviour n, failing the test if the call
// does not return in time.
func (st *fzState) callTool(t *testing.T, tool string, n int64) (*mcp.CallToolResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), fzCallTimeout)
	defer cancel()
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := st.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"n": n}})
		done <- answer{res, err}
	}()
	select {
	case a := <-done:
		if ctx.Err() != nil {
			t.Fatalf("the call of %s did not return within %v", tool, fzCallTimeout)
		}
		return a.res, a.err
	case <-time.After(2 * fzCallTimeout):
		t.Fatalf("the call of %s hangs, past its context's deadline", tool)
		return nil, nil
	}
}

// call runs one input: a failing call, then a successful one.
func (st *fzState) call(t *testing.T, data []byte) {
	src := errgen.NewSource(data)
	tool := fzTools[src.Op(len(fzTools))]
	panicsWith := src.Op(2) == 1
	g := errgen.New(src, errgen.Config{Panic: panics.Recovered, ChainLimit: filter.MaxChain})
	b := &fzBehaviour{err: g.Error(), panics: panicsWith}
	if (tool == "sdk_typed" || tool == "sdk_raw_set") && !panicsWith && !g.TextSafe(b.err) {
		// There the SDK calls Error before mcperr sees the error, and the
		// Error of a chain without end may never return: no adapter can
		// help that. Install's middleware still sees the raw handler's.
		tool = "sdk_raw"
	}
	n := st.next.Add(1)
	st.behaviours.Store(n, b)
	defer st.behaviours.Delete(n)
	st.mu.Lock()
	st.incidents = nil
	st.mu.Unlock()
	what := fmt.Sprintf("%T from %s (panics: %v)", b.err, tool, panicsWith)

	res, err := st.callTool(t, tool, n)
	wire := st.wire.take()
	recs, lerr := st.log.Take()
	if lerr != nil {
		t.Fatal(lerr)
	}
	if err != nil {
		t.Fatalf("protocol error %v, want an error result, for %s", errgen.Cut(err.Error()), what)
	}
	if !res.IsError {
		t.Fatalf("a result without isError, for %s", what)
	}
	if errgen.Leaked(wire) {
		i := strings.IndexByte(wire, errgen.Marker)
		t.Errorf("the canary reached the client, at %q, for %s", errgen.Cut(wire[max(0, i-100):]), what)
	}
	env, ok := res.Meta[filter.MetaKey].(map[string]any)
	if !ok {
		t.Fatalf("no envelope in _meta %v, for %s", res.Meta, what)
	}
	code, _ := env["code"].(string)
	ref, _ := env["ref"].(string)
	msg, _ := env["message"].(string)
	info, known := st.registry.Lookup(codes.Code(code))
	if !known {
		t.Errorf("code %q is not registered, for %s", errgen.Cut(code), what)
	}
	// In runes: JSON turns each byte of invalid UTF-8 into three of U+FFFD.
	if n := utf8.RuneCountInString(msg); n == 0 || n > filter.MaxMessage {
		t.Errorf("message of %d runes, for %s", n, what)
	}
	if len(res.Content) == 0 {
		t.Errorf("no content, for %s", what)
	} else if text, ok := res.Content[0].(*mcp.TextContent); !ok || text.Text != msg {
		t.Errorf("first content %v, want the message %q, for %s", res.Content[0], errgen.Cut(msg), what)
	}
	server := info.Category == codes.Server
	if server != (ref != "") {
		t.Errorf("a %s error with ref %q, for %s", code, ref, what)
	}
	failed, withRef := 0, 0
	for _, rec := range recs {
		if rec.Str("msg") == "tool call failed" {
			failed++
		}
		if ref != "" && strings.Contains(rec.Raw, ref) {
			withRef++
		}
		if l, where := errgen.Longest(rec.Fields); l > filter.MaxLogValue+100 {
			t.Errorf("a logged value of %d runes: %s, for %s", l, where, what)
		}
	}
	if failed != 1 {
		t.Errorf("%d \"tool call failed\" records, want 1, for %s", failed, what)
	}
	if ref != "" && withRef != 1 {
		t.Errorf("ref %s is in %d records, want 1, for %s", ref, withRef, what)
	}
	st.mu.Lock()
	incidents := st.incidents
	st.mu.Unlock()
	if len(incidents) > 1 || len(incidents) == 1 && incidents[0].Ref != ref {
		t.Errorf("%d incidents reported, for a response with ref %q, for %s", len(incidents), ref, what)
	}

	ok2, err := st.callTool(t, "ok", 0)
	if err != nil || ok2.IsError || len(ok2.Content) != 1 {
		t.Fatalf("the call after %s: %v, %v", what, ok2, err)
	}
	if recs, _ := st.log.Take(); len(recs) != 0 {
		t.Errorf("a successful call logged %d records", len(recs))
	}
	st.wire.take()
}

// fzSeeds are hand-picked inputs: each way of registering a tool, returning
// and panicking, with errors of each kind.
func fzSeeds() [][]byte {
	errs := [][]byte{
		{0, errgen.LeafText},
		{0, errgen.LeafPanic, 0},
		{0, errgen.LeafValidation, 1, 0, 1, 2},
		{0, errgen.LeafAuthorization},
		{0, errgen.LeafToolError, 1, 31, 12, 1},
		{0, errgen.LeafHostile, errgen.HostileErrorPanics},
		{0, errgen.LeafHostile, errgen.HostileNilErrorPanics},
		{0, errgen.LeafHostile, errgen.HostileSelf},
		{0, errgen.LeafHostile, errgen.HostileEndless},
		{0, errgen.LeafHostile, errgen.HostileNilNotFound},
		{0, errgen.LeafHuge, 7},
		{0, errgen.LeafHugePublic, 5},
		{0, errgen.LeafDeep, 5, 1},
		{1, errgen.LeafText, errgen.WrapHintBelow, 1, 0},
		{2, errgen.LeafCanceled, errgen.WrapIssueLink, errgen.WrapHint},
	}
	params := []byte{0, 0, 3, 'N', 'o', '.', 5, 'R', 'e', 't', 'r', 'y'}
	var seeds [][]byte
	for i, e := range errs {
		for tool := range fzTools {
			if (i+tool)%3 != 0 && i > 2 {
				continue // each error with a few of the ways, the first ones with all
			}
			for _, panicsWith := range []byte{0, 1} {
				seeds = append(seeds, errgen.Encode(append([]byte{byte(tool), panicsWith}, e...), params))
			}
		}
	}
	return seeds
}
