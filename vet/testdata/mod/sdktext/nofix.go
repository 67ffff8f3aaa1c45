package sdktext

import (
	"context"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// This file does not import toolerr: the report has no fix.
func fromErrNoImport(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	_, err := query(ctx, "")
	return mcpgo.NewToolResultErrorFromErr("The query failed.", err), nil // want `mcp.NewToolResultErrorFromErr appends`
}
