// Package addtoolwithpipelineoption gives AddTool an option of the whole
// server's pipeline: it must not compile, as AddTool takes only options for
// one tool.
package addtoolwithpipelineoption

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/filter"
)

func lookup(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return nil, nil
}

func setUp(s *server.MCPServer) error {
	return mcpgo.AddTool(s, mcp.NewTool("lookup"), lookup, filter.WithRedaction(true))
}
