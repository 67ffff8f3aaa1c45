// Package middleware holds cases of mcperrmasked about tool middleware,
// which runs outside mcperr or inside it depending on where it is
// registered.
package middleware

import (
	"context"
	"errors"
	"sync/atomic"

	mcpgomcp "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/filter"
)

var calls atomic.Int64

// rateLimit refuses a call past the limit with a message for the model.
func rateLimit(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcpgomcp.CallToolRequest) (*mcpgomcp.CallToolResult, error) {
		if calls.Add(1) > 100 {
			return nil, errors.New("rate limit exceeded, retry in 10s")
		}
		return next(ctx, req)
	}
}

// quota is the same, added after Install.
func quota(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcpgomcp.CallToolRequest) (*mcpgomcp.CallToolResult, error) {
		if calls.Load() > 1000 {
			return nil, errors.New("quota exceeded for today") // want `a message for the model returned as a plain error`
		}
		return next(ctx, req)
	}
}

func lookup(ctx context.Context, req mcpgomcp.CallToolRequest) (*mcpgomcp.CallToolResult, error) {
	return mcpgomcp.NewToolResultText("ok"), nil
}

// mcp-go runs the middleware given in NewMCPServer's options, and those
// added with Use before Install, before mcperr's, which Install adds with
// Use: their errors do not reach mcperr, and mcp-go sends them as written.
// mcperrmasked does not tell them that mcperr masks them. A middleware
// added after Install runs between mcperr and the handlers: mcperr masks
// its plain errors.
func mcpgoServer(p *filter.Pipeline) error {
	s := server.NewMCPServer("orders", "1", server.WithToolHandlerMiddleware(rateLimit))
	if err := mcpgo.Install(s, p); err != nil {
		return err
	}
	s.Use(quota)
	mcpgo.AddTool(s, mcpgomcp.NewTool("lookup"), lookup)
	return server.ServeStdio(s)
}

// go-sdk runs the receiving middleware added last first: one added before
// gosdk.Install runs inside mcperr's, which masks its plain errors. Its
// shape is a method handler's, not a tool handler's, and mcperrmasked does
// not look into it.
func gosdkServer(ctx context.Context, p *filter.Pipeline) error {
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1"}, nil)
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" && calls.Add(1) > 100 {
				return nil, errors.New("rate limit exceeded, retry in 10s")
			}
			return next(ctx, method, req)
		}
	})
	if err := gosdk.Install(s, p); err != nil {
		return err
	}
	return s.Run(ctx, &mcp.StdioTransport{})
}
