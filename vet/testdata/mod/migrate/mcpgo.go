// Package migrate holds the error results that mcperrvet -fix migrates,
// and those it reports with no fix.
package migrate

import (
	"context"
	"fmt"
	"log"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// issues stands for an API client, whose errors hold the upstream's text.
var issues interface {
	Get(context.Context, string) (string, error)
}

// The site's words, then the error, in a format.
func getIssue(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	issue, err := issues.Get(ctx, req.GetString("id", ""))
	if err != nil {
		return mcpgo.NewToolResultError(fmt.Sprintf("failed to get issue: %v", err)), nil // want `mcp.NewToolResultError text is built from an error's text`
	}
	return mcpgo.NewToolResultText(issue), nil
}

// The words, then a new line and the error.
func getIssueLines(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	issue, err := issues.Get(ctx, req.GetString("id", ""))
	if err != nil {
		return mcpgo.NewToolResultError(fmt.Sprintf("failed to get issue:\n%v", err)), nil // want `mcp.NewToolResultError text is built from an error's text`
	}
	return mcpgo.NewToolResultText(issue), nil
}

// The words hold an argument of the tool.
func getNamed(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	name := req.GetString("name", "")
	if _, err := issues.Get(ctx, name); err != nil {
		return mcpgo.NewToolResultErrorf("failed to get %s: %s", name, err), nil // want `mcp.NewToolResultErrorf formats an error's text`
	}
	return mcpgo.NewToolResultText(name), nil
}

// The error's text alone: the error itself is returned.
func getRaw(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	if _, err := issues.Get(ctx, ""); err != nil {
		return mcpgo.NewToolResultError(err.Error()), nil // want `mcp.NewToolResultError text is built from an error's text`
	}
	return nil, nil
}

// A literal joined to the error's text.
func getJoined(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	if _, err := issues.Get(ctx, ""); err != nil {
		return mcpgo.NewToolResultError("failed to list issues: " + err.Error()), nil // want `mcp.NewToolResultError text is built from an error's text`
	}
	return nil, nil
}

// A result literal, as a central converter builds it.
func getLiteral(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	if _, err := issues.Get(ctx, ""); err != nil {
		return &mcpgo.CallToolResult{IsError: true, Content: []mcpgo.Content{mcpgo.NewTextContent("search failed: " + err.Error())}}, nil // want `a CallToolResult with IsError set carries an error's text`
	}
	return nil, nil
}

// toolErrorf returns the formatted message as an error result, and nil,
// as Terraform's ToolErrorf does.
func toolErrorf(format string, args ...any) (*mcpgo.CallToolResult, error) { // want toolErrorf:`sdkHelper`
	return mcpgo.NewToolResultError(fmt.Sprintf(format, args...)), nil
}

// A format helper of the module, whose two results the handler returns.
func getRun(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	id := req.GetString("id", "")
	if _, err := issues.Get(ctx, id); err != nil {
		return toolErrorf("failed to get run %s: %v", id, err) // want `through toolErrorf`
	}
	return toolErrorf("run %s is not finished", id)
}

// toolError logs the message and the error and returns both as an error
// result, as Terraform's ToolError does.
func toolError(logger *log.Logger, message string, err error) (*mcpgo.CallToolResult, error) { // want toolError:`sdkHelper`
	text := message
	if err != nil {
		text = fmt.Sprintf("%s: %v", message, err)
	}
	if logger != nil {
		logger.Print(text)
	}
	return mcpgo.NewToolResultError(text), nil // want `mcp.NewToolResultError text is built from an error's text`
}

// An error helper of the module: given an error, its call is fixed; given
// nil, the message is the tool's own, and no one is reported.
func getWorkspace(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	name := req.GetString("name", "")
	if name == "" {
		return toolError(nil, "name is required", nil)
	}
	if _, err := issues.Get(ctx, name); err != nil {
		return toolError(nil, "failed to get workspace", err) // want `through toolError`
	}
	if _, err := issues.Get(ctx, "x"); err != nil {
		return toolError(nil, err.Error(), nil) // want `through toolError`
	}
	return nil, nil
}

// --- reported, with no mechanical fix ---

// A helper that is not a handler: the caller decides what to return.
func errResult(err error) *mcpgo.CallToolResult { // want errResult:`sdkHelper`
	return mcpgo.NewToolResultError("failed: " + err.Error()) // want `mcp.NewToolResultError text is built from an error's text`
}

// Two errors in one format.
func getBoth(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	_, err1 := issues.Get(ctx, "a")
	_, err2 := issues.Get(ctx, "b")
	if err1 != nil || err2 != nil {
		return mcpgo.NewToolResultError(fmt.Sprintf("failed: %v and %v", err1, err2)), nil // want `mcp.NewToolResultError text is built from an error's text`
	}
	return nil, nil
}

// A name that means something else where the fix would write it.
func getShadowed(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	toolerr := req.GetString("toolerr", "")
	if _, err := issues.Get(ctx, toolerr); err != nil {
		return mcpgo.NewToolResultError(fmt.Sprintf("failed to get issue: %v", err)), nil // want `mcp.NewToolResultError text is built from an error's text`
	}
	return nil, nil
}
