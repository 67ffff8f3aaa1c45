package sqlfilter_test

import (
	"context"
	"strings"
	"testing"

	mcpgomcp "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/adapters/gosdk/gosdktest"
	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/adapters/mcpgo/mcpgotest"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/mcperrtest"
)

// tool is one tool of the test servers: run is its whole body, called
// with the tool's one argument, id.
type tool struct {
	name    string
	filters []filter.Filter // bound to this tool
	run     func(ctx context.Context, id string) (string, error)
}

// caller calls a tool the way an MCP client does; both SDKs' test clients
// are callers.
type caller interface {
	Call(name string, args any) *mcperrtest.Result
}

type idArgs struct {
	ID string `json:"id,omitempty"`
}

// onBothSDKs serves tools on a go-sdk server and on an mcp-go server, each
// with the global filters and a log of its own, and runs
// check against each through the SDK's own client.
func onBothSDKs(t *testing.T, global []filter.Filter, tools []tool, check func(t *testing.T, c caller, log *mcperrtest.Log)) {
	t.Helper()
	t.Run("go-sdk", func(t *testing.T) {
		log := mcperrtest.NewLog(t)
		s := gomcp.NewServer(&gomcp.Implementation{Name: "shop", Version: "1.0.0"}, nil)
		if err := gosdk.Install(s, pipeline(t, log, global)); err != nil {
			t.Fatal(err)
		}
		for _, tl := range tools {
			run := tl.run
			err := gosdk.AddTool(s, &gomcp.Tool{Name: tl.name},
				func(ctx context.Context, _ *gomcp.CallToolRequest, in idArgs) (*gomcp.CallToolResult, any, error) {
					text, err := run(ctx, in.ID)
					if err != nil {
						return nil, nil, err
					}
					return &gomcp.CallToolResult{Content: []gomcp.Content{&gomcp.TextContent{Text: text}}}, nil, nil
				},
				filter.WithFilters(tl.filters...))
			if err != nil {
				t.Fatal(err)
			}
		}
		check(t, gosdktest.Connect(t, s), log)
	})
	t.Run("mcp-go", func(t *testing.T) {
		log := mcperrtest.NewLog(t)
		s := server.NewMCPServer("shop", "1.0.0")
		if err := mcpgo.Install(s, pipeline(t, log, global)); err != nil {
			t.Fatal(err)
		}
		for _, tl := range tools {
			run := tl.run
			err := mcpgo.AddTool(s, mcpgomcp.NewTool(tl.name, mcpgomcp.WithString("id")),
				func(ctx context.Context, req mcpgomcp.CallToolRequest) (*mcpgomcp.CallToolResult, error) {
					text, err := run(ctx, req.GetString("id", ""))
					if err != nil {
						return nil, err
					}
					return mcpgomcp.NewToolResultText(text), nil
				},
				filter.WithFilters(tl.filters...))
			if err != nil {
				t.Fatal(err)
			}
		}
		check(t, mcpgotest.Connect(t, s), log)
	})
}

// pipeline returns a pipeline with the global filters that logs into log.
func pipeline(t *testing.T, log *mcperrtest.Log, global []filter.Filter) *filter.Pipeline {
	t.Helper()
	p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithFilters(global...))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// assertLogged checks that the one record of the answer res keeps the
// original error: its text holds each of want. A server error's record is
// the one its ref names; a client error's, the last one written.
func assertLogged(t *testing.T, log *mcperrtest.Log, res *mcperrtest.Result, want ...string) {
	t.Helper()
	var recs []mcperrtest.Record
	if res.Envelope != nil && res.Envelope.Ref != "" {
		recs = log.WithRef(res.Envelope.Ref)
	} else if all := log.Records(); len(all) > 0 {
		recs = all[len(all)-1:]
	}
	if len(recs) != 1 {
		t.Errorf("found %d records of the answer, want 1", len(recs))
		return
	}
	text, _ := recs[0].Attrs["error"].(string)
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("the record's error is %q, want it to hold %q", text, w)
		}
	}
}
