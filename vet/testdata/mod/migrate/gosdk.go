package migrate

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type issueIn struct {
	ID string `json:"id"`
}

// A go-sdk result literal; the file imports no fmt and no toolerr.
func gosdkGet(ctx context.Context, req *mcp.CallToolRequest, in issueIn) (*mcp.CallToolResult, any, error) {
	if _, err := issues.Get(ctx, in.ID); err != nil {
		return &mcp.CallToolResult{
			IsError: true,
			Content: []mcp.Content{&mcp.TextContent{Text: "failed to get issue: " + err.Error()}}, // want `a CallToolResult with IsError set carries an error's text`
		}, nil, nil
	}
	return &mcp.CallToolResult{}, nil, nil
}

// errorResult builds the result of a step that failed, as GitHub's
// NewToolResultErrorFromErr does for every tool; no handler is fixed.
func errorResult(message string, err error) *mcp.CallToolResult { // want errorResult:`sdkHelper`
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: message + ": " + err.Error()}}, IsError: true} // want `a CallToolResult with IsError set carries an error's text`
}

// textResult turns a framework's result into the SDK's, as Kubernetes'
// NewTextResult does for every tool: the error is kept, for mcperr to mask
// or send.
func textResult(content string, err error) *mcp.CallToolResult { // want textResult:`sdkHelper`
	if err != nil {
		return &mcp.CallToolResult{
			IsError: true,
			Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}, // want `a CallToolResult with IsError set carries an error's text`
		}
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: content}}}
}
