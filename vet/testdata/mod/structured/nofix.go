package structured

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// This file does not import mcperr's adapter: the report has no fix.
func registerElsewhere(s *server.MCPServer) {
	s.AddTool(mcp.NewTool("other"), mcp.NewStructuredToolHandler(lookup)) // want `mcp.NewStructuredToolHandler answers`
}
