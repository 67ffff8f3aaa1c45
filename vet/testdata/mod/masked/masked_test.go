package masked

import (
	"context"
	"errors"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// A test double of a handler returns messages as plain errors on purpose:
// mcperrmasked says nothing in test files.
func fakeDelete(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	if !req.GetBool("recursive", false) {
		return nil, errors.New("Use recursive=true to delete directories.")
	}
	return mcpgo.NewToolResultText("deleted"), nil
}

func TestFake(t *testing.T) { _ = fakeDelete }
