package gosdk_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/adapters/gosdk/gosdktest"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/mcperrtest"
)

// TestPublic checks, through the SDK's own client, that a library's error
// declared public with filter.Public, for one tool or for the whole server,
// reaches the model in its own words, without the wrapper's text, and is
// logged once.
func TestPublic(t *testing.T) {
	numErr := &strconv.NumError{Func: "ParseInt", Num: "12x", Err: strconv.ErrSyntax}
	parse := func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
		return nil, nil, fmt.Errorf("parse: tenant acme: %w", numErr)
	}
	public := filter.WithFilters(filter.Public[*strconv.NumError](codes.ValidationError))
	for name, opts := range map[string]struct {
		server []filter.Option
		tool   []filter.ToolOption
	}{
		"for one tool":         {tool: []filter.ToolOption{public}},
		"for the whole server": {server: []filter.Option{public}},
	} {
		t.Run(name, func(t *testing.T) {
			log := mcperrtest.NewLog(t)
			p, err := filter.New(append([]filter.Option{filter.WithLogger(log.Logger())}, opts.server...)...)
			must(t, err)
			s := mcp.NewServer(&mcp.Implementation{Name: "public", Version: "1.0.0"}, nil)
			must(t, gosdk.Install(s, p))
			must(t, gosdk.AddTool(s, &mcp.Tool{Name: "parse"}, parse, opts.tool...))

			res := gosdktest.Connect(t, s).Call("parse", map[string]any{})
			mcperrtest.AssertToolError(t, res, codes.ValidationError, numErr.Error())
			mcperrtest.AssertNoCanary(t, res, "tenant acme")
			if strings.Contains(res.Text(), "parse:") {
				t.Errorf("the wrapper's text reached the client: %q", res.Text())
			}
			if recs := log.Records(); len(recs) != 1 {
				t.Errorf("%d records, want 1: %v", len(recs), recs)
			}
		})
	}
}
