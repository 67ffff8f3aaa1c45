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
	"github.com/mcperr/mcperr/internal/adaptertest"
	"github.com/mcperr/mcperr/toolerr"
)

func TestWrapPanicsOnDefinitionErrors(t *testing.T) {
	ok := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil }
	var nilStructured mcp.StructuredToolHandlerFunc[struct{}, struct{}]
	tests := []struct {
		name string
		fn   func()
		code codes.Code
	}{
		{"nil handler", func() { mcpgo.Wrap(nil) }, codes.NilHandler},
		{"nil structured handler", func() { mcpgo.WrapStructured(nilStructured) }, codes.NilHandler},
		{"nil filter", func() { mcpgo.Wrap(ok, mcpgo.WithFilters(nil)) }, codes.NilFilter},
		{"nil structured filter", func() {
			mcpgo.WrapStructured(func(context.Context, mcp.CallToolRequest, struct{}) (struct{}, error) { return struct{}{}, nil },
				mcpgo.WithFilters(nil))
		}, codes.NilFilter},
		{"request ids", func() { mcpgo.Wrap(ok, mcpgo.WithRequestIDs()) }, codes.InvalidOption},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				var de *toolerr.DefinitionError
				if err, _ := recover().(error); !errors.As(err, &de) || de.Code != tt.code {
					t.Errorf("panicked with %v, want a %s definition error", err, tt.code)
				}
			}()
			tt.fn()
		})
	}
}

type orderArgs struct {
	OrderID string `json:"orderId"`
}

// TestWrapTypedHandler checks Wrap around mcp.NewTypedToolHandler: the
// handler's error is mapped, and arguments are checked before binding.
func TestWrapTypedHandler(t *testing.T) {
	var log adaptertest.Log
	s := installed(t, testPipeline(log.Logger()))
	s.AddTool(mcp.NewTool("order", mcp.WithString("orderId", mcp.Required())),
		mcpgo.Wrap(mcp.NewTypedToolHandler(func(_ context.Context, _ mcp.CallToolRequest, a orderArgs) (*mcp.CallToolResult, error) {
			return nil, fmt.Errorf("load: %w", domain.NewNotFound("Order", a.OrderID))
		})))
	c := inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION)
	log.Records(t)
	adaptertest.Check(t, adaptertest.Case{Want: adaptertest.Expect{IsError: true, Code: codes.NotFound,
		Text: "Order not found: ord_7", Logged: 1}}, call(t, c, "order", map[string]any{"orderId": "ord_7"}), log.Records(t))
	adaptertest.Check(t, adaptertest.Case{Want: adaptertest.Expect{IsError: true, Code: codes.ValidationError,
		Text: "Validation failed for orderId: must be string, not number", Fields: []string{"orderId"}, Logged: 1}},
		call(t, c, "order", map[string]any{"orderId": 7}), log.Records(t))
}

// TestWrapStructured checks that WrapStructured maps what
// mcp.NewStructuredToolHandler would send raw.
func TestWrapStructured(t *testing.T) {
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
	s.AddTool(def("wrapped"), mcpgo.WrapStructured(h))
	c := inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION)

	if r := call(t, c, "sdk", map[string]any{"orderId": "boom"}); !strings.Contains(string(r.Raw), adaptertest.Canary) {
		t.Errorf("mcp.NewStructuredToolHandler no longer sends the raw error text; revisit WrapStructured's doc: %s", r.Raw)
	}
	log.Records(t)
	for _, id := range []string{"boom", "panic"} {
		adaptertest.Check(t, adaptertest.Case{Want: adaptertest.Expect{IsError: true, Code: codes.InternalError,
			Text: `Internal error in tool "wrapped" (ref: {ref}).`, Masked: true, Logged: 1}},
			call(t, c, "wrapped", map[string]any{"orderId": id}), log.Records(t))
	}
	ok := call(t, c, "wrapped", map[string]any{"orderId": "ord_1"})
	sdk := call(t, c, "sdk", map[string]any{"orderId": "ord_1"})
	if ok.IsError || string(ok.Raw) != string(sdk.Raw) {
		t.Errorf("success: WrapStructured sent %s, mcp.NewStructuredToolHandler %s", ok.Raw, sdk.Raw)
	}
}

// TestWrapFilterOrder checks that a tool's own filters run before the
// pipeline's global filters, the first outermost.
func TestWrapFilterOrder(t *testing.T) {
	var seen []string
	f := func(name string) filter.Filter {
		return filter.Func(func(context.Context, filter.Call, error) (*filter.Response, error) {
			seen = append(seen, name)
			return nil, nil
		})
	}
	s := installed(t, testPipeline(new(adaptertest.Log).Logger(), filter.WithFilters(f("global"))))
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
// the envelope, and the arguments checked.
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
