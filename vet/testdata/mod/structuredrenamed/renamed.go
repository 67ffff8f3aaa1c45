// Package structuredrenamed imports mcperr's adapter under another name.
package structuredrenamed

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	adapter "github.com/mcperr/mcperr/adapters/mcpgo"
)

type args struct{ ID string }

func lookup(ctx context.Context, req mcp.CallToolRequest, a args) (string, error) {
	return a.ID, nil
}

func register(s *server.MCPServer) error {
	if err := adapter.Install(s, nil); err != nil {
		return err
	}
	s.AddTool(mcp.NewTool("lookup"), mcp.NewStructuredToolHandler(lookup)) // want `mcp.NewStructuredToolHandler answers`
	return nil
}
