package migrate

import (
	"context"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// A test double of a handler: its error result is reported, as anywhere,
// but -fix never rewrites a test file (no golden file here).
func fakeGetIssue(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	if _, err := issues.Get(ctx, "1"); err != nil {
		return mcpgo.NewToolResultError("failed to get issue: " + err.Error()), nil // want `mcp.NewToolResultError text is built from an error's text`
	}
	return mcpgo.NewToolResultText("ok"), nil
}

func TestFake(t *testing.T) { _ = fakeGetIssue }
