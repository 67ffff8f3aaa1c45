package mcpgo_test

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

// TestOneRecordPerFailure checks that one failing call writes exactly one
// record, in report-only mode and enforcing, whatever combination of entry
// points serves it (the middleware alone, AddTool, Wrap, Wrap under
// AddTool) and however the failure fights back: an error whose Error
// method panics, a hand-built error result without content, a panic.
func TestOneRecordPerFailure(t *testing.T) {
	var typedNil *adaptertest.DerefError
	failures := map[string]server.ToolHandlerFunc{
		"error whose Error panics": func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, typedNil
		},
		"hand-built result without content": func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true}, nil
		},
		"panic": func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			panic("boom")
		},
	}
	for name, h := range failures {
		for _, reportOnly := range []bool{true, false} {
			for _, way := range []string{"middleware", "AddTool", "Wrap", "AddTool+Wrap"} {
				t.Run(name+"/"+way+"/"+map[bool]string{true: "report-only", false: "enforcing"}[reportOnly], func(t *testing.T) {
					if reportOnly && name == "error whose Error panics" {
						t.Skip("as without mcperr: the error passes on, and mcp-go calls its Error method outside every middleware and panics")
					}
					var log adaptertest.Log
					s := server.NewMCPServer("one", "1.0.0", server.WithRecovery())
					if err := mcpgo.Install(s, testPipeline(log.Logger(), filter.WithReportOnly(reportOnly), filter.WithHandBuilt(filter.ReportHandBuilt))); err != nil {
						t.Fatal(err)
					}
					var err error
					switch way {
					case "middleware":
						s.AddTool(mcp.NewTool("x"), h)
					case "AddTool":
						err = mcpgo.AddTool(s, mcp.NewTool("x"), h)
					case "Wrap":
						s.AddTool(mcp.NewTool("x"), mcpgo.Wrap(h))
					case "AddTool+Wrap":
						err = mcpgo.AddTool(s, mcp.NewTool("x"), mcpgo.Wrap(h))
					}
					if err != nil {
						t.Fatal(err)
					}
					r := call(t, inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION), "x", nil)
					if !r.IsError && r.ProtocolErr == nil {
						t.Errorf("got %s, want a failure", r.Raw)
					}
					if recs := log.Records(t); len(recs) != 1 {
						t.Errorf("records %v, want exactly one", recs)
					}
				})
			}
		}
	}
}
