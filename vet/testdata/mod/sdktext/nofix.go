package sdktext

import (
	"context"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// A helper that is not a handler: the report has no fix.
func fromErrHelper(ctx context.Context) *mcpgo.CallToolResult {
	_, err := query(ctx, "")
	return mcpgo.NewToolResultErrorFromErr("The query failed.", err) // want `mcp.NewToolResultErrorFromErr appends`
}
