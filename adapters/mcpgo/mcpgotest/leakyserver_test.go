package mcpgotest_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/adapters/mcpgo/mcpgotest"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/mcperrtest"
)

// debugSlot is where the leaky server's tools put the error they return,
// for its debugging middleware.
type debugSlot struct{}

// leakyServer returns a server whose tools fail with a secret in their
// error, masked correctly by mcperr, and a debugging middleware of the
// server's own, outermost, that puts that error somewhere else in the
// masked result: a second text block, the structured content, or a _meta
// key, as the tool's name says.
func leakyServer(t *testing.T, log *mcperrtest.Log) *server.MCPServer {
	t.Helper()
	debug := func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			slot := new(error)
			res, err := next(context.WithValue(ctx, debugSlot{}, slot), req)
			if res == nil || *slot == nil {
				return res, err
			}
			leak := (*slot).Error()
			switch req.Params.Name {
			case "leak_block":
				res.Content = append(res.Content, mcp.NewTextContent("debug: "+leak))
			case "leak_structured":
				res.StructuredContent = map[string]any{"debug": leak}
			case "leak_meta":
				res.Meta.AdditionalFields["debug"] = leak
			}
			return res, err
		}
	}
	s := server.NewMCPServer("leaky", "1.0.0", server.WithToolHandlerMiddleware(debug))
	p, err := filter.New(filter.WithLogger(log.Logger()))
	if err != nil {
		t.Fatal(err)
	}
	if err := mcpgo.Install(s, p); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"leak_block", "leak_structured", "leak_meta"} {
		s.AddTool(mcp.NewTool(name), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			err := errors.New("dial 10.0.0.5:5432: password=" + canary + " refused")
			if slot, ok := ctx.Value(debugSlot{}).(*error); ok {
				*slot = err
			}
			return nil, err
		})
	}
	return s
}

// TestAssertMaskedFailsOnALeakingServer checks that AssertMasked fails on a
// result whose first block is correctly masked but whose other parts carry
// the error.
func TestAssertMaskedFailsOnALeakingServer(t *testing.T) {
	log := mcperrtest.NewLog(t)
	c := mcpgotest.Connect(t, leakyServer(t, log))
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
	s := server.NewMCPServer("chatty", "1.0.0", server.WithLogging())
	p, err := filter.New(filter.WithLogger(log.Logger()))
	if err != nil {
		t.Fatal(err)
	}
	if err := mcpgo.Install(s, p); err != nil {
		t.Fatal(err)
	}
	s.AddTool(mcp.NewTool("chatty"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if err := server.ServerFromContext(ctx).SendNotificationToClient(ctx, "notifications/message",
			map[string]any{"level": "error", "data": "dial db: password=" + canary}); err != nil {
			return nil, err
		}
		return nil, errors.New("dial db refused")
	})
	c := mcpgotest.Connect(t, s)
	res := c.Call("chatty", nil)
	mcperrtest.AssertMasked(t, res, log) // the result itself is clean
	fails(t, func(tb testing.TB) { mcperrtest.AssertNoCanary(tb, res, canary) }, "in received[0] (a notifications/message)")
}

// TestResourcesAndPrompts checks that the kit reads resources and prompts,
// and that AssertMasked holds their masked JSON-RPC errors and fails on a
// server that sends the error's text.
func TestResourcesAndPrompts(t *testing.T) {
	serve := func(install bool, log *mcperrtest.Log) *mcpgotest.Client {
		s := server.NewMCPServer("docs", "1.0.0", server.WithResourceCapabilities(false, false), server.WithPromptCapabilities(false))
		if install {
			p, err := filter.New(filter.WithLogger(log.Logger()))
			if err != nil {
				t.Fatal(err)
			}
			if err := mcpgo.Install(s, p); err != nil {
				t.Fatal(err)
			}
		}
		s.AddResource(mcp.NewResource("db://orders", "orders"), func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return nil, errors.New("dial 10.0.0.5:5432: password=" + canary + " refused")
		})
		s.AddPrompt(mcp.NewPrompt("summarize"), func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return nil, errors.New("template store: token=" + canary)
		})
		return mcpgotest.Connect(t, s)
	}
	log := mcperrtest.NewLog(t)
	c := serve(true, log)
	for _, res := range []*mcperrtest.Result{c.ReadResource("db://orders"), c.GetPrompt("summarize", nil)} {
		if mcperrtest.AssertMasked(t, res, log) == "" {
			continue
		}
		mcperrtest.AssertNoCanary(t, res, canary)
	}

	bare := serve(false, log)
	fails(t, func(tb testing.TB) { mcperrtest.AssertMasked(tb, bare.ReadResource("db://orders"), log) },
		`the JSON-RPC error's message is`)
}
