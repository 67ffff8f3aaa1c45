// Command bareserver serves the module's tools without mcperr, in a module
// that has mcperr: mcperrinstall reports it.
package main

import (
	"context"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"example.com/tidy/handlers"
)

func main() {
	s := mcp.NewServer(&mcp.Implementation{Name: "files", Version: "1"}, nil)
	handlers.Register(s) // want `a tool is added with the SDK's own AddTool to a server mcperr is not installed on`
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
