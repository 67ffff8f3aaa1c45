package migrate

import (
	"context"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// This file does not import toolerr: the fix adds it.
func fromErr(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	_, err := issues.Get(ctx, "")
	return mcpgo.NewToolResultErrorFromErr("The query failed.", err), nil // want `mcp.NewToolResultErrorFromErr appends`
}
