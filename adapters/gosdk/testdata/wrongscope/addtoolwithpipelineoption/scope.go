// Package addtoolwithpipelineoption gives AddTool an option of the whole
// server's pipeline: it must not compile, as AddTool takes only options for
// one tool.
package addtoolwithpipelineoption

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/filter"
)

func lookup(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
	return nil, nil, nil
}

func setUp(s *mcp.Server) error {
	return gosdk.AddTool(s, &mcp.Tool{Name: "lookup"}, lookup, filter.WithRedaction(true))
}
