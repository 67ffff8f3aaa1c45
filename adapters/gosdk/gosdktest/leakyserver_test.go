package gosdktest_test

import (
	"context"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/adapters/gosdk/gosdktest"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/mcperrtest"
)

// leakyServer returns a server whose tools fail with a secret in their
// error, masked correctly by mcperr, and a debugging middleware of the
// server's own, outermost, that puts the error behind the masked result
// somewhere else in it: a second text block, the structured content, or
// a _meta key, as the tool's name says.
func leakyServer(t *testing.T, log *mcperrtest.Log) *mcp.Server {
	t.Helper()
	p, err := filter.New(filter.WithLogger(log.Logger()))
	if err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "leaky", Version: "1.0.0"}, nil)
	if err := gosdk.Install(s, p); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"leak_block", "leak_structured", "leak_meta"} {
		mcp.AddTool(s, &mcp.Tool{Name: name}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return nil, nil, errors.New("dial 10.0.0.5:5432: password=" + canary + " refused")
		})
	}
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			r, ok := res.(*mcp.CallToolResult)
			if !ok || r.GetError() == nil {
				return res, err
			}
			cause := errors.Unwrap(r.GetError()) // the handler's own error
			if cause == nil {
				return res, err
			}
			switch req.(*mcp.CallToolRequest).Params.Name {
			case "leak_block":
				r.Content = append(r.Content, &mcp.TextContent{Text: "debug: " + cause.Error()})
			case "leak_structured":
				r.StructuredContent = map[string]any{"debug": cause.Error()}
			case "leak_meta":
				r.Meta["debug"] = cause.Error()
			}
			return r, err
		}
	})
	return s
}

// TestAssertMaskedFailsOnALeakingServer checks that AssertMasked fails on a
// result whose first block is correctly masked but whose other parts carry
// the error.
func TestAssertMaskedFailsOnALeakingServer(t *testing.T) {
	log := mcperrtest.NewLog(t)
	c := gosdktest.Connect(t, leakyServer(t, log))
	for tool, want := range map[string]string{
		"leak_block":      `a part of the masked error`,
		"leak_structured": `the result has structuredContent`,
		"leak_meta":       `"password=` + canary + `", a part of the masked error`,
	} {
		t.Run(tool, func(t *testing.T) {
			fails(t, func(tb testing.TB) { mcperrtest.AssertMasked(tb, c.Call(tool, nil), log) }, want)
		})
	}
}

// TestAssertNoCanaryReadsNotifications checks that AssertNoCanary fails on
// a call whose result is clean but whose server sent the canary in a log
// notification while the call was in flight.
func TestAssertNoCanaryReadsNotifications(t *testing.T) {
	log := mcperrtest.NewLog(t)
	p, err := filter.New(filter.WithLogger(log.Logger()))
	if err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "chatty", Version: "1.0.0"}, nil)
	if err := gosdk.Install(s, p); err != nil {
		t.Fatal(err)
	}
	mcp.AddTool(s, &mcp.Tool{Name: "chatty"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		//lint:ignore SA1019 servers still log to clients in the deprecation window; this one leaks through it on purpose
		if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "error", Data: "dial db: password=" + canary}); err != nil {
			return nil, nil, err
		}
		return nil, nil, errors.New("dial db refused")
	})
	// Log messages follow the level the client sets, which it does with
	// logging/setLevel on the versions with the initialize handshake.
	versions := gosdktest.ProtocolVersions()
	c := gosdktest.Connect(t, s, gosdktest.WithProtocolVersion(versions[len(versions)-1]))
	//lint:ignore SA1019 the client asks for the log messages the server above leaks through
	if err := c.SDKClient().SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	res := c.Call("chatty", nil)
	mcperrtest.AssertMasked(t, res, log) // the result itself is clean
	fails(t, func(tb testing.TB) { mcperrtest.AssertNoCanary(tb, res, canary) }, "in received[0] (a notifications/message)")
}

// TestResourcesAndPrompts checks that the kit reads resources and prompts,
// and that AssertMasked holds their masked JSON-RPC errors and fails on a
// server that sends the error's text.
func TestResourcesAndPrompts(t *testing.T) {
	serve := func(install bool, log *mcperrtest.Log) *gosdktest.Client {
		s := mcp.NewServer(&mcp.Implementation{Name: "docs", Version: "1.0.0"}, nil)
		if install {
			p, err := filter.New(filter.WithLogger(log.Logger()))
			if err != nil {
				t.Fatal(err)
			}
			if err := gosdk.Install(s, p); err != nil {
				t.Fatal(err)
			}
		}
		s.AddResource(&mcp.Resource{URI: "db://orders", Name: "orders"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return nil, errors.New("dial 10.0.0.5:5432: password=" + canary + " refused")
		})
		s.AddPrompt(&mcp.Prompt{Name: "summarize"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return nil, errors.New("template store: token=" + canary)
		})
		return gosdktest.Connect(t, s)
	}
	log := mcperrtest.NewLog(t)
	c := serve(true, log)
	for _, res := range []*mcperrtest.Result{c.ReadResource("db://orders"), c.GetPrompt("summarize", nil)} {
		if mcperrtest.AssertMasked(t, res, log) == "" {
			continue
		}
		mcperrtest.AssertNoCanary(t, res, canary)
	}
	// A resource the server does not have: the SDK's own answer, -32002
	// before protocol 2026-07-28 and -32602 from it.
	if res := c.ReadResource("db://nothing"); res.ProtocolError == nil || res.ProtocolError.Code != -32002 && res.ProtocolError.Code != -32602 {
		t.Errorf("an unknown resource: %s", res)
	}

	bare := serve(false, log)
	fails(t, func(tb testing.TB) { mcperrtest.AssertMasked(tb, bare.ReadResource("db://orders"), log) },
		`the JSON-RPC error's message is`)
}
