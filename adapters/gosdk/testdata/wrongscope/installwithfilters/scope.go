// Package installwithfilters gives Install a per-tool option: it must not
// compile, as Install takes the server's one configuration, a
// *filter.Pipeline, and no options.
package installwithfilters

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/filter"
)

func setUp(s *mcp.Server, p *filter.Pipeline) error {
	noop := filter.Catch(func(context.Context, filter.Call, error) (*filter.Response, error) { return nil, nil })
	return gosdk.Install(s, p, filter.WithFilters(noop))
}
