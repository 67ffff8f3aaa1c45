package stdimports

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// tool turns a work function into an mcp-go handler, as a server's own
// framework does.
func tool[A, R any](name string, work func(context.Context, A) (R, error)) server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool(name),
		Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args A
			if err := req.BindArguments(&args); err != nil {
				return nil, err
			}
			res, err := work(ctx, args)
			if err != nil {
				return nil, err
			}
			b, err := json.Marshal(res)
			if err != nil {
				return nil, err
			}
			return mcp.NewToolResultText(string(b)), nil
		},
	}
}

// Tools are the package's tools.
var Tools = []server.ServerTool{tool("get_file", getFile)}
