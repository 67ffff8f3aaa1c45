package structured

import (
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcperr/mcperr/adapters/mcpgo"
)

// A test serves the handler bare on purpose: reported, never rewritten by
// -fix (no golden file here).
func TestBare(t *testing.T) {
	s := server.NewMCPServer("orders", "1")
	s.AddTool(mcp.NewTool("lookup"), mcp.NewStructuredToolHandler(lookup)) // want `mcp.NewStructuredToolHandler answers a failed call with`
	s.AddTool(mcp.NewTool("wrapped"), mcpgo.Structured(lookup))
}
