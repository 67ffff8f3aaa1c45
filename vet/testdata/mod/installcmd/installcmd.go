// Package installcmd makes the server and hands it to another package that
// adds its tools, never importing mcperr: the module requires mcperr, so a
// server never given to Install is reported.
package installcmd

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"example.com/vettest/installreg"
)

func serve(ctx context.Context) error {
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1"}, nil)
	installreg.RegisterAll(s) // want `a tool is added with the SDK's own AddTool to a server mcperr is not installed on`
	return s.Run(ctx, &mcp.StdioTransport{})
}

func installed(ctx context.Context) error {
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1"}, nil)
	installreg.Setup(s)
	return s.Run(ctx, &mcp.StdioTransport{})
}
