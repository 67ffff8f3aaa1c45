package gosdktest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/adapters/gosdk/gosdktest"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/mcperrtest"
	"github.com/mcperr/mcperr/toolerr"
)

// canary is a secret the test server puts where only its log should see it.
const canary = "hunter2-CANARY-gosdktest"

type orderArgs struct {
	ID string `json:"id"`
}

type divideArgs struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

// newServer returns a server whose tools fail each way the kit asserts,
// logging into log.
func newServer(t testing.TB, log *mcperrtest.Log) *mcp.Server {
	t.Helper()
	p, err := filter.New(filter.WithLogger(log.Logger()))
	if err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "gosdktest", Version: "1.0.0"}, nil)
	if err := gosdk.Install(s, p); err != nil {
		t.Fatal(err)
	}
	add := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	add(gosdk.AddTool(s, &mcp.Tool{Name: "get_order"}, func(_ context.Context, _ *mcp.CallToolRequest, in orderArgs) (*mcp.CallToolResult, any, error) {
		if in.ID == "ord_404" {
			return nil, nil, domain.NewNotFound("Order", in.ID)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "order " + in.ID}}}, nil, nil
	}))
	add(gosdk.AddTool(s, &mcp.Tool{Name: "divide"}, func(_ context.Context, _ *mcp.CallToolRequest, in divideArgs) (*mcp.CallToolResult, any, error) {
		if in.B == 0 {
			return nil, nil, toolerr.New("b must not be zero.")
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(in.A / in.B)}}}, nil, nil
	}))
	add(gosdk.AddTool(s, &mcp.Tool{Name: "lookup"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return nil, nil, errors.New("dial 10.0.0.5: password=" + canary + " refused")
	}))
	add(gosdk.AddTool(s, &mcp.Tool{Name: "crash"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		panic("nil map write near " + canary)
	}))
	add(gosdk.AddTool(s, &mcp.Tool{Name: "leak"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		// A ToolError is sent as written: this tool leaks on purpose.
		return nil, nil, toolerr.New("The token " + canary + " was refused.")
	}))
	add(gosdk.AddRawTool(s, &mcp.Tool{Name: "quota", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, &jsonrpc.Error{Code: -32050, Message: "quota exhausted"}
	}))
	return s
}

// eachVersion runs body once for each protocol version the SDK speaks,
// with a fresh server and a client connected to it.
func eachVersion(t *testing.T, body func(t *testing.T, c *gosdktest.Client, log *mcperrtest.Log)) {
	for _, v := range gosdktest.ProtocolVersions() {
		t.Run(v, func(t *testing.T) {
			log := mcperrtest.NewLog(t)
			body(t, gosdktest.Connect(t, newServer(t, log), gosdktest.WithProtocolVersion(v)), log)
		})
	}
}

// fails runs assert under a fake TB and checks that it fails with a
// message holding wants and what the client received.
func fails(t *testing.T, assert func(tb testing.TB), wants ...string) {
	t.Helper()
	f := &fakeTB{}
	f.Run(assert)
	wantFailure(t, f, wants...)
}

func TestAssertSuccess(t *testing.T) {
	eachVersion(t, func(t *testing.T, c *gosdktest.Client, _ *mcperrtest.Log) {
		res := c.Call("get_order", map[string]any{"id": "ord_1"})
		mcperrtest.AssertSuccess(t, res)
		if res.Text() != "order ord_1" {
			t.Errorf("text = %q", res.Text())
		}
		fails(t, func(tb testing.TB) {
			mcperrtest.AssertSuccess(tb, c.Call("get_order", map[string]any{"id": "ord_404"}))
		},
			"AssertSuccess failed", "isError is true, want false", `"code": "NOT_FOUND"`)
	})
}

func TestAssertToolError(t *testing.T) {
	eachVersion(t, func(t *testing.T, c *gosdktest.Client, _ *mcperrtest.Log) {
		mcperrtest.AssertToolError(t, c.Call("get_order", map[string]any{"id": "ord_404"}), codes.NotFound, "Order not found: ord_404")
		mcperrtest.AssertToolError(t, c.Call("divide", map[string]any{"a": 1, "b": 0}), codes.ToolFailed, "b must not be zero.")
		fails(t, func(tb testing.TB) {
			mcperrtest.AssertToolError(tb, c.Call("get_order", map[string]any{"id": "ord_404"}), codes.Conflict, "Order not found: ord_404")
		}, "the envelope's code is NOT_FOUND, want CONFLICT", `"text": "Order not found: ord_404"`)
		fails(t, func(tb testing.TB) {
			mcperrtest.AssertToolError(tb, c.Call("divide", map[string]any{"a": 1, "b": 0}), codes.ToolFailed, "b must be non-zero.")
		}, `the message (content[0]) is "b must not be zero.", want "b must be non-zero."`)
	})
}

func TestAssertMasked(t *testing.T) {
	eachVersion(t, func(t *testing.T, c *gosdktest.Client, log *mcperrtest.Log) {
		for _, tool := range []string{"lookup", "crash"} {
			res := c.Call(tool, nil)
			ref := mcperrtest.AssertMasked(t, res, log)
			mcperrtest.AssertNoCanary(t, res, canary)
			if recs := log.WithRef(ref); len(recs) != 1 || !strings.Contains(fmt.Sprint(recs[0].Attrs["error"]), canary) && tool == "lookup" {
				t.Errorf("the record of %s: %v", tool, recs)
			}
		}
		fails(t, func(tb testing.TB) { mcperrtest.AssertMasked(tb, c.Call("lookup", nil), mcperrtest.NewLog(tb)) },
			"is named by 0 log records, want exactly 1", `"code": "INTERNAL_ERROR"`)
		fails(t, func(tb testing.TB) {
			mcperrtest.AssertMasked(tb, c.Call("get_order", map[string]any{"id": "ord_404"}), log)
		},
			"the envelope's code is NOT_FOUND, want INTERNAL_ERROR")
	})
}

func TestAssertValidation(t *testing.T) {
	eachVersion(t, func(t *testing.T, c *gosdktest.Client, _ *mcperrtest.Log) {
		mcperrtest.AssertValidation(t, c.Call("divide", map[string]any{"a": 1}), "b")
		res := c.Call("divide", map[string]any{"a": canary, "b": 2})
		mcperrtest.AssertValidation(t, res, "a")
		mcperrtest.AssertNoCanary(t, res, canary)
		fails(t, func(tb testing.TB) { mcperrtest.AssertValidation(tb, c.Call("divide", map[string]any{"a": 1}), "a") },
			`the violated fields are ["b"], want ["a"]`, `"code": "VALIDATION_ERROR"`)
	})
}

func TestAssertNoCanary(t *testing.T) {
	eachVersion(t, func(t *testing.T, c *gosdktest.Client, _ *mcperrtest.Log) {
		fails(t, func(tb testing.TB) { mcperrtest.AssertNoCanary(tb, c.Call("leak", nil), canary) },
			"the client received the canary as", "in result.content[0].text", "in result._meta.io.github.mcperr/error.message")
	})
}

func TestAssertProtocolError(t *testing.T) {
	eachVersion(t, func(t *testing.T, c *gosdktest.Client, _ *mcperrtest.Log) {
		res := c.Call("no_such_tool", nil)
		mcperrtest.AssertProtocolError(t, res, jsonrpc.CodeInvalidParams)
		mcperrtest.AssertProtocolError(t, c.Call("quota", nil), -32050)
		fails(t, func(tb testing.TB) { mcperrtest.AssertProtocolError(tb, c.Call("quota", nil), -32000) },
			"the JSON-RPC error's code is -32050, want -32000", `"message": "quota exhausted"`)
		fails(t, func(tb testing.TB) { mcperrtest.AssertToolError(tb, res, codes.NotFound, "x") },
			"the server answered with a JSON-RPC error (code -32602")
	})
}

func TestCallReturnsEachCallsOwnResponse(t *testing.T) {
	eachVersion(t, func(t *testing.T, c *gosdktest.Client, _ *mcperrtest.Log) {
		var wg sync.WaitGroup
		for i := range 16 {
			wg.Go(func() {
				id := fmt.Sprint("ord_", i)
				if got := c.Call("get_order", map[string]any{"id": id}).Text(); got != "order "+id {
					t.Errorf("call for %s got %q", id, got)
				}
			})
		}
		wg.Wait()
	})
}

func TestConnectRefusesWhatItCannotDo(t *testing.T) {
	for _, c := range []struct {
		name string
		s    *mcp.Server
		opts []gosdktest.Option
		want string
	}{
		{"nil server", nil, nil, "the server is nil"},
		{"unknown version", mcp.NewServer(&mcp.Implementation{Name: "x", Version: "1"}, nil),
			[]gosdktest.Option{gosdktest.WithProtocolVersion("2099-01-01")}, `go-sdk does not speak protocol version "2099-01-01"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := &fakeTB{}
			f.Run(func(tb testing.TB) { gosdktest.Connect(tb, c.s, c.opts...) })
			if len(f.Fatals()) != 1 || !strings.Contains(f.Fatals()[0], c.want) {
				t.Errorf("reported %q, want a Fatalf holding %q", f.Reported(), c.want)
			}
		})
	}
}

func TestProtocolVersionsAreSpoken(t *testing.T) {
	for _, v := range gosdktest.ProtocolVersions() {
		c := gosdktest.Connect(t, mcp.NewServer(&mcp.Implementation{Name: "x", Version: "1"}, nil), gosdktest.WithProtocolVersion(v))
		if got := c.SDKClient().InitializeResult().ProtocolVersion; got != v {
			t.Errorf("asked for %s, the session speaks %s", v, got)
		}
	}
	c := gosdktest.Connect(t, mcp.NewServer(&mcp.Implementation{Name: "x", Version: "1"}, nil))
	if got := c.SDKClient().InitializeResult().ProtocolVersion; got != gosdktest.ProtocolVersions()[0] {
		t.Errorf("by default the session speaks %s", got)
	}
}
