// Package fields holds an error's text kept in a struct's field before it
// reaches an error result.
package fields

import (
	"context"
	"os"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

type apiError struct {
	status int
	msg    string
}

func pointer(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	if _, err := os.Stat("orders.db"); err != nil {
		e := &apiError{status: 500, msg: err.Error()}
		return mcpgo.NewToolResultError(e.msg), nil // want `mcp.NewToolResultError text is built from an error's text`
	}
	return nil, nil
}

func value(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	var e apiError
	if _, err := os.Stat("orders.db"); err != nil {
		e.msg = "stat: " + err.Error()
		return mcpgo.NewToolResultError(e.msg), nil // want `mcp.NewToolResultError text is built from an error's text`
	}
	return nil, nil
}

func otherField(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	if _, err := os.Stat("orders.db"); err != nil {
		e := &apiError{status: 500, msg: "The orders store is unavailable; try again later."}
		_ = err
		return mcpgo.NewToolResultError(e.msg), nil // a message written for the model
	}
	return nil, nil
}
