// Package suite is the plumbing the tests of the realistic servers share:
// each SDK's own in-memory client, what it receives for a call captured as
// bytes, one table of cases, and the checks that compare what a server with
// mcperr sends to what the same server sends bare.
package suite

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgomcp "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/filter"
)

// callTimeout bounds one call; a call never takes near as long.
const callTimeout = 30 * time.Second

// RPCError is a JSON-RPC error a call was answered with.
type RPCError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

// Answer is what a client received for one tools/call.
type Answer struct {
	// Bytes is the JSON (encoding/json) of the CallToolResult the SDK's
	// client returned or, when the call returned a JSON-RPC error, of that
	// error's code and message as an RPCError.
	Bytes []byte
	// RPC is the JSON-RPC error, or nil for a tool result.
	RPC *RPCError
	// IsError is the result's isError.
	IsError bool
	// Texts are the text blocks of the result, in order.
	Texts []string
	// Envelope is the mcperr envelope of the result, read with the
	// adapter's EnvelopeOf; nil when there is none.
	Envelope *filter.Envelope
}

// String returns the bytes of the answer.
func (a Answer) String() string { return string(a.Bytes) }

// Client calls the tools of one server.
type Client interface {
	// Call calls tool with args and returns what the client received. A
	// failure to reach the server at all is fatal to the test.
	Call(t testing.TB, tool string, args map[string]any) Answer
}

// ConnectGoSDK connects go-sdk's own client to s in memory, lists its
// tools as a client does before it calls them, and closes both sessions
// when the test ends.
func ConnectGoSDK(t testing.TB, s *gomcp.Server) Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	st, ct := gomcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatalf("server connect: %v", err)
	}
	cs, err := gomcp.NewClient(&gomcp.Implementation{Name: "realistic", Version: "1.0.0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatalf("client connect: %v", err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Wait()
	})
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	return goSDKClient{cs}
}

type goSDKClient struct{ cs *gomcp.ClientSession }

func (c goSDKClient) Call(t testing.TB, tool string, args map[string]any) Answer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	res, err := c.cs.CallTool(ctx, &gomcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		var wire *jsonrpc.Error
		if !errors.As(err, &wire) {
			t.Fatalf("call %s: %v", tool, err)
		}
		return rpcAnswer(t, &RPCError{Code: wire.Code, Message: wire.Message})
	}
	a := resultAnswer(t, res, res.IsError)
	for _, c := range res.Content {
		if tc, ok := c.(*gomcp.TextContent); ok {
			a.Texts = append(a.Texts, tc.Text)
		}
	}
	if env, ok := gosdk.EnvelopeOf(res); ok {
		a.Envelope = &env
	}
	return a
}

// ConnectMCPGo connects mcp-go's own in-process client to s, initializes
// the session, lists the tools as a client does before it calls them, and
// closes the client when the test ends.
func ConnectMCPGo(t testing.TB, s *mcpgoserver.MCPServer) Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	c, err := mcpgoclient.NewInProcessClient(s)
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if err := c.Start(ctx); err != nil {
		t.Fatalf("client start: %v", err)
	}
	var init mcpgomcp.InitializeRequest
	init.Params.ProtocolVersion = mcpgomcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcpgomcp.Implementation{Name: "realistic", Version: "1.0.0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if _, err := c.ListTools(ctx, mcpgomcp.ListToolsRequest{}); err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	return mcpGoClient{c}
}

type mcpGoClient struct{ c *mcpgoclient.Client }

// mcpGoCodes are the JSON-RPC codes whose errors mcp-go's client returns
// as a sentinel error wrapping the message: the only form in which the
// client keeps the code.
var mcpGoCodes = []struct {
	code int64
	err  error
}{
	{mcpgomcp.PARSE_ERROR, mcpgomcp.ErrParseError},
	{mcpgomcp.INVALID_REQUEST, mcpgomcp.ErrInvalidRequest},
	{mcpgomcp.METHOD_NOT_FOUND, mcpgomcp.ErrMethodNotFound},
	{mcpgomcp.INVALID_PARAMS, mcpgomcp.ErrInvalidParams},
	{mcpgomcp.INTERNAL_ERROR, mcpgomcp.ErrInternalError},
}

func (c mcpGoClient) Call(t testing.TB, tool string, args map[string]any) Answer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	var req mcpgomcp.CallToolRequest
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := c.c.CallTool(ctx, req)
	if err != nil {
		for _, k := range mcpGoCodes {
			if errors.Is(err, k.err) {
				msg := strings.TrimPrefix(err.Error(), k.err.Error()+": ")
				return rpcAnswer(t, &RPCError{Code: k.code, Message: msg})
			}
		}
		t.Fatalf("call %s: %v (not a JSON-RPC error the client can name)", tool, err)
	}
	a := resultAnswer(t, res, res.IsError)
	for _, c := range res.Content {
		if tc, ok := mcpgomcp.AsTextContent(c); ok {
			a.Texts = append(a.Texts, tc.Text)
		}
	}
	if env, ok := mcpgo.EnvelopeOf(res); ok {
		a.Envelope = &env
	}
	return a
}

func rpcAnswer(t testing.TB, e *RPCError) Answer {
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatalf("marshal JSON-RPC error: %v", err)
	}
	return Answer{Bytes: b, RPC: e}
}

func resultAnswer(t testing.TB, res any, isError bool) Answer {
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatalf("marshal result: %v", err)
	}
	return Answer{Bytes: b, IsError: isError}
}
