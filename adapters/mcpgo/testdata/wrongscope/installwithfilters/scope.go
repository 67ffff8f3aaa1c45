// Package installwithfilters gives Install a per-tool option: it must not
// compile, as Install takes the server's one configuration, a
// *filter.Pipeline, and no options.
package installwithfilters

import (
	"context"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/filter"
)

func setUp(s *server.MCPServer, p *filter.Pipeline) error {
	noop := filter.Catch(func(context.Context, filter.Call, error) (*filter.Response, error) { return nil, nil })
	return mcpgo.Install(s, p, filter.WithFilters(noop))
}
