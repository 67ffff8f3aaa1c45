// Command mcpgobare is the smallest mcp-go stdio server, without mcperr:
// the baseline of the binary size docs/benchmarks.md reports for mcp-go.
package main

import (
	"context"
	"log"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func greet(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return mcp.NewToolResultText("Hello, " + req.GetString("name", "")), nil
}

func main() {
	s := server.NewMCPServer("greeter", "1.0.0")
	s.AddTool(mcp.NewTool("greet", mcp.WithString("name")), greet)
	if err := server.ServeStdio(s); err != nil {
		log.Fatal(err)
	}
}
