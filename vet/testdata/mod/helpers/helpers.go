// Package helpers is a server's package of result helpers, as public
// servers have: each puts its arguments' text into an error result, which
// the packages that call them must not give an error's text.
package helpers

import (
	"fmt"
	"os"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// ToolErrorResult returns an error result with msg.
func ToolErrorResult(msg string) *mcpgo.CallToolResult { // want ToolErrorResult:`sdkHelper`
	return mcpgo.NewToolResultError(msg)
}

// ToolErrorf returns an error result with the formatted text.
func ToolErrorf(format string, args ...any) *mcpgo.CallToolResult { // want ToolErrorf:`sdkHelper`
	return mcpgo.NewToolResultError(fmt.Sprintf(format, args...))
}

// Wrapped calls ToolErrorResult: a helper of a helper.
func Wrapped(prefix, msg string) *mcpgo.CallToolResult { // want Wrapped:`sdkHelper`
	return ToolErrorResult(prefix + ": " + msg)
}

// Success returns a result that is not an error: no fact.
func Success(msg string) *mcpgo.CallToolResult {
	return mcpgo.NewToolResultText(msg)
}

// lookupFailed gives ToolErrorf, of its own package, an error among the
// arguments it formats.
func lookupFailed(id string) *mcpgo.CallToolResult {
	_, err := os.Open(id)
	return ToolErrorf("lookup %s: %v", id, err) // want `through ToolErrorf`
}
