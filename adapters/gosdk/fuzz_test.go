package gosdk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

// FuzzGoSDK calls, through the SDK's real in-memory client, tools that
// return or panic with generated errors, registered every way mcperr
// supports, and checks what the client receives: one error result, never a
// protocol error; nothing private in the raw JSON; a ref that names exactly
// one log record; and a server that still answers the next call.
//
//	go test -run='^$' -fuzz='^FuzzGoSDK$' -fuzztime=2m ./adapters/gosdk
func FuzzGoSDK(f *testing.F) {
	for _, seed := range adaptertest.FuzzSeeds(len(fzTools), 3) {
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

// fzSDKFormats maps the tools whose error the SDK formats itself, calling
// its Error method before any middleware sees it (a typed handler's, however
// it is registered, and one set with SetError), to the raw tool registered
// the same way.
var fzSDKFormats = map[string]string{
	"added_typed":   "added_raw",
	"sdk_typed":     "sdk_raw",
	"sdk_raw_set":   "sdk_raw",
	"wrapped_typed": "wrapped_raw",
}

// fzState is the one server of a fuzz worker and its client.
type fzState struct {
	*adaptertest.Fuzz
	cs   *mcp.ClientSession
	wire fzWire
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

func (st *fzState) typed(_ context.Context, _ *mcp.CallToolRequest, in adaptertest.FuzzArgs) (*mcp.CallToolResult, any, error) {
	return nil, nil, st.Fail(in.N)
}

func (st *fzState) raw(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in adaptertest.FuzzArgs
	_ = json.Unmarshal(req.Params.Arguments, &in)
	return nil, st.Fail(in.N)
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
	st := &fzState{Fuzz: adaptertest.NewFuzz()}
	p, err := st.Pipeline()
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
	mcp.AddTool(s, typedTool("ok"), func(context.Context, *mcp.CallToolRequest, adaptertest.FuzzArgs) (*mcp.CallToolResult, any, error) {
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
	if _, err := st.Log.Take(); err != nil {
		return nil, err
	}
	return st, nil
}

// callTool calls tool with the behaviour n, failing the test if the call
// does not return in time.
func (st *fzState) callTool(t *testing.T, tool string, n int64) (*mcp.CallToolResult, error) {
	t.Helper()
	return adaptertest.CallWithin(t, tool, func(ctx context.Context) (*mcp.CallToolResult, error) {
		return st.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"n": n}})
	})
}

// call runs one input: a failing call, then a successful one.
func (st *fzState) call(t *testing.T, data []byte) {
	tool, b, g := adaptertest.DecodeFuzz(data, fzTools)
	if raw, ok := fzSDKFormats[tool]; ok && !b.Panics && !g.TextSafe(b.Err) {
		// There the SDK calls Error before mcperr sees the error, and the
		// Error of a chain without end may never return: no adapter can
		// help that. The raw handler registered the same way is called
		// instead, whose error only mcperr reads.
		tool = raw
	}
	n, what, end := st.Start(tool, b)
	defer end()

	res, err := st.callTool(t, tool, n)
	a := adaptertest.FuzzAnswer{Err: err}
	if err == nil {
		a.IsError, a.Meta, a.Contents = res.IsError, res.Meta, len(res.Content)
		a.Envelope, _ = res.Meta[filter.MetaKey].(map[string]any)
		if len(res.Content) > 0 {
			a.First = res.Content[0]
			if text, ok := res.Content[0].(*mcp.TextContent); ok {
				a.FirstText, a.FirstIsText = text.Text, true
			}
		}
	}
	st.Check(t, what, st.wire.take(), a)

	ok2, err := st.callTool(t, "ok", 0)
	if err != nil || ok2.IsError || len(ok2.Content) != 1 {
		t.Fatalf("the call after %s: %v, %v", what, ok2, err)
	}
	st.CheckQuiet(t)
	st.wire.take()
}
