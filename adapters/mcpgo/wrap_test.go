package mcpgo_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

func TestWrapPanicsOnDefinitionErrors(t *testing.T) {
	ok := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil }
	var nilStructured mcp.StructuredToolHandlerFunc[struct{}, struct{}]
	tests := []struct {
		name string
		fn   func()
	}{
		{"nil handler", func() { mcpgo.Wrap(nil) }},
		{"nil structured handler", func() { mcpgo.Wrap(mcpgo.Structured(nilStructured)) }},
		{"nil filter", func() { mcpgo.Wrap(ok, mcpgo.WithFilters(nil)) }},
		{"nil filter.Catch", func() { mcpgo.Wrap(ok, mcpgo.WithFilters(filter.Catch[error](nil))) }},
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
	if mcpgo.Structured(nilStructured) != nil {
		t.Error("Structured(nil) is not nil")
	}
}

type orderArgs struct {
	OrderID string `json:"orderId"`
}

// TestWrapTypedHandler checks Wrap around mcp.NewTypedToolHandler: the
// handler's error, which the helper returns as it is, is mapped. The error
// result the helper builds itself for arguments it cannot bind is a
// hand-built result like any other, with or without Wrap (see
// filter.WithHandBuilt): under the default policy, byte for byte what the
// bare SDK sends and no record; under MaskHandBuilt masked, with one record
// that keeps the helper's text, which never reaches the client.
func TestWrapTypedHandler(t *testing.T) {
	typed := mcp.NewTypedToolHandler(func(_ context.Context, _ mcp.CallToolRequest, a orderArgs) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("load: %w", domain.NewNotFound("Order", a.OrderID))
	})
	def := func(name string) mcp.Tool { return mcp.NewTool(name, mcp.WithString("orderId", mcp.Required())) }
	tools := func(s *server.MCPServer, wrap bool) *server.MCPServer {
		order := typed
		if wrap {
			order = mcpgo.Wrap(typed)
		}
		s.AddTool(def("order"), order)
		s.AddTool(def("sdk"), typed)
		return s
	}
	bad := map[string]any{"orderId": 7}
	bare := inProcess(t, tools(server.NewMCPServer("t", "1.0.0"), false), mcp.LATEST_PROTOCOL_VERSION)

	var log adaptertest.Log
	c := inProcess(t, tools(installed(t, testPipeline(log.Logger())), true), mcp.LATEST_PROTOCOL_VERSION)
	log.Records(t)
	adaptertest.Check(t, adaptertest.Case{Want: adaptertest.Expect{IsError: true, Code: codes.NotFound,
		Text: "Order not found: ord_7", Logged: 1}}, call(t, c, "order", map[string]any{"orderId": "ord_7"}), log.Records(t))
	for _, tool := range []string{"order", "sdk"} {
		want := call(t, bare, tool, bad)
		if !want.IsError || len(want.Texts) != 1 || !strings.HasPrefix(want.Texts[0], "failed to bind arguments: ") {
			t.Fatalf("the bare helper answers arguments it cannot bind with %s; revisit this test", want.Raw)
		}
		if got := call(t, c, tool, bad); got.ProtocolErr != nil || string(got.Raw) != string(want.Raw) {
			t.Errorf("%s, hand-built results passed: sent %s %v, the bare SDK sends %s", tool, got.Raw, got.ProtocolErr, want.Raw)
		}
		if recs := log.Records(t); len(recs) != 0 {
			t.Errorf("%s, hand-built results passed: logged %v, want nothing", tool, recs)
		}
	}

	var masked adaptertest.Log
	m := inProcess(t, tools(installed(t, testPipeline(masked.Logger(), filter.WithHandBuilt(filter.MaskHandBuilt))), true),
		mcp.LATEST_PROTOCOL_VERSION)
	masked.Records(t)
	for _, tool := range []string{"order", "sdk"} {
		r := call(t, m, tool, bad)
		adaptertest.Check(t, adaptertest.Case{Tool: tool, Want: adaptertest.Expect{IsError: true, Code: codes.InternalError,
			Text: `Internal error in tool "` + tool + `" (ref: {ref}).`, Masked: true, Logged: 1,
			LogContains: []string{"failed to bind arguments", `"hand_built":true`}}}, r, masked.Records(t))
		if strings.Contains(string(r.Raw), "failed to bind") || strings.Contains(string(r.Raw), "unmarshal") {
			t.Errorf("%s, hand-built results masked: the helper's text reached the client: %s", tool, r.Raw)
		}
	}
}

// TestStructured checks that Structured maps the errors and panics of a
// handler written for mcp.NewStructuredToolHandler, through Wrap and
// AddTool, and answers a success exactly as that function does; and that
// the result that function builds from an error is, under Install, a
// hand-built result like any other: with the default policy, sent as the
// bare SDK sends it, raw text included, and not logged.
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

	// Without mcperr, mcp.NewStructuredToolHandler sends the error's text.
	bare := server.NewMCPServer("t", "1.0.0")
	bare.AddTool(def("sdk"), mcp.NewStructuredToolHandler(h))
	raw := call(t, inProcess(t, bare, mcp.LATEST_PROTOCOL_VERSION), "sdk", map[string]any{"orderId": "boom"})
	if !raw.IsError || !strings.Contains(string(raw.Raw), adaptertest.Canary) {
		t.Errorf("mcp.NewStructuredToolHandler no longer sends the raw error text; revisit Structured's doc: %s", raw.Raw)
	}
	log.Records(t)
	// Under Install its result is a hand-built result, passed untouched by
	// default.
	if r := call(t, c, "sdk", map[string]any{"orderId": "boom"}); r.ProtocolErr != nil || string(r.Raw) != string(raw.Raw) {
		t.Errorf("sdk: sent %s %v, the bare SDK sends %s", r.Raw, r.ProtocolErr, raw.Raw)
	}
	if recs := log.Records(t); len(recs) != 0 {
		t.Errorf("sdk: a hand-built result passed by default was logged: %v", recs)
	}
	for _, tool := range []string{"wrapped", "added"} {
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
}

// TestStructuredBindFailure checks arguments that Structured cannot bind to
// its struct: never the SDK's "failed to bind arguments" text, nor the
// value; VALIDATION_ERROR naming the field when they do not fit the schema;
// masked when the schema allows them and only the struct does not. The
// result mcp.NewStructuredToolHandler builds for them instead is a
// hand-built result, passed by default as the bare SDK sends it.
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
	for _, tool := range []string{"wrapped", "added", "plain"} {
		r := call(t, c, tool, bad)
		adaptertest.Check(t, adaptertest.Case{Tool: tool, Want: adaptertest.Expect{IsError: true, Code: codes.ValidationError,
			Text: "Validation failed for count: must be number, not string", Fields: []string{"count"}, Logged: 1,
			LogContains: []string{"cannot unmarshal"}}}, r, log.Records(t))
		if strings.Contains(string(r.Raw), "failed to bind") || strings.Contains(string(r.Raw), "unmarshal") {
			t.Errorf("%s: the bind error reached the client: %s", tool, r.Raw)
		}
	}
	r := call(t, c, "loose", bad)
	adaptertest.Check(t, adaptertest.Case{Tool: "loose", Want: adaptertest.Expect{IsError: true, Code: codes.InternalError,
		Text: `Internal error in tool "loose" (ref: {ref}).`, Masked: true, Logged: 1, LogContains: []string{"cannot unmarshal"}}},
		r, log.Records(t))
	if strings.Contains(string(r.Raw), "failed to bind") || strings.Contains(string(r.Raw), "unmarshal") {
		t.Errorf("loose: the bind error reached the client: %s", r.Raw)
	}

	bare := server.NewMCPServer("t", "1.0.0")
	bare.AddTool(strict("sdk"), mcp.NewStructuredToolHandler(h))
	want := call(t, inProcess(t, bare, mcp.LATEST_PROTOCOL_VERSION), "sdk", bad)
	if !want.IsError || len(want.Texts) != 1 || !strings.HasPrefix(want.Texts[0], "failed to bind arguments: ") {
		t.Fatalf("the bare helper answers arguments it cannot bind with %s; revisit this test", want.Raw)
	}
	if got := call(t, c, "sdk", bad); got.ProtocolErr != nil || string(got.Raw) != string(want.Raw) {
		t.Errorf("sdk: sent %s %v, the bare SDK sends %s", got.Raw, got.ProtocolErr, want.Raw)
	}
	if recs := log.Records(t); len(recs) != 0 {
		t.Errorf("sdk: a hand-built result passed by default was logged: %v", recs)
	}
	for _, tool := range []string{"wrapped", "added", "plain", "sdk"} {
		if r := call(t, c, tool, map[string]any{"count": 3}); r.IsError || len(r.Texts) != 1 || r.Texts[0] != `{"count":3}` {
			t.Errorf("%s: a call that binds: %s", tool, r.Raw)
		}
	}
}

// TestWrapFilterOrder checks that a tool's own filters run before the
// pipeline's global filters, the first outermost.
func TestWrapFilterOrder(t *testing.T) {
	var seen []string
	f := func(name string) filter.Filter {
		return filter.Catch(func(context.Context, filter.Call, error) (*filter.Response, error) {
			seen = append(seen, name)
			return nil, nil
		})
	}
	s := installed(t, testPipeline(new(adaptertest.Log).Logger(), filter.WithGlobalFilters(f("global"))))
	s.AddTool(mcp.NewTool("fail"), mcpgo.Wrap(func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("boom")
	}, mcpgo.WithFilters(f("wrap-1"), f("wrap-2"))))
	call(t, inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION), "fail", nil)
	if got := strings.Join(seen, " "); got != "wrap-1 wrap-2 global" {
		t.Errorf("filters ran as %q", got)
	}
}

// TestWrapFilterHandles checks that a filter bound to a tool decides what
// the client reads.
func TestWrapFilterHandles(t *testing.T) {
	var log adaptertest.Log
	nf := filter.Catch(func(_ context.Context, _ filter.Call, e *domain.NotFound) (*filter.Response, error) {
		return &filter.Response{Code: codes.NotFound, Message: "No " + e.Resource + " with that id; list them first."}, nil
	})
	s := installed(t, testPipeline(log.Logger()))
	s.AddTool(mcp.NewTool("get"), mcpgo.Wrap(func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, domain.NewNotFound("Invoice", "inv_1")
	}, mcpgo.WithFilters(nf)))
	c := inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION)
	log.Records(t)
	adaptertest.Check(t, adaptertest.Case{Want: adaptertest.Expect{IsError: true, Code: codes.NotFound,
		Text: "No Invoice with that id; list them first.", Logged: 1}}, call(t, c, "get", nil), log.Records(t))
}

// TestWrapWithoutInstall checks that a wrapped handler on a server without
// mcperr still gives the whole contract, with the default configuration:
// the error masked behind a ref that only slog.Default()'s record holds,
// the envelope, and a failure's arguments checked.
func TestWrapWithoutInstall(t *testing.T) {
	var log adaptertest.Log
	useDefaultLogger(t, log.Logger())
	s := server.NewMCPServer("t", "1.0.0")
	s.AddTool(mcp.NewTool("fail", mcp.WithNumber("n")), mcpgo.Wrap(func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("dial 10.0.0.5: password=%s refused", adaptertest.Canary)
	}))
	c := inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION)
	log.Records(t)
	adaptertest.Check(t, adaptertest.Case{Want: adaptertest.Expect{IsError: true, Code: codes.InternalError,
		Text: `Internal error in tool "fail" (ref: {ref}).`, Masked: true, Logged: 1,
		LogContains: []string{"password=" + adaptertest.Canary}}}, call(t, c, "fail", nil), log.Records(t))
	adaptertest.Check(t, adaptertest.Case{Want: adaptertest.Expect{IsError: true, Code: codes.ValidationError,
		Text: "Validation failed for n: must be number, not string", Fields: []string{"n"}, Logged: 1}},
		call(t, c, "fail", map[string]any{"n": adaptertest.Canary}), log.Records(t))
}
