package mcpgo_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

// checkedTool is adaptertest.CheckedTool as mcp-go declares it.
func checkedTool() mcp.Tool {
	return mcp.NewToolWithRawSchema(adaptertest.CheckedTool, "Places an order.", adaptertest.CheckedSchema)
}

// checkedHandler returns the checked tool's handler, which counts the
// calls that reach it and answers adaptertest.CheckedReply.
func checkedHandler(ran *atomic.Int64) server.ToolHandlerFunc {
	return func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ran.Add(1)
		return mcp.NewToolResultText(adaptertest.CheckedReply), nil
	}
}

// TestArgumentCheck checks the check of arguments before the handler, on
// for the server or for one tool: every case of adaptertest.ArgumentCases
// gets the same answer as on go-sdk, whichever way the tool was added,
// over both transports, and the handler does not run for arguments that
// do not fit.
func TestArgumentCheck(t *testing.T) {
	for _, way := range []struct {
		name string
		add  func(t *testing.T, s *server.MCPServer, ran *atomic.Int64)
		opts []filter.Option
	}{
		{"server, tool added with the SDK", func(t *testing.T, s *server.MCPServer, ran *atomic.Int64) {
			s.AddTool(checkedTool(), checkedHandler(ran))
		}, []filter.Option{filter.WithArgumentCheck(true)}},
		{"server, tool wrapped", func(t *testing.T, s *server.MCPServer, ran *atomic.Int64) {
			s.AddTool(checkedTool(), mcpgo.Wrap(checkedHandler(ran)))
		}, []filter.Option{filter.WithArgumentCheck(true)}},
		{"tool, AddTool", func(t *testing.T, s *server.MCPServer, ran *atomic.Int64) {
			if err := mcpgo.AddTool(s, checkedTool(), checkedHandler(ran), filter.WithArgumentCheck(true)); err != nil {
				t.Fatal(err)
			}
		}, nil},
	} {
		for _, transport := range []string{"in-process", "streamable HTTP"} {
			t.Run(way.name+"/"+transport, func(t *testing.T) {
				var log adaptertest.Log
				s := server.NewMCPServer("orders", "1.0.0")
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
			})
		}
	}
}

// TestArgumentCheckOff checks that the check is off by default and that a
// tool can turn it off on a server that has it on: the handler answers
// arguments that do not fit, and a success stays a success.
func TestArgumentCheckOff(t *testing.T) {
	for _, way := range []struct {
		name string
		opts []filter.Option
		tool []filter.ToolOption
	}{
		{"off by default", nil, nil},
		{"on for the server, off for the tool", []filter.Option{filter.WithArgumentCheck(true)}, []filter.ToolOption{filter.WithArgumentCheck(false)}},
	} {
		t.Run(way.name, func(t *testing.T) {
			var log adaptertest.Log
			s := server.NewMCPServer("orders", "1.0.0")
			if err := mcpgo.Install(s, testPipeline(log.Logger(), way.opts...)); err != nil {
				t.Fatal(err)
			}
			var ran atomic.Int64
			if err := mcpgo.AddTool(s, checkedTool(), checkedHandler(&ran), way.tool...); err != nil {
				t.Fatal(err)
			}
			c := inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION)
			for _, tc := range adaptertest.ArgumentCases() {
				before := ran.Load()
				r := call(t, c, adaptertest.CheckedTool, tc.Args)
				if r.IsError || ran.Load() != before+1 {
					t.Errorf("%s: got %s, handler ran %d times, want the handler's success", tc.Name, r.Raw, ran.Load()-before)
				}
				if recs := log.Records(t); len(recs) != 0 {
					t.Errorf("%s: records %v, want none", tc.Name, recs)
				}
			}
		})
	}
}

// TestArgumentCheckReportOnly checks the check in report-only mode: the
// client receives what the bare SDK sends (the handler runs and succeeds),
// and one record says what mcperr would have sent.
func TestArgumentCheckReportOnly(t *testing.T) {
	var log adaptertest.Log
	s := server.NewMCPServer("orders", "1.0.0")
	if err := mcpgo.Install(s, testPipeline(log.Logger(), filter.WithArgumentCheck(true), filter.WithReportOnly(true))); err != nil {
		t.Fatal(err)
	}
	var ran atomic.Int64
	s.AddTool(checkedTool(), checkedHandler(&ran))
	c := inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION)
	for _, tc := range adaptertest.ArgumentCases() {
		before := ran.Load()
		r := call(t, c, adaptertest.CheckedTool, tc.Args)
		if r.IsError || ran.Load() != before+1 || r.Envelope() != nil {
			t.Errorf("%s: got %s, want the handler's own success", tc.Name, r.Raw)
		}
		recs := log.Records(t)
		if tc.Fields == nil {
			if len(recs) != 0 {
				t.Errorf("%s: records %v for arguments that fit", tc.Name, recs)
			}
			continue
		}
		if len(recs) != 1 || recs[0]["report_only"] != true || recs[0]["code"] != "VALIDATION_ERROR" {
			t.Errorf("%s: records %v, want one report-only record of the VALIDATION_ERROR mcperr would send", tc.Name, recs)
		}
	}
}

// BenchmarkArgumentCheck measures a successful call of
// adaptertest.CheckedTool through a real client and server in process, with
// arguments that fit: with the SDK alone (no check), with mcp-go's own
// server.WithInputSchemaValidation, with mcperr installed and its check
// off, and on.
//
//	go test -run='^$' -bench=ArgumentCheck -benchmem ./adapters/mcpgo
func BenchmarkArgumentCheck(b *testing.B) {
	var ran atomic.Int64
	for _, bc := range []struct {
		name string
		opts []server.ServerOption
		p    []filter.Option
		bare bool
	}{
		{"SDK alone", nil, nil, true},
		{"SDK's WithInputSchemaValidation", []server.ServerOption{server.WithInputSchemaValidation()}, nil, true},
		{"Install", nil, nil, false},
		{"Install+WithArgumentCheck", nil, []filter.Option{filter.WithArgumentCheck(true)}, false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s := server.NewMCPServer("bench", "1.0.0", bc.opts...)
			if !bc.bare {
				if err := mcpgo.Install(s, testPipeline(new(adaptertest.Log).Logger(), bc.p...)); err != nil {
					b.Fatal(err)
				}
			}
			s.AddTool(checkedTool(), checkedHandler(&ran))
			c := inProcess(b, s, mcp.LATEST_PROTOCOL_VERSION)
			req := mcp.CallToolRequest{}
			req.Params.Name = adaptertest.CheckedTool
			req.Params.Arguments = adaptertest.ArgumentCases()[0].Args
			b.ReportAllocs()
			for b.Loop() {
				if res, err := c.CallTool(context.Background(), req); err != nil || res.IsError {
					b.Fatalf("call failed: %v %v", res, err)
				}
			}
		})
	}
}

// TestArgumentCheckCombined combines on one server, in report-only mode
// with redaction, a tool whose arguments are checked before its handler
// and that enforces (AddTool), one that keeps the server's settings (the
// SDK's own registration, the check off), and a wrapped tool that
// enforces: each answers as its own options say, with one record.
func TestArgumentCheckCombined(t *testing.T) {
	var log adaptertest.Log
	s := server.NewMCPServer("combined", "1.0.0")
	if err := mcpgo.Install(s, testPipeline(log.Logger(), filter.WithReportOnly(true), filter.WithRedaction(true),
		filter.ForTool("wrapped", filter.WithReportOnly(false)))); err != nil {
		t.Fatal(err)
	}
	var ran atomic.Int64
	if err := mcpgo.AddTool(s, checkedTool(), checkedHandler(&ran), filter.WithArgumentCheck(true), filter.WithReportOnly(false)); err != nil {
		t.Fatal(err)
	}
	s.AddTool(mcp.NewToolWithRawSchema("loose", "", adaptertest.CheckedSchema), checkedHandler(&ran))
	fail := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("dial db: password=" + adaptertest.Canary)
	}
	s.AddTool(mcp.NewTool("wrapped"), mcpgo.Wrap(fail))
	c := inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION)
	bad := adaptertest.ArgumentCases()[2]

	adaptertest.CheckRefusal(t, bad, call(t, c, adaptertest.CheckedTool, bad.Args), false)
	if recs := log.Records(t); len(recs) != 1 || recs[0]["report_only"] != nil {
		t.Errorf("checked tool: records %v, want one enforcing record", recs)
	}
	if r := call(t, c, "loose", bad.Args); r.IsError || ran.Load() != 1 {
		t.Errorf("loose tool: got %s, want the handler's success", r.Raw)
	}
	r := call(t, c, "wrapped", nil)
	if env := r.Envelope(); env["code"] != "INTERNAL_ERROR" || strings.Contains(string(r.Raw), adaptertest.Canary) {
		t.Errorf("wrapped tool: got %s, want a masked INTERNAL_ERROR", r.Raw)
	}
	if recs := log.Records(t); len(recs) != 1 || strings.Contains(fmt.Sprint(recs), adaptertest.Canary) {
		t.Errorf("records %v, want one, redacted", recs)
	}
}
