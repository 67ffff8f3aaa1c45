// Package kubeserver is an MCP server on go-sdk in front of a cluster's
// API, written the way the Kubernetes MCP server is: its tools have a
// handler shape of their own (package api), put every failure in their
// result's Error field, and one adapter here turns that result into the
// SDK's, from the error's text.
//
// Its command has installed mcperr in report-only mode, the first step of
// adoption; mcperrvet -fix is the second.
package kubeserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"example.com/vettest/kubeserver/api"
	"example.com/vettest/kubeserver/toolsets"
)

// Cluster calls a cluster's API over HTTP.
type Cluster struct {
	URL   string
	Token string
	HTTP  *http.Client
}

// Get returns the body of the API's answer to a GET of path.
func (c *Cluster) Get(ctx context.Context, path string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.URL+path, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: %s: %s", req.URL, resp.Status, body)
	}
	return string(body), nil
}

// New returns the server, with every tool of the toolsets.
func New(cluster api.Cluster) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "kubeserver", Version: "1.0.0"}, nil)
	for _, tool := range toolsets.Tools() {
		s.AddTool(&mcp.Tool{Name: tool.Name, Description: tool.Description, InputSchema: &jsonschema.Schema{Type: "object"}}, handler(cluster, tool))
	}
	return s
}

// handler adapts a tool of the framework to the SDK.
func handler(cluster api.Cluster, tool api.Tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args := map[string]any{}
		if len(req.Params.Arguments) > 0 {
			if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
				return nil, err
			}
		}
		result, err := tool.Handler(api.Params{Context: ctx, Arguments: args, Client: cluster})
		if err != nil {
			return nil, err
		}
		return NewTextResult(result.Content, result.Error), nil
	}
}

// NewTextResult returns the SDK's result of a tool's content, or of its
// failure err.
func NewTextResult(content string, err error) *mcp.CallToolResult {
	if err != nil {
		return &mcp.CallToolResult{
			IsError: true,
			Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}, // want: leak
		}
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: content}}}
}
