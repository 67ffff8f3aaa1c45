// Package installnomcperr does not import mcperr, in a module that requires
// it: its server, never given to Install, is reported.
package installnomcperr

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func raw(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return nil, nil
}

func serve(ctx context.Context) error {
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "raw"}, raw) // want `a tool is added with the SDK's own AddTool to a server mcperr is not installed on`
	return s.Run(ctx, &mcp.StdioTransport{})
}
