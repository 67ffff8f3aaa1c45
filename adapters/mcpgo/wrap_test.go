package mcpgo_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
	"github.com/mcperr/mcperr/toolerr"
)

func TestWrapPanicsOnDefinitionErrors(t *testing.T) {
	var nilStructured mcp.StructuredToolHandlerFunc[struct{}, struct{}]
	tests := []struct {
		name string
		fn   func()
	}{
		{"nil handler", func() { mcpgo.Wrap(nil) }},
		{"nil structured handler", func() { mcpgo.Structured(nilStructured) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				var de *codes.DefinitionError
				if err, _ := recover().(error); !errors.As(err, &de) || de.Mistake != codes.NilValue {
					t.Errorf("panicked with %v, want a NIL_VALUE definition error", err)
				}
			}()
			tt.fn()
		})
	}
}

type orderArgs struct {
	OrderID string `json:"orderId"`
}

// TestTypedHelpers checks mcp-go's typed helpers, mcp.NewTypedToolHandler
// and mcp.NewStructuredToolHandler, on every entry point (registered as they
// are, through Wrap, through AddTool): the errors they turn into error
// results are handled as the errors they are, found by the handler the
// tool was registered with, not by their words. Arguments they cannot bind
// are a VALIDATION_ERROR naming the field, never its value; a handler's
// error is masked, its text in the record only. An error result of one's
// own that starts with the same words passes as built.
func TestTypedHelpers(t *testing.T) {
	typed := mcp.NewTypedToolHandler(func(_ context.Context, _ mcp.CallToolRequest, a orderArgs) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("load: %w", domain.NewNotFound("Order", a.OrderID))
	})
	structured := mcp.NewStructuredToolHandler(func(_ context.Context, _ mcp.CallToolRequest, a orderArgs) (orderArgs, error) {
		return a, fmt.Errorf("db at 10.0.0.5: password=%s refused", adaptertest.Canary)
	})
	lookalike := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultError("failed to bind arguments: give orderId as a string."), nil
	}
	def := func(name string) mcp.Tool { return mcp.NewTool(name, mcp.WithString("orderId", mcp.Required())) }
	server := func(p *filter.Pipeline) *server.MCPServer {
		s := installed(t, p)
		s.AddTool(def("typed"), typed)
		s.AddTool(def("typed_wrapped"), mcpgo.Wrap(typed))
		if err := mcpgo.AddTool(s, def("typed_added"), typed); err != nil {
			t.Fatal(err)
		}
		s.AddTool(def("structured"), structured)
		s.AddTool(def("structured_wrapped"), mcpgo.Wrap(structured))
		if err := mcpgo.AddTool(s, def("structured_added"), structured); err != nil {
			t.Fatal(err)
		}
		s.AddTool(def("lookalike"), lookalike)
		return s
	}
	for _, policy := range []filter.HandBuilt{filter.PassHandBuilt, filter.MaskHandBuilt} {
		var log adaptertest.Log
		c := inProcess(t, server(testPipeline(log.Logger(), filter.WithHandBuilt(policy))), mcp.LATEST_PROTOCOL_VERSION)
		log.Records(t)
		for _, tool := range []string{"typed", "typed_wrapped", "typed_added"} {
			adaptertest.Check(t, adaptertest.Case{Tool: tool, Want: adaptertest.Expect{IsError: true, Code: codes.NotFound,
				Text: "Order not found: ord_7", Logged: 1}}, call(t, c, tool, map[string]any{"orderId": "ord_7"}), log.Records(t))
		}
		for _, tool := range []string{"structured", "structured_wrapped", "structured_added"} {
			r := call(t, c, tool, map[string]any{"orderId": "ord_7"})
			adaptertest.Check(t, adaptertest.Case{Tool: tool, Want: adaptertest.Expect{IsError: true, Code: codes.InternalError,
				Text: `Internal error in tool "` + tool + `" (ref: {ref}).`, Masked: true, Logged: 1,
				LogContains: []string{"tool execution failed", adaptertest.Canary}}}, r, log.Records(t))
		}
		for _, tool := range []string{"typed", "typed_wrapped", "typed_added", "structured", "structured_wrapped", "structured_added"} {
			r := call(t, c, tool, map[string]any{"orderId": 7})
			adaptertest.Check(t, adaptertest.Case{Tool: tool, Want: adaptertest.Expect{IsError: true, Code: codes.ValidationError,
				Text: "Validation failed for orderId: must be string, not number", Fields: []string{"orderId"}, Logged: 1,
				LogContains: []string{"failed to bind arguments"}}}, r, log.Records(t))
			if strings.Contains(string(r.Raw), "failed to bind") || strings.Contains(string(r.Raw), "unmarshal") {
				t.Errorf("%s: the helper's text reached the client: %s", tool, r.Raw)
			}
		}
		r := call(t, c, "lookalike", map[string]any{"orderId": 7})
		if policy == filter.PassHandBuilt {
			if !r.IsError || r.Envelope() != nil || len(r.Texts) != 1 || r.Texts[0] != "failed to bind arguments: give orderId as a string." {
				t.Errorf("lookalike: sent %s, want the handler's own result, as built", r.Raw)
			}
			if recs := log.Records(t); len(recs) != 0 {
				t.Errorf("lookalike: logged %v, want nothing", recs)
			}
			continue
		}
		adaptertest.Check(t, adaptertest.Case{Tool: "lookalike", Want: adaptertest.Expect{IsError: true, Code: codes.InternalError,
			Text: `Internal error in tool "lookalike" (ref: {ref}).`, Masked: true, Logged: 1,
			LogContains: []string{`"hand_built":true`}}}, r, log.Records(t))
	}
}

// TestTypedHelperUnreadableArguments checks arguments that fit the input
// schema but that a typed helper cannot bind (a time.Time given
// "yesterday"): a VALIDATION_ERROR of the arguments as a whole, never the
// value, through mcp-go's helper as through Structured.
func TestTypedHelperUnreadableArguments(t *testing.T) {
	type when struct {
		At time.Time `json:"at"`
	}
	h := func(_ context.Context, _ mcp.CallToolRequest, w when) (when, error) { return w, nil }
	var log adaptertest.Log
	s := installed(t, testPipeline(log.Logger()))
	def := func(name string) mcp.Tool { return mcp.NewTool(name, mcp.WithString("at", mcp.Required())) }
	s.AddTool(def("helper"), mcp.NewStructuredToolHandler(h))
	s.AddTool(def("structured"), mcpgo.Structured(h))
	c := inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION)
	log.Records(t)
	for _, tool := range []string{"helper", "structured"} {
		r := call(t, c, tool, map[string]any{"at": "yesterday-" + adaptertest.Canary})
		adaptertest.Check(t, adaptertest.Case{Tool: tool, Want: adaptertest.Expect{IsError: true, Code: codes.ValidationError,
			Text: "Validation failed: The arguments cannot be read as the tool expects; check them against its input schema.", Logged: 1}},
			r, log.Records(t))
	}
}

// TestStructured checks that Structured maps the errors and panics of a
// handler written for mcp.NewStructuredToolHandler, through Wrap and
// AddTool, a ToolError's words included, and answers a success exactly as
// that function does.
func TestStructured(t *testing.T) {
	type out struct {
		Status string `json:"status"`
	}
	h := func(_ context.Context, _ mcp.CallToolRequest, a orderArgs) (out, error) {
		switch a.OrderID {
		case "boom":
			return out{}, fmt.Errorf("db at 10.0.0.5: password=%s refused", adaptertest.Canary)
		case "panic":
			panic("nil pointer near " + adaptertest.Canary)
		case "words":
			return out{}, toolerr.New("Order words is on hold; ask support.")
		}
		return out{Status: "shipped"}, nil
	}
	var log adaptertest.Log
	s := installed(t, testPipeline(log.Logger()))
	def := func(name string) mcp.Tool {
		return mcp.NewTool(name, mcp.WithString("orderId", mcp.Required()), mcp.WithOutputSchema[out]())
	}
	s.AddTool(def("sdk"), mcp.NewStructuredToolHandler(h))
	s.AddTool(def("wrapped"), mcpgo.Wrap(mcpgo.Structured(h)))
	if err := mcpgo.AddTool(s, def("added"), mcpgo.Structured(h)); err != nil {
		t.Fatal(err)
	}
	c := inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION)
	log.Records(t)
	for _, tool := range []string{"wrapped", "added", "sdk"} {
		for _, id := range []string{"boom", "panic"} {
			adaptertest.Check(t, adaptertest.Case{Want: adaptertest.Expect{IsError: true, Code: codes.InternalError,
				Text: `Internal error in tool "` + tool + `" (ref: {ref}).`, Masked: true, Logged: 1,
				LogContains: []string{adaptertest.Canary}}},
				call(t, c, tool, map[string]any{"orderId": id}), log.Records(t))
		}
		ok := call(t, c, tool, map[string]any{"orderId": "ord_1"})
		sdk := call(t, c, "sdk", map[string]any{"orderId": "ord_1"})
		if ok.IsError || string(ok.Raw) != string(sdk.Raw) {
			t.Errorf("%s: success: Structured sent %s, mcp.NewStructuredToolHandler %s", tool, ok.Raw, sdk.Raw)
		}
	}
	for _, tool := range []string{"wrapped", "added"} {
		adaptertest.Check(t, adaptertest.Case{Want: adaptertest.Expect{IsError: true, Code: codes.ToolFailed,
			Text: "Order words is on hold; ask support.", Logged: 1}}, call(t, c, tool, map[string]any{"orderId": "words"}), log.Records(t))
	}
}

// TestStructuredBindFailure checks arguments that Structured cannot bind to
// its struct: never the SDK's "failed to bind arguments" text, nor the
// value; VALIDATION_ERROR naming the field when they do not fit the
// schema, and the arguments as a whole when only the struct refuses them.
func TestStructuredBindFailure(t *testing.T) {
	type countArgs struct {
		Count int `json:"count"`
	}
	type out struct {
		Count int `json:"count"`
	}
	h := func(_ context.Context, _ mcp.CallToolRequest, a countArgs) (out, error) { return out(a), nil }
	var log adaptertest.Log
	s := installed(t, testPipeline(log.Logger()))
	strict := func(name string) mcp.Tool { return mcp.NewTool(name, mcp.WithNumber("count", mcp.Required())) }
	s.AddTool(strict("wrapped"), mcpgo.Wrap(mcpgo.Structured(h)))
	if err := mcpgo.AddTool(s, strict("added"), mcpgo.Structured(h)); err != nil {
		t.Fatal(err)
	}
	s.AddTool(strict("plain"), mcpgo.Structured(h)) // under Install's middleware alone
	// A schema that says nothing of count's type: the struct alone refuses.
	s.AddTool(mcp.NewTool("loose"), mcpgo.Structured(h))
	s.AddTool(strict("sdk"), mcp.NewStructuredToolHandler(h))
	c := inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION)
	bad := map[string]any{"count": adaptertest.Canary}
	log.Records(t)
	for _, tool := range []string{"wrapped", "added", "plain", "sdk"} {
		r := call(t, c, tool, bad)
		adaptertest.Check(t, adaptertest.Case{Tool: tool, Want: adaptertest.Expect{IsError: true, Code: codes.ValidationError,
			Text: "Validation failed for count: must be number, not string", Fields: []string{"count"}, Logged: 1,
			LogContains: []string{"unmarshal"}}}, r, log.Records(t))
		if strings.Contains(string(r.Raw), "failed to bind") || strings.Contains(string(r.Raw), "unmarshal") {
			t.Errorf("%s: the bind error reached the client: %s", tool, r.Raw)
		}
	}
	r := call(t, c, "loose", bad)
	adaptertest.Check(t, adaptertest.Case{Tool: "loose", Want: adaptertest.Expect{IsError: true, Code: codes.ValidationError,
		Text: "Validation failed: The arguments cannot be read as the tool expects; check them against its input schema.", Logged: 1,
		LogContains: []string{"cannot unmarshal"}}}, r, log.Records(t))
	if strings.Contains(string(r.Raw), "failed to bind") || strings.Contains(string(r.Raw), "unmarshal") || strings.Contains(string(r.Raw), adaptertest.Canary) {
		t.Errorf("loose: the bind error reached the client: %s", r.Raw)
	}
	for _, tool := range []string{"wrapped", "added", "plain", "sdk"} {
		if r := call(t, c, tool, map[string]any{"count": 3}); r.IsError || len(r.Texts) != 1 || r.Texts[0] != `{"count":3}` {
			t.Errorf("%s: a call that binds: %s", tool, r.Raw)
		}
	}
}

// TestWrapFilterOrder checks that a wrapped tool's own filters, declared
// by name, run before the pipeline's global filters, the first outermost.
func TestWrapFilterOrder(t *testing.T) {
	var seen []string
	f := func(name string) filter.Filter {
		return filter.Catch(func(context.Context, filter.Call, error) (*filter.Response, error) {
			seen = append(seen, name)
			return nil, nil
		})
	}
	s := installed(t, testPipeline(new(adaptertest.Log).Logger(), filter.WithFilters(f("global")),
		filter.ForTool("fail", filter.WithFilters(f("own-1"), f("own-2")))))
	s.AddTool(mcp.NewTool("fail"), mcpgo.Wrap(func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("boom")
	}))
	call(t, inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION), "fail", nil)
	if got := strings.Join(seen, " "); got != "own-1 own-2 global" {
		t.Errorf("filters ran as %q", got)
	}
}

// TestWrapFilterHandles checks that a filter bound to a wrapped tool by
// name decides what the client reads.
func TestWrapFilterHandles(t *testing.T) {
	var log adaptertest.Log
	nf := filter.Catch(func(_ context.Context, _ filter.Call, e *domain.NotFound) (*filter.Response, error) {
		return &filter.Response{Code: codes.NotFound, Message: "No " + e.Resource + " with that id; list them first."}, nil
	})
	s := installed(t, testPipeline(log.Logger(), filter.ForTool("get", filter.WithFilters(nf))))
	s.AddTool(mcp.NewTool("get"), mcpgo.Wrap(func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, domain.NewNotFound("Invoice", "inv_1")
	}))
	c := inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION)
	log.Records(t)
	adaptertest.Check(t, adaptertest.Case{Want: adaptertest.Expect{IsError: true, Code: codes.NotFound,
		Text: "No Invoice with that id; list them first.", Logged: 1}}, call(t, c, "get", nil), log.Records(t))
}

// TestWrapWithoutInstall checks a wrapped handler on a server without
// mcperr: nothing decides its failures there (Install's middleware is the
// one place that does), so the client receives exactly what the bare SDK
// sends, and the first call, a success as well as a failure, writes one
// ERROR record to slog.Default saying that mcperr is not installed and
// what to do.
func TestWrapWithoutInstall(t *testing.T) {
	var log adaptertest.Log
	useDefaultLogger(t, log.Logger())
	h := func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if req.GetBool("fail", false) {
			return nil, fmt.Errorf("dial 10.0.0.5: password=%s refused", adaptertest.Canary)
		}
		return mcp.NewToolResultText("ok"), nil
	}
	type noArgs struct{}
	helper := mcp.NewStructuredToolHandler(func(context.Context, mcp.CallToolRequest, noArgs) (noArgs, error) {
		return noArgs{}, errors.New("dial db: password=" + adaptertest.Canary)
	})
	wrapped, bare := server.NewMCPServer("t", "1.0.0"), server.NewMCPServer("t", "1.0.0")
	wrapped.AddTool(mcp.NewTool("fail"), mcpgo.Wrap(h))
	wrapped.AddTool(mcp.NewTool("helper"), mcpgo.Wrap(helper))
	bare.AddTool(mcp.NewTool("fail"), h)
	bare.AddTool(mcp.NewTool("helper"), helper)
	c, b := inProcess(t, wrapped, mcp.LATEST_PROTOCOL_VERSION), inProcess(t, bare, mcp.LATEST_PROTOCOL_VERSION)
	log.Records(t)
	for i, tc := range []struct {
		tool string
		args map[string]any
	}{{"fail", nil}, {"fail", map[string]any{"fail": true}}, {"helper", nil}, {"helper", nil}} {
		got, want := call(t, c, tc.tool, tc.args), call(t, b, tc.tool, tc.args)
		if string(got.Raw) != string(want.Raw) || fmt.Sprint(got.ProtocolErr) != fmt.Sprint(want.ProtocolErr) {
			t.Errorf("%s %v: got %s %v, want what the bare SDK sends: %s %v", tc.tool, tc.args, got.Raw, got.ProtocolErr, want.Raw, want.ProtocolErr)
		}
		recs, wantRecs := log.Records(t), 0
		if i == 0 || i == 2 { // the first call of each wrapped handler
			wantRecs = 1
		}
		if len(recs) != wantRecs {
			t.Fatalf("call %d: records %v, want %d", i, recs, wantRecs)
		}
		for _, rec := range recs {
			if rec["level"] != "ERROR" || !strings.Contains(fmt.Sprint(rec["msg"]), "without mcperr installed") || !strings.Contains(fmt.Sprint(rec["fix"]), "mcpgo.Install") {
				t.Errorf("record %v does not say that mcperr is not installed and what to do", rec)
			}
		}
	}
}
