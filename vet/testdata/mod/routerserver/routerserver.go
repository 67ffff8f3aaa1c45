// Package routerserver is a server of one tool per resource with an action
// argument, dispatching through a generic wrapper to work functions of
// another package, as public servers with many tools do.
package routerserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"example.com/vettest/routerserver/hints"
	"example.com/vettest/routerserver/work"
)

// WorkFunc is a work function of the router.
type WorkFunc[T, R any] func(ctx context.Context, c *work.Client, args T) (R, error)

// WrapAction turns a work function into a handler of one action.
func WrapAction[T, R any](c *work.Client, fn WorkFunc[T, R]) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args T
		b, _ := json.Marshal(req.GetArguments())
		if err := json.Unmarshal(b, &args); err != nil { // want: lost
			return nil, err
		}
		out, err := fn(ctx, c, args)
		b, _ = json.Marshal(out)
		return hints.WithHints(mcp.NewToolResultText(string(b)), out, err)
	}
}

func routeAction[T, R any](c *work.Client, fn WorkFunc[T, R]) server.ToolHandlerFunc {
	return WrapAction(c, fn)
}

// upstreamFailure answers a failed response with its body.
func upstreamFailure(resp *http.Response) *mcp.CallToolResult {
	body, _ := io.ReadAll(resp.Body)
	return mcp.NewToolResultError(fmt.Sprintf("upstream answered %d: %s", resp.StatusCode, string(body))) // want: upstream
}

// gqlResponse is an upstream's GraphQL answer.
type gqlResponse struct {
	Errors []struct {
		Message string `json:"message"`
	} `json:"errors"`
}

// rename renames a project through the upstream's GraphQL API, whose error
// strings are the upstream's, not the server's.
func rename(ctx context.Context, c *work.Client, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	resp, err := c.HTTP.Get(c.Base + "/graphql?name=" + req.GetString("name", ""))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out gqlResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, fmt.Errorf("decode: %w", err) // want: lost
	}
	if len(out.Errors) > 1 {
		return nil, errors.New(out.Errors[1].Message)
	}
	if len(out.Errors) > 0 {
		return mcp.NewToolResultError(out.Errors[0].Message), nil // want: upstream
	}
	return mcp.NewToolResultText("renamed"), nil
}

// Register adds the project tool.
func Register(s *server.MCPServer, c *work.Client) {
	actions := map[string]server.ToolHandlerFunc{
		"create": routeAction(c, work.Create),
		"delete": routeAction(c, work.Delete),
		"log":    routeAction(c, work.Log),
		"search": routeAction(c, work.Search),
	}
	s.AddTool(mcp.NewTool("project", mcp.WithString("action", mcp.Required(), mcp.Enum("create", "delete", "log", "search"))),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			h, ok := actions[req.GetString("action", "")]
			if !ok {
				return nil, fmt.Errorf("unknown action %q", req.GetString("action", "")) // want: lost
			}
			return h(ctx, req)
		})
	s.AddTool(mcp.NewTool("rename"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return rename(ctx, c, req)
	})
	s.AddTool(mcp.NewTool("status"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		resp, err := c.HTTP.Get(c.Base + "/status")
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return upstreamFailure(resp), nil
		}
		return mcp.NewToolResultText("ok"), nil
	})
}
