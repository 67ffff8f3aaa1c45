// Package handlers holds the tool handlers of a module whose go.mod does
// not require mcperr, though another of its packages installs it: the
// errors the handlers return reach mcperr, and only what mcperr passes
// through untouched is reported.
package handlers

import (
	"context"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type args struct{ ID string }

// Register adds the module's tools to s.
func Register(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{Name: "read"}, read)
	mcp.AddTool(s, &mcp.Tool{Name: "stat"}, stat)
}

func read(ctx context.Context, req *mcp.CallToolRequest, in args) (*mcp.CallToolResult, any, error) {
	b, err := os.ReadFile(in.ID)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to read %s: %w", in.ID, err) // mcperr masks it: not reported
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil, nil
}

func stat(ctx context.Context, req *mcp.CallToolRequest, in args) (*mcp.CallToolResult, any, error) {
	if _, err := os.Stat(in.ID); err != nil {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil, nil // want `a CallToolResult with IsError set carries an error's text`
	}
	return &mcp.CallToolResult{}, nil, nil
}
