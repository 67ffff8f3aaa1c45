// Command gendocs builds the servers only to list their tools, and writes
// them as Markdown: it serves no client, so mcperrinstall does not ask it
// to install mcperr.
package main

import (
	"context"
	"fmt"
	"slices"

	mcpgomcp "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"example.com/vettest/installreg"
)

func lookup(ctx context.Context, req mcpgomcp.CallToolRequest) (*mcpgomcp.CallToolResult, error) {
	return mcpgomcp.NewToolResultText("ok"), nil
}

func main() {
	s := server.NewMCPServer("orders", "1")
	s.AddTool(mcpgomcp.NewTool("lookup", mcpgomcp.WithDescription("Looks an order up.")), lookup)
	var names []string
	for name := range s.ListTools() {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		fmt.Printf("- `%s`: %s\n", name, s.GetTool(name).Tool.Description)
	}

	// The go-sdk server is built by the package that serves it, and only
	// checked here: its tools are added, never served.
	g := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1"}, nil)
	installreg.RegisterAll(g)
	fmt.Println("go-sdk tools registered")
}
