package gosdk_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

// checkedTool is adaptertest.CheckedTool as go-sdk declares it.
func checkedTool() *mcp.Tool {
	return &mcp.Tool{Name: adaptertest.CheckedTool, InputSchema: adaptertest.CheckedSchema}
}

// checkedHandlers returns a raw and a typed handler of the checked tool,
// which count the calls that reach them and answer
// adaptertest.CheckedReply.
func checkedHandlers(ran *atomic.Int64) (mcp.ToolHandler, mcp.ToolHandlerFor[map[string]any, any]) {
	reply := func() *mcp.CallToolResult {
		ran.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: adaptertest.CheckedReply}}}
	}
	return func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return reply(), nil },
		func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
			return reply(), nil, nil
		}
}

// TestArgumentCheck checks the check of arguments before the handler, on
// for the server or for one tool: every case of adaptertest.ArgumentCases
// gets the same answer, whichever way the tool was added, and the handler
// does not run for arguments that do not fit.
func TestArgumentCheck(t *testing.T) {
	for _, way := range []struct {
		name string
		add  func(t *testing.T, s *mcp.Server, ran *atomic.Int64)
		opts []filter.Option
	}{
		{"server, raw tool added with the SDK", func(t *testing.T, s *mcp.Server, ran *atomic.Int64) {
			raw, _ := checkedHandlers(ran)
			s.AddTool(checkedTool(), raw)
		}, []filter.Option{filter.WithArgumentCheck(true)}},
		{"server, typed tool added with the SDK", func(t *testing.T, s *mcp.Server, ran *atomic.Int64) {
			_, typed := checkedHandlers(ran)
			mcp.AddTool(s, checkedTool(), typed)
		}, []filter.Option{filter.WithArgumentCheck(true)}},
		{"server, raw tool wrapped", func(t *testing.T, s *mcp.Server, ran *atomic.Int64) {
			raw, _ := checkedHandlers(ran)
			s.AddTool(checkedTool(), gosdk.WrapRaw(raw))
		}, []filter.Option{filter.WithArgumentCheck(true)}},
		{"tool, AddRawTool", func(t *testing.T, s *mcp.Server, ran *atomic.Int64) {
			raw, _ := checkedHandlers(ran)
			must(t, gosdk.AddRawTool(s, checkedTool(), raw, filter.WithArgumentCheck(true)))
		}, nil},
		{"tool, AddTool", func(t *testing.T, s *mcp.Server, ran *atomic.Int64) {
			_, typed := checkedHandlers(ran)
			must(t, gosdk.AddTool(s, checkedTool(), typed, filter.WithArgumentCheck(true)))
		}, nil},
	} {
		t.Run(way.name, func(t *testing.T) {
			var log adaptertest.Log
			p, err := filter.New(append([]filter.Option{filter.WithLogger(log.Logger())}, way.opts...)...)
			must(t, err)
			s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1.0.0"}, nil)
			must(t, gosdk.Install(s, p))
			var ran atomic.Int64
			way.add(t, s, &ran)
			cs := connect(t, s, "")
			adaptertest.RunArgumentCases(t, func(args map[string]any) adaptertest.Result {
				r, _ := call(context.Background(), cs, adaptertest.Case{Tool: adaptertest.CheckedTool, Args: args})
				return r
			}, ran.Load, &log)
		})
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
			p, err := filter.New(append([]filter.Option{filter.WithLogger(log.Logger())}, way.opts...)...)
			must(t, err)
			s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1.0.0"}, nil)
			must(t, gosdk.Install(s, p))
			var ran atomic.Int64
			raw, _ := checkedHandlers(&ran)
			must(t, gosdk.AddRawTool(s, checkedTool(), raw, way.tool...))
			cs := connect(t, s, "")
			for _, c := range adaptertest.ArgumentCases() {
				before := ran.Load()
				r, _ := call(context.Background(), cs, adaptertest.Case{Tool: adaptertest.CheckedTool, Args: c.Args})
				if r.IsError || ran.Load() != before+1 {
					t.Errorf("%s: got %s, handler ran %d times, want the handler's success", c.Name, r.Raw, ran.Load()-before)
				}
				if recs := log.Records(t); len(recs) != 0 {
					t.Errorf("%s: records %v, want none", c.Name, recs)
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
	p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithArgumentCheck(true), filter.WithReportOnly(true))
	must(t, err)
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1.0.0"}, nil)
	must(t, gosdk.Install(s, p))
	var ran atomic.Int64
	raw, _ := checkedHandlers(&ran)
	s.AddTool(checkedTool(), raw)
	cs := connect(t, s, "")
	for _, c := range adaptertest.ArgumentCases() {
		before := ran.Load()
		r, _ := call(context.Background(), cs, adaptertest.Case{Tool: adaptertest.CheckedTool, Args: c.Args})
		if r.IsError || ran.Load() != before+1 || r.Envelope() != nil {
			t.Errorf("%s: got %s, want the handler's own success", c.Name, r.Raw)
		}
		recs := log.Records(t)
		if c.Fields == nil {
			if len(recs) != 0 {
				t.Errorf("%s: records %v for arguments that fit", c.Name, recs)
			}
			continue
		}
		if len(recs) != 1 || recs[0]["report_only"] != true || recs[0]["code"] != "VALIDATION_ERROR" {
			t.Errorf("%s: records %v, want one report-only record of the VALIDATION_ERROR mcperr would send", c.Name, recs)
		}
	}
}

// BenchmarkArgumentCheck measures a successful call of
// adaptertest.CheckedTool through a real client and server, with arguments
// that fit: a raw tool with the SDK alone (no check), a typed tool, which
// the SDK itself validates, and each with mcperr's check on.
//
//	go test -run='^$' -bench=ArgumentCheck -benchmem ./adapters/gosdk
func BenchmarkArgumentCheck(b *testing.B) {
	var ran atomic.Int64
	raw, typed := checkedHandlers(&ran)
	checked, err := filter.New(filter.WithArgumentCheck(true))
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name  string
		setup func(*mcp.Server)
	}{
		{"raw, SDK alone", func(s *mcp.Server) { s.AddTool(checkedTool(), raw) }},
		{"raw, Install+WithArgumentCheck", func(s *mcp.Server) {
			orPanic(gosdk.Install(s, checked))
			s.AddTool(checkedTool(), raw)
		}},
		{"typed, SDK's own validation", func(s *mcp.Server) { mcp.AddTool(s, checkedTool(), typed) }},
		{"typed, Install+WithArgumentCheck", func(s *mcp.Server) {
			orPanic(gosdk.Install(s, checked))
			mcp.AddTool(s, checkedTool(), typed)
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1.0.0"}, nil)
			bc.setup(s)
			cs := connect(b, s, "")
			params := &mcp.CallToolParams{Name: adaptertest.CheckedTool, Arguments: adaptertest.ArgumentCases()[0].Args}
			b.ReportAllocs()
			for b.Loop() {
				if res, err := cs.CallTool(context.Background(), params); err != nil || res.IsError {
					b.Fatalf("call failed: %v %v", res, err)
				}
			}
		})
	}
}

// TestArgumentCheckThatPanics checks that the check before the handler,
// which runs before the call is under the middleware's recovery, cannot
// take the server down: when learning the schema panics (here the server's
// own tools/list handler, asked for a tool no client listed), nothing is
// checked and the call runs.
func TestArgumentCheckThatPanics(t *testing.T) {
	p, err := filter.New(filter.WithLogger(new(adaptertest.Log).Logger()), filter.WithArgumentCheck(true))
	must(t, err)
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1.0.0"}, nil)
	var listing atomic.Bool
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler { // inside mcperr's
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" && listing.Load() {
				panic("tools/list broke")
			}
			return next(ctx, method, req)
		}
	})
	must(t, gosdk.Install(s, p))
	var ran atomic.Int64
	raw, _ := checkedHandlers(&ran)
	s.AddTool(checkedTool(), raw)
	listing.Store(true)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	must(t, err)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0.0"}, nil).Connect(context.Background(), ct, nil)
	must(t, err)
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	r, _ := call(context.Background(), cs, adaptertest.Case{Tool: adaptertest.CheckedTool, Args: adaptertest.ArgumentCases()[1].Args})
	if r.ProtocolErr != nil || r.IsError || ran.Load() != 1 {
		t.Errorf("got %s, %v (handler ran %d times), want the call run unchecked", r.Raw, r.ProtocolErr, ran.Load())
	}
}

// TestArgumentCheckCombined combines on one server, in report-only mode
// with redaction, a tool whose arguments are checked before its handler
// and that enforces (AddRawTool), one that keeps the server's settings (the
// SDK's own registration, the check off), and a wrapped tool that
// enforces: each answers as its own options say, with one record.
func TestArgumentCheckCombined(t *testing.T) {
	var log adaptertest.Log
	p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithReportOnly(true), filter.WithRedaction(true),
		filter.ForTool("wrapped", filter.WithReportOnly(false)))
	must(t, err)
	s := mcp.NewServer(&mcp.Implementation{Name: "combined", Version: "1.0.0"}, nil)
	must(t, gosdk.Install(s, p))
	var ran atomic.Int64
	raw, _ := checkedHandlers(&ran)
	must(t, gosdk.AddRawTool(s, checkedTool(), raw, filter.WithArgumentCheck(true), filter.WithReportOnly(false)))
	loose := checkedTool()
	loose.Name = "loose"
	s.AddTool(loose, raw)
	fail := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("dial db: password=" + adaptertest.Canary)
	}
	s.AddTool(&mcp.Tool{Name: "wrapped", InputSchema: adaptertest.EmptySchema}, gosdk.WrapRaw(fail))
	cs := connect(t, s, "")
	bad := adaptertest.ArgumentCases()[2]

	r, _ := call(context.Background(), cs, adaptertest.Case{Tool: adaptertest.CheckedTool, Args: bad.Args})
	adaptertest.CheckRefusal(t, bad, r, false)
	if recs := log.Records(t); len(recs) != 1 || recs[0]["report_only"] != nil {
		t.Errorf("checked tool: records %v, want one enforcing record", recs)
	}
	if r, _ := call(context.Background(), cs, adaptertest.Case{Tool: "loose", Args: bad.Args}); r.IsError || ran.Load() != 1 {
		t.Errorf("loose tool: got %s, want the handler's success", r.Raw)
	}
	r, _ = call(context.Background(), cs, adaptertest.Case{Tool: "wrapped"})
	if env := r.Envelope(); env["code"] != "INTERNAL_ERROR" || strings.Contains(string(r.Raw), adaptertest.Canary) {
		t.Errorf("wrapped tool: got %s, want a masked INTERNAL_ERROR", r.Raw)
	}
	if recs := log.Records(t); len(recs) != 1 || strings.Contains(fmt.Sprint(recs), adaptertest.Canary) {
		t.Errorf("records %v, want one, redacted", recs)
	}
}
