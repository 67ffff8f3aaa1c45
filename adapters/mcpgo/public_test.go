package mcpgo_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/adapters/mcpgo/mcpgotest"
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
	parse := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("parse: tenant acme: %w", numErr)
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
			if err != nil {
				t.Fatal(err)
			}
			s := server.NewMCPServer("public", "1.0.0")
			if err := mcpgo.Install(s, p); err != nil {
				t.Fatal(err)
			}
			if err := mcpgo.AddTool(s, mcp.NewTool("parse"), parse, opts.tool...); err != nil {
				t.Fatal(err)
			}

			res := mcpgotest.Connect(t, s).Call("parse", map[string]any{})
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
