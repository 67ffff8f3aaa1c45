// Package tooling builds the server's error results, as the helper
// packages of public servers do: GitHub's NewToolResultError, Terraform's
// ToolError and ToolErrorf, which log the message and return it as a
// result.
package tooling

import (
	"fmt"
	"log"

	"github.com/mark3labs/mcp-go/mcp"
)

// NewToolResultError returns an error result with the text message.
func NewToolResultError(message string) *mcp.CallToolResult {
	return mcp.NewToolResultError(message)
}

// ToolErrorf logs the formatted message and returns it as an error result.
func ToolErrorf(logger *log.Logger, format string, args ...any) (*mcp.CallToolResult, error) {
	message := fmt.Sprintf(format, args...)
	if logger != nil {
		logger.Printf("tool error: %s", message)
	}
	return mcp.NewToolResultError(message), nil
}
