package mcpgo_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

// TestSDKValidationRefusal checks mcp-go's own
// server.WithInputSchemaValidation under Install: its refusal, made before
// any middleware runs with the validator's text (which holds the refused
// value), reaches the client as mcperr's own check answers it,
// VALIDATION_ERROR naming the fields, never a value, over both transports,
// whichever way the tool was added, and with mcperr's check on as well.
// The server's own hooks still run.
func TestSDKValidationRefusal(t *testing.T) {
	for _, way := range []struct {
		name string
		add  func(t *testing.T, s *server.MCPServer, ran *atomic.Int64)
		opts []filter.Option
	}{
		{"tool added with the SDK", func(t *testing.T, s *server.MCPServer, ran *atomic.Int64) {
			s.AddTool(checkedTool(), checkedHandler(ran))
		}, nil},
		{"AddTool", func(t *testing.T, s *server.MCPServer, ran *atomic.Int64) {
			if err := mcpgo.AddTool(s, checkedTool(), checkedHandler(ran)); err != nil {
				t.Fatal(err)
			}
		}, nil},
		{"Wrap, and mcperr's check on too", func(t *testing.T, s *server.MCPServer, ran *atomic.Int64) {
			s.AddTool(checkedTool(), mcpgo.Wrap(checkedHandler(ran)))
		}, []filter.Option{filter.WithArgumentCheck(true)}},
	} {
		for _, transport := range []string{"in-process", "streamable HTTP"} {
			t.Run(way.name+"/"+transport, func(t *testing.T) {
				var log adaptertest.Log
				var hooked atomic.Int64
				hooks := &server.Hooks{}
				hooks.AddAfterCallTool(func(context.Context, any, *mcp.CallToolRequest, any) { hooked.Add(1) })
				s := server.NewMCPServer("orders", "1.0.0", server.WithInputSchemaValidation(), server.WithHooks(hooks))
				if err := mcpgo.Install(s, testPipeline(log.Logger(), way.opts...)); err != nil {
					t.Fatal(err)
				}
				var ran atomic.Int64
				way.add(t, s, &ran)
				connect := inProcess
				if transport != "in-process" {
					connect = overHTTP
				}
				c := connect(t, s, mcp.LATEST_PROTOCOL_VERSION)
				adaptertest.RunArgumentCases(t, func(args map[string]any) adaptertest.Result {
					return call(t, c, adaptertest.CheckedTool, args)
				}, ran.Load, &log)
				if n := int64(len(adaptertest.ArgumentCases())); hooked.Load() != n {
					t.Errorf("the server's own after-call hook ran %d times in %d calls", hooked.Load(), n)
				}
			})
		}
	}
}

// TestSDKValidationRefusalReportOnly checks that in report-only mode, for
// the server or for the tool, the SDK's refusal reaches the client exactly
// as mcp-go sends it, and one record says what mcperr would have sent.
func TestSDKValidationRefusalReportOnly(t *testing.T) {
	for _, way := range []struct {
		name   string
		server []filter.Option
		tool   []filter.ToolOption
		wrap   bool
	}{
		{"server", []filter.Option{filter.WithReportOnly(true)}, nil, false},
		{"tool", nil, []filter.ToolOption{filter.WithReportOnly(true)}, false},
		{"tool wrapped with Wrap, by name, from its first call", []filter.Option{filter.ForTool(adaptertest.CheckedTool, filter.WithReportOnly(true))}, nil, true},
	} {
		t.Run(way.name, func(t *testing.T) {
			var log adaptertest.Log
			s := server.NewMCPServer("orders", "1.0.0", server.WithInputSchemaValidation())
			if err := mcpgo.Install(s, testPipeline(log.Logger(), way.server...)); err != nil {
				t.Fatal(err)
			}
			if way.wrap {
				s.AddTool(checkedTool(), mcpgo.Wrap(checkedHandler(new(atomic.Int64))))
			} else if err := mcpgo.AddTool(s, checkedTool(), checkedHandler(new(atomic.Int64)), way.tool...); err != nil {
				t.Fatal(err)
			}
			bare := server.NewMCPServer("orders", "1.0.0", server.WithInputSchemaValidation())
			bare.AddTool(checkedTool(), checkedHandler(new(atomic.Int64)))
			c, b := inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION), inProcess(t, bare, mcp.LATEST_PROTOCOL_VERSION)
			args := adaptertest.ArgumentCases()[2].Args
			got, want := call(t, c, adaptertest.CheckedTool, args), call(t, b, adaptertest.CheckedTool, args)
			if string(got.Raw) != string(want.Raw) {
				t.Errorf("sent %s, the bare server sends %s", got.Raw, want.Raw)
			}
			if recs := log.Records(t); len(recs) != 1 || recs[0]["report_only"] != true || recs[0]["code"] != "VALIDATION_ERROR" {
				t.Errorf("records %v, want one report-only VALIDATION_ERROR record", recs)
			}
		})
	}
}

// TestHandBuiltOnBadArgumentsStays checks that on a server without the
// SDK's validation, an error result the handler built for arguments that
// do not fit the schema is the handler's own answer: it passes untouched,
// as every hand-built result does by default.
func TestHandBuiltOnBadArgumentsStays(t *testing.T) {
	var log adaptertest.Log
	s := server.NewMCPServer("orders", "1.0.0")
	if err := mcpgo.Install(s, testPipeline(log.Logger())); err != nil {
		t.Fatal(err)
	}
	s.AddTool(checkedTool(), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultError("customer is required; give the customer's id."), nil
	})
	r := call(t, inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION), adaptertest.CheckedTool, adaptertest.ArgumentCases()[1].Args)
	if !r.IsError || r.Envelope() != nil || len(r.Texts) != 1 || !strings.HasPrefix(r.Texts[0], "customer is required;") {
		t.Errorf("sent %s, want the handler's own result", r.Raw)
	}
	if recs := log.Records(t); len(recs) != 0 {
		t.Errorf("records %v, want none", recs)
	}
}
