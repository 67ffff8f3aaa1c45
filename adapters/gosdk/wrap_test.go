package gosdk_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/adaptertest"
	"github.com/mcperr/mcperr/toolerr"
)

// TestWrapAlone checks what Wrap does without Middleware: the client reads
// exactly the pipeline's message, a masked error keeps its secret, a panic
// leaves the server serving, and each error is logged once. The envelope and
// hint blocks need the middleware.
func TestWrapAlone(t *testing.T) {
	ctx := context.Background()
	var log adaptertest.Log
	p := newPipeline(t, &log)
	s := mcp.NewServer(&mcp.Implementation{Name: "wrap", Version: "1.0.0"}, nil)
	add := func(name string, do func() error) {
		mcp.AddTool(s, &mcp.Tool{Name: name}, gosdk.Wrap(func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
			return nil, nil, do()
		}, gosdk.WithPipeline(p)))
	}
	add("tool_error", func() error { return toolerr.New("b must not be zero.").WithHint("Pass a non-zero b.") })
	add("not_found", func() error { return domain.NewNotFound("Order", "ord_1") })
	add("secret", func() error { return errors.New("password=" + adaptertest.Canary) })
	add("panic", func() error { panic(adaptertest.Canary) })
	add("rpc", func() error { return rpcErr })
	add("ok", func() error { return nil })
	cs := connect(t, s, "")

	tests := []struct {
		tool   string
		text   string // "" for a masked error
		logged int
	}{
		{"tool_error", "b must not be zero.", 1},
		{"not_found", "Order not found: ord_1", 1},
		{"secret", "", 1},
		{"panic", "", 1},
		{"ok", "", 0},
	}
	for _, tt := range tests {
		r, _ := call(ctx, cs, adaptertest.Case{Tool: tt.tool})
		recs := log.Records(t)
		if r.ProtocolErr != nil {
			t.Fatalf("%s: %v", tt.tool, r.ProtocolErr)
		}
		if strings.Contains(string(r.Raw), adaptertest.Canary) {
			t.Errorf("%s: the secret reached the client: %s", tt.tool, r.Raw)
		}
		if len(recs) != tt.logged {
			t.Errorf("%s: %d log records, want %d", tt.tool, len(recs), tt.logged)
		}
		if tt.tool == "ok" {
			if r.IsError {
				t.Errorf("ok: got an error result %s", r.Raw)
			}
			continue
		}
		want := tt.text
		if want == "" && len(recs) == 1 {
			want = `Internal error in tool "` + tt.tool + `" (ref: ` + recs[0]["ref"].(string) + `).`
		}
		if !r.IsError || len(r.Texts) != 1 || r.Texts[0] != want {
			t.Errorf("%s: isError %v, texts %q; want exactly %q", tt.tool, r.IsError, r.Texts, want)
		}
		if r.Envelope() != nil {
			t.Errorf("%s: an envelope without the middleware: %v", tt.tool, r.Meta)
		}
	}
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "rpc"})
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != rpcErr.Code {
		t.Errorf("rpc: got %v, want the handler's JSON-RPC error", err)
	}
	if recs := log.Records(t); len(recs) != 0 {
		t.Errorf("rpc: a protocol error was logged: %v", recs)
	}
}

// TestWrapTwice checks that a handler wrapped twice maps and logs an error
// once, with the inner wrapper's filters.
func TestWrapTwice(t *testing.T) {
	var log adaptertest.Log
	p := newPipeline(t, &log)
	inner := filter.Catch(func(context.Context, filter.Call, *domain.NotFound) (*filter.Response, error) {
		return &filter.Response{Code: codes.NotFound, Message: "inner"}, nil
	})
	h := gosdk.Wrap(func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
		return nil, nil, domain.NewNotFound("Order", "o1")
	}, gosdk.WithPipeline(p), gosdk.WithFilters(inner))
	s := mcp.NewServer(&mcp.Implementation{Name: "twice", Version: "1.0.0"}, nil)
	s.AddReceivingMiddleware(gosdk.Middleware(gosdk.WithPipeline(p)))
	mcp.AddTool(s, &mcp.Tool{Name: "twice"}, gosdk.Wrap(h, gosdk.WithPipeline(p)))
	r, _ := call(context.Background(), connect(t, s, ""), adaptertest.Case{Tool: "twice"})
	if len(r.Texts) != 1 || r.Texts[0] != "inner" {
		t.Errorf("texts %q, want the inner wrapper's answer", r.Texts)
	}
	if recs := log.Records(t); len(recs) != 1 {
		t.Errorf("%d log records, want 1", len(recs))
	}
}

// TestWrapFilterOrder checks that the filters of a wrapped tool run before
// the pipeline's per-tool filters, which run before its global ones.
func TestWrapFilterOrder(t *testing.T) {
	var log adaptertest.Log
	var order []string
	pass := func(name string) filter.Filter {
		return filter.Func(func(context.Context, filter.Call, error) (*filter.Response, error) {
			order = append(order, name)
			return nil, nil
		})
	}
	p, err := filter.New(filter.WithLogger(log.Logger()),
		filter.WithFilters(pass("global")), filter.WithToolFilters("t", pass("pipeline per-tool")))
	must(t, err)
	s := mcp.NewServer(&mcp.Implementation{Name: "order", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "t"}, gosdk.Wrap(func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
		return nil, nil, errors.New("boom")
	}, gosdk.WithPipeline(p), gosdk.WithFilters(pass("wrap 1"), pass("wrap 2"))))
	call(context.Background(), connect(t, s, ""), adaptertest.Case{Tool: "t"})
	if got, want := strings.Join(order, ", "), "wrap 1, wrap 2, pipeline per-tool, global"; got != want {
		t.Errorf("filters ran in order %s, want %s", got, want)
	}
}

// TestWrapNil checks that a nil handler or filter is refused at start-up.
func TestWrapNil(t *testing.T) {
	h := func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
		return nil, nil, nil
	}
	raw := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil }
	checkDefinitionPanic(t, codes.NilHandler, func() { gosdk.Wrap[any, any](nil) })
	checkDefinitionPanic(t, codes.NilFilter, func() { gosdk.Wrap(h, gosdk.WithFilters(nil)) })
	checkDefinitionPanic(t, codes.NilHandler, func() { gosdk.WrapRaw(nil) })
	checkDefinitionPanic(t, codes.NilFilter, func() { gosdk.WrapRaw(raw, gosdk.WithFilters(nil)) })
}

// TestWrapAllocs pins that Wrap and WrapRaw add no allocation to a
// successful call.
func TestWrapAllocs(t *testing.T) {
	ctx := context.Background()
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "ok"}}
	ok := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}
	out := &textOut{Text: "ok"}

	typed := func(context.Context, *mcp.CallToolRequest, order) (*mcp.CallToolResult, *textOut, error) {
		return ok, out, nil
	}
	wrapped := gosdk.Wrap(typed)
	in := order{ID: "o1", Count: 1}
	bare := testing.AllocsPerRun(1000, func() { _, _, _ = typed(ctx, req, in) })
	got := testing.AllocsPerRun(1000, func() {
		if res, o, err := wrapped(ctx, req, in); res != ok || o != out || err != nil {
			t.Fatalf("got %v, %v, %v", res, o, err)
		}
	})
	if got != bare {
		t.Errorf("Wrap: %v allocations, %v without", got, bare)
	}

	raw := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return ok, nil }
	wrappedRaw := gosdk.WrapRaw(raw)
	bare = testing.AllocsPerRun(1000, func() { _, _ = raw(ctx, req) })
	got = testing.AllocsPerRun(1000, func() {
		if res, err := wrappedRaw(ctx, req); res != ok || err != nil {
			t.Fatalf("got %v, %v", res, err)
		}
	})
	if got != bare {
		t.Errorf("WrapRaw: %v allocations, %v without", got, bare)
	}
}
