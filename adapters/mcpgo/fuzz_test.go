package mcpgo_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

// FuzzMCPGo calls, through the SDK's real in-process client, tools that
// return or panic with generated errors, registered every way mcperr
// supports, and checks what the client receives: one error result, never a
// protocol error; nothing private in the raw JSON; a ref that names exactly
// one log record; and a server that still answers the next call.
//
//	go test -run='^$' -fuzz='^FuzzMCPGo$' -fuzztime=2m ./adapters/mcpgo
func FuzzMCPGo(f *testing.F) {
	for _, seed := range adaptertest.FuzzSeeds(len(fzTools), 2) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fzServer(t).call(t, data)
	})
}

// fzTools are the ways a failing tool is registered. Each reads its
// behaviour by the "n" of its arguments.
var fzTools = []string{
	"sdk",        // Server.AddTool, the middleware alone
	"added",      // mcpgo.AddTool
	"wrapped",    // Server.AddTool with mcpgo.Wrap
	"structured", // Server.AddTool with mcpgo.Wrap(mcpgo.Structured(h))
}

// fzWire is the in-process transport, keeping the raw JSON of every
// tools/call result the client reads.
type fzWire struct {
	*transport.InProcessTransport
	mu   sync.Mutex
	read []string
}

func (w *fzWire) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	resp, err := w.InProcessTransport.SendRequest(ctx, req)
	if resp != nil {
		w.mu.Lock()
		w.read = append(w.read, string(resp.Result))
		if resp.Error != nil {
			w.read = append(w.read, fmt.Sprintf("error %d %s %s", resp.Error.Code, resp.Error.Message, resp.Error.Data))
		}
		w.mu.Unlock()
	}
	return resp, err
}

// take returns what the client read since the last take.
func (w *fzWire) take() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := strings.Join(w.read, "\n")
	w.read = nil
	return s
}

// fzState is the one server of a fuzz worker and its client.
type fzState struct {
	*adaptertest.Fuzz
	c    *client.Client
	wire *fzWire
}

var (
	fzOnce sync.Once
	fzS    *fzState
	fzErr  error
)

func (st *fzState) handler(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return nil, st.Fail(int64(req.GetInt("n", 0)))
}

func (st *fzState) structured(_ context.Context, _ mcp.CallToolRequest, in adaptertest.FuzzArgs) (adaptertest.FuzzArgs, error) {
	return adaptertest.FuzzArgs{}, st.Fail(in.N)
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
	s := server.NewMCPServer("fuzz", "1.0.0")
	if err := mcpgo.Install(s, p); err != nil {
		return nil, err
	}
	tool := func(name string) mcp.Tool { return mcp.NewTool(name, mcp.WithNumber("n")) }
	s.AddTool(tool("sdk"), st.handler)
	if err := mcpgo.AddTool(s, tool("added"), st.handler); err != nil {
		return nil, err
	}
	s.AddTool(tool("wrapped"), mcpgo.Wrap(st.handler))
	s.AddTool(tool("structured"), mcpgo.Wrap(mcpgo.Structured(st.structured)))
	s.AddTool(tool("ok"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	})

	st.wire = &fzWire{InProcessTransport: transport.NewInProcessTransport(s)}
	st.c = client.NewClient(st.wire)
	ctx := context.Background()
	if err := st.c.Start(ctx); err != nil {
		return nil, err
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "fuzz-client", Version: "1.0.0"}
	if _, err := st.c.Initialize(ctx, init); err != nil {
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
		req := mcp.CallToolRequest{}
		req.Params.Name = tool
		req.Params.Arguments = map[string]any{"n": n}
		return st.c.CallTool(ctx, req)
	})
}

// call runs one input: a failing call, then a successful one.
func (st *fzState) call(t *testing.T, data []byte) {
	tool, b, _ := adaptertest.DecodeFuzz(data, fzTools)
	n, what, end := st.Start(tool, b)
	defer end()

	res, err := st.callTool(t, tool, n)
	a := adaptertest.FuzzAnswer{Err: err}
	if err == nil {
		a.IsError, a.Meta, a.Contents = res.IsError, res.Meta, len(res.Content)
		if res.Meta != nil {
			a.Envelope, _ = res.Meta.AdditionalFields[filter.MetaKey].(map[string]any)
		}
		if len(res.Content) > 0 {
			a.First = res.Content[0]
			if text, ok := res.Content[0].(mcp.TextContent); ok {
				a.FirstText, a.FirstIsText = text.Text, true
			}
		}
	}
	st.Check(t, what, st.wire.take(), a)

	ok, err := st.callTool(t, "ok", 0)
	if err != nil || ok.IsError {
		t.Fatalf("the call after %s: %v, %v", what, ok, err)
	}
	st.CheckQuiet(t)
	st.wire.take()
}
