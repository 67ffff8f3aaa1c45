// Package installreg adds a server's tools, as servers split their code:
// its functions' facts tell the package that makes the server which of
// them add tools to the server they are given.
package installreg

import (
	"context"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func raw(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return nil, nil
}

// Register adds the tools with the SDK's own AddTool.
func Register(s *mcp.Server) { // want Register:"addsTools"
	s.AddTool(&mcp.Tool{Name: "raw"}, raw)
}

// RegisterAll adds them through Register.
func RegisterAll(s *mcp.Server) { // want RegisterAll:"addsTools"
	Register(s)
}

// Setup installs mcperr itself: no fact.
func Setup(s *mcp.Server) {
	_ = gosdk.Install(s, nil)
	Register(s)
}
