// Package control puts every option where it applies: the pipeline's to
// filter.New, the tool's to AddTool. It compiles, which shows that the
// other packages under wrongscope fail for their misplaced option alone.
package control

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/filter"
)

func lookup(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return nil, nil
}

func setUp(s *server.MCPServer) error {
	noop := filter.Catch(func(context.Context, filter.Call, error) (*filter.Response, error) { return nil, nil })
	p, err := filter.New(filter.WithRedaction(true), filter.WithFilters(noop))
	if err != nil {
		return err
	}
	if err := mcpgo.Install(s, p); err != nil {
		return err
	}
	return mcpgo.AddTool(s, mcp.NewTool("lookup"), lookup, filter.WithFilters(noop))
}
