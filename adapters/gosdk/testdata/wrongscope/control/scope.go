// Package control puts every option where it applies: the pipeline's to
// filter.New, the tool's to AddTool. It compiles, which shows that the
// other packages under wrongscope fail for their misplaced option alone.
package control

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
	noop := filter.Catch(func(context.Context, filter.Call, error) (*filter.Response, error) { return nil, nil })
	p, err := filter.New(filter.WithRedaction(true), filter.WithFilters(noop))
	if err != nil {
		return err
	}
	if err := gosdk.Install(s, p); err != nil {
		return err
	}
	return gosdk.AddTool(s, &mcp.Tool{Name: "lookup"}, lookup, filter.WithFilters(noop))
}
