// Package server makes a server of a module that does not require mcperr:
// mcperrinstall says nothing here (mcperrsdktext reports what its handlers
// send).
package server

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func raw(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return nil, nil
}

func serve(ctx context.Context) error {
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "raw"}, raw)
	return s.Run(ctx, &mcp.StdioTransport{})
}
