// Package gosdkserver is a go-sdk server whose handlers, typed and raw,
// return the messages of another package, a ToolError over the server's
// own sentinel, and the server's words around an upstream's error.
package gosdkserver

import (
	"context"
	"fmt"

	"example.com/vettest/gosdkserver/lookup"
	"github.com/mcperr/mcperr/toolerr"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// UserArgs are the user tool's arguments.
type UserArgs struct {
	Login string `json:"login"`
}

// Register adds the tools.
func Register(s *mcp.Server, c *lookup.Client) {
	mcp.AddTool(s, &mcp.Tool{Name: "user"}, func(ctx context.Context, req *mcp.CallToolRequest, in UserArgs) (*mcp.CallToolResult, any, error) {
		if in.Login == "" {
			return nil, nil, fmt.Errorf("login is required") // want: lost
		}
		u, err := c.User(in.Login)
		if err != nil {
			return nil, nil, fmt.Errorf("get user %s: %w", in.Login, err) // want: lost
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: u}}}, nil, nil
	})
	s.AddTool(&mcp.Tool{Name: "whoami", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		u, err := c.User("me")
		if err != nil {
			return nil, toolerr.New("whoami failed").WithCause(err)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: u}}}, nil
	})
}
