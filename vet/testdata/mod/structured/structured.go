// Package structured holds cases of mcperrstructured in a package that uses
// mcperr's mcp-go adapter.
package structured

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcperr/mcperr/adapters/mcpgo"
)

type args struct{ ID string }

type order struct{ ID string }

func lookup(ctx context.Context, req mcp.CallToolRequest, a args) (order, error) {
	return order{ID: a.ID}, nil
}

func typed(ctx context.Context, req mcp.CallToolRequest, a args) (*mcp.CallToolResult, error) {
	return mcp.NewToolResultText(a.ID), nil
}

func register(s *server.MCPServer) error {
	if err := mcpgo.Install(s, nil); err != nil {
		return err
	}
	s.AddTool(mcp.NewTool("lookup"), mcp.NewStructuredToolHandler(lookup))                // want `mcp.NewStructuredToolHandler answers a failed call with`
	s.AddTool(mcp.NewTool("explicit"), mcp.NewStructuredToolHandler[args, order](lookup)) // want `mcp.NewStructuredToolHandler answers`
	s.AddTool(mcp.NewTool("typed"), mcp.NewTypedToolHandler(typed))                       // want `mcp.NewTypedToolHandler answers bad arguments with`
	// Negative: mcperr's own Structured.
	return mcpgo.AddTool(s, mcp.NewTool("good"), mcpgo.Structured(lookup))
}
