// Command mcperr is internal/testrig/weight/bare with mcperr installed: the binary
// size BENCHMARKS.md reports against the bare one.
package main

import (
	"context"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/filter"
)

type args struct {
	Name string `json:"name"`
}

func greet(_ context.Context, _ *mcp.CallToolRequest, in args) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Hello, " + in.Name}}}, nil, nil
}

func main() {
	s := mcp.NewServer(&mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	p, err := filter.New()
	if err != nil {
		log.Fatal(err)
	}
	if err := gosdk.Install(s, p); err != nil {
		log.Fatal(err)
	}
	if err := gosdk.AddTool(s, &mcp.Tool{Name: "greet"}, greet); err != nil {
		log.Fatal(err)
	}
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
