// Command server serves the module's tools with mcperr installed. The
// module's go.mod does not require mcperr yet, as go mod tidy left it when
// it ran before this import was written: this package does not build until
// go get adds the requirement, but the analyzers of the module's other
// packages already know that the module has mcperr.
package main

import (
	"context"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"example.com/tidy/handlers"
	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/filter"
)

func main() {
	s := mcp.NewServer(&mcp.Implementation{Name: "files", Version: "1"}, nil)
	p, err := filter.New()
	if err != nil {
		log.Fatal(err)
	}
	if err := gosdk.Install(s, p); err != nil {
		log.Fatal(err)
	}
	handlers.Register(s)
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
