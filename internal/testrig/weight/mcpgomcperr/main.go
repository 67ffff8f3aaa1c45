// Command mcpgomcperr is internal/testrig/weight/mcpgobare with mcperr
// installed: the binary size docs/benchmarks.md reports against the bare
// one.
package main

import (
	"context"
	"log"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/filter"
)

func greet(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return mcp.NewToolResultText("Hello, " + req.GetString("name", "")), nil
}

func main() {
	s := server.NewMCPServer("greeter", "1.0.0")
	p, err := filter.New()
	if err != nil {
		log.Fatal(err)
	}
	if err := mcpgo.Install(s, p); err != nil {
		log.Fatal(err)
	}
	if err := mcpgo.AddTool(s, mcp.NewTool("greet", mcp.WithString("name")), greet); err != nil {
		log.Fatal(err)
	}
	if err := server.ServeStdio(s); err != nil {
		log.Fatal(err)
	}
}
