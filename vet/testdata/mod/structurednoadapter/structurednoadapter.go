// Package structurednoadapter uses mcp-go without mcperr: nothing is reported.
package structurednoadapter

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

type args struct{ ID string }

func lookup(ctx context.Context, req mcp.CallToolRequest, a args) (string, error) {
	return a.ID, nil
}

func register(s *server.MCPServer) {
	s.AddTool(mcp.NewTool("lookup"), mcp.NewStructuredToolHandler(lookup))
}
