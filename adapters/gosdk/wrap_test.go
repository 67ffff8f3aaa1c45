package gosdk_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

// defaultLog captures slog.Default for the rest of the test, as JSON.
func defaultLog(t *testing.T) *adaptertest.Log {
	t.Helper()
	var log adaptertest.Log
	old := slog.Default()
	slog.SetDefault(log.Logger())
	t.Cleanup(func() { slog.SetDefault(old) })
	return &log
}

// TestWrapWithoutInstall checks Wrap and WrapRaw on a server where mcperr
// is not installed: the contract cannot be met there (the SDK's own
// refusals and output failures reach only the middleware of Install), so
// the wrapped handler gives none of it: the client receives exactly what
// the bare SDK sends, a panic goes on as it came, and the first call, a
// success as well as a failure, writes one ERROR record saying so.
func TestWrapWithoutInstall(t *testing.T) {
	ctx := context.Background()
	secret := errors.New("password=" + adaptertest.Canary)
	typed := func(_ context.Context, _ *mcp.CallToolRequest, in map[string]any) (*mcp.CallToolResult, any, error) {
		if in["fail"] == true {
			return nil, nil, secret
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
	}
	raw := func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if strings.Contains(string(req.Params.Arguments), "fail") {
			return nil, secret
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	}
	server := func(wrap bool) *mcp.Server {
		s := mcp.NewServer(&mcp.Implementation{Name: "wrap", Version: "1.0.0"}, nil)
		if wrap {
			mcp.AddTool(s, &mcp.Tool{Name: "typed"}, gosdk.Wrap(typed))
			s.AddTool(&mcp.Tool{Name: "raw", InputSchema: adaptertest.EmptySchema}, gosdk.WrapRaw(raw))
		} else {
			mcp.AddTool(s, &mcp.Tool{Name: "typed"}, typed)
			s.AddTool(&mcp.Tool{Name: "raw", InputSchema: adaptertest.EmptySchema}, raw)
		}
		return s
	}
	log := defaultLog(t)
	wrapped, bare := connect(t, server(true), ""), connect(t, server(false), "")
	for i, c := range []adaptertest.Case{
		{Tool: "typed"}, {Tool: "typed", Args: map[string]any{"fail": true}},
		{Tool: "raw", Args: map[string]any{"fail": true}}, {Tool: "raw"}, {Tool: "typed", Args: map[string]any{"fail": true}},
	} {
		got, _ := call(ctx, wrapped, c)
		want, _ := call(ctx, bare, c)
		if string(got.Raw) != string(want.Raw) || fmt.Sprint(got.ProtocolErr) != fmt.Sprint(want.ProtocolErr) {
			t.Errorf("%s %v: got %s, %v; want what the bare SDK sends: %s, %v", c.Tool, c.Args, got.Raw, got.ProtocolErr, want.Raw, want.ProtocolErr)
		}
		recs := log.Records(t)
		wantRecs := 0
		if i == 0 || i == 2 { // the first call of each wrapped handler
			wantRecs = 1
		}
		if len(recs) != wantRecs {
			t.Fatalf("call %d: records %v, want %d", i, recs, wantRecs)
		}
		for _, rec := range recs {
			if rec["level"] != "ERROR" || !strings.Contains(rec["msg"].(string), "without mcperr installed") ||
				!strings.Contains(rec["fix"].(string), "gosdk.Install") {
				t.Errorf("record %v does not say that mcperr is not installed and what to do", rec)
			}
		}
	}

	// A panic goes on as it came, as on a bare server, where it ends the
	// process: the handler is called directly here.
	h := gosdk.Wrap(func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
		panic(secret)
	})
	defer func() {
		if v := recover(); v != secret {
			t.Errorf("the wrapped handler panicked with %v, want the handler's own value", v)
		}
	}()
	_, _, _ = h(ctx, &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "crash"}}, nil)
	t.Error("the wrapped handler returned; want its panic")
}

// TestOneConfiguration is a server set up the way users combine entry
// points: one pipeline with a JSON logger, redaction, a global filter, an
// observer that reports server errors as an error tracker would, another
// that records every failure, and the message-only renderer, given once to
// Install, and tools added through every entry point. Each tool's failure
// uses that configuration: one redacted record, the global filter and each
// observer called once, with the client's ref and request id, the message
// alone in the content.
func TestOneConfiguration(t *testing.T) {
	ctx := context.Background()
	var log adaptertest.Log
	var reports, filtered []string
	reporter := func(_ context.Context, f filter.Failure) {
		if f.Envelope.Category == codes.Server && f.Err != nil {
			reports = append(reports, f.Envelope.Ref)
		}
	}
	global := filter.Catch(func(_ context.Context, c filter.Call, _ error) (*filter.Response, error) {
		filtered = append(filtered, c.Tool)
		return nil, nil
	})
	var observed []filter.Failure
	observer := func(_ context.Context, f filter.Failure) { observed = append(observed, f) }
	p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithRedaction(true), filter.WithObserver(reporter),
		filter.WithFilters(global), filter.WithObserver(observer), filter.WithRenderer(adaptertest.MessageOnly))
	must(t, err)
	s := mcp.NewServer(&mcp.Implementation{Name: "combined", Version: "1.0.0"}, nil)
	must(t, gosdk.Install(s, p))

	secret := "user ann@example.com: password=" + adaptertest.Canary
	fail := func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
		return nil, nil, errors.New(secret)
	}
	failRaw := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New(secret)
	}
	mcp.AddTool(s, &mcp.Tool{Name: "plain"}, fail)
	mcp.AddTool(s, &mcp.Tool{Name: "wrapped"}, gosdk.Wrap(fail))
	s.AddTool(&mcp.Tool{Name: "wrapped_raw", InputSchema: adaptertest.EmptySchema}, gosdk.WrapRaw(failRaw))
	must(t, gosdk.AddTool(s, &mcp.Tool{Name: "added"}, fail))
	must(t, gosdk.AddRawTool(s, &mcp.Tool{Name: "added_raw", InputSchema: adaptertest.EmptySchema}, failRaw))

	cs := connect(t, s, "")
	for _, tool := range []string{"plain", "wrapped", "wrapped_raw", "added", "added_raw"} {
		reports, filtered, observed = nil, nil, nil
		r, _ := call(ctx, cs, adaptertest.Case{Tool: tool})
		env := r.Envelope()
		if env != nil && (len(r.Texts) != 1 || r.Texts[0] != env["message"]) {
			t.Errorf("%s: texts %q, want the message alone, as a message-only renderer renders it", tool, r.Texts)
		}
		recs := log.Records(t)
		if env == nil || env["code"] != string(codes.InternalError) {
			t.Errorf("%s: %s, want a masked INTERNAL_ERROR with its envelope", tool, r.Raw)
			continue
		}
		if len(recs) != 1 || recs[0]["ref"] != env["ref"] {
			t.Errorf("%s: records %v, want one with the client's ref %v", tool, recs, env["ref"])
			continue
		}
		if rec := fmt.Sprint(recs[0]); strings.Contains(rec, adaptertest.Canary) || strings.Contains(rec, "ann@example.com") {
			t.Errorf("%s: the record is not redacted: %s", tool, rec)
		}
		if fmt.Sprint(reports) != fmt.Sprint([]any{env["ref"]}) {
			t.Errorf("%s: the reporting observer reported %v, want once with %v", tool, reports, env["ref"])
		}
		if len(filtered) != 1 {
			t.Errorf("%s: the global filter ran %d times, want once", tool, len(filtered))
		}
		if len(observed) != 1 || observed[0].Envelope.Ref != env["ref"] || observed[0].Call.RequestID != env["requestId"] ||
			observed[0].Call.RequestID != recs[0]["request_id"] || observed[0].Call.Tool != tool ||
			strings.Contains(observed[0].ErrorText, adaptertest.Canary) || strings.Contains(observed[0].ErrorText, "ann@example.com") {
			t.Errorf("%s: observer told %+v, want once, with the client's ref and request id, redacted", tool, observed)
		}
	}
}

// TestWrapTwice checks that a handler wrapped twice maps and logs an error
// once, with the tool's filters, declared by name.
func TestWrapTwice(t *testing.T) {
	var log adaptertest.Log
	inner := filter.Catch(func(context.Context, filter.Call, *domain.NotFound) (*filter.Response, error) {
		return &filter.Response{Code: codes.NotFound, Message: "inner"}, nil
	})
	p, err := filter.New(filter.WithLogger(log.Logger()), filter.ForTool("twice", filter.WithFilters(inner)))
	must(t, err)
	h := gosdk.Wrap(func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
		return nil, nil, domain.NewNotFound("Order", "o1")
	})
	s := mcp.NewServer(&mcp.Implementation{Name: "twice", Version: "1.0.0"}, nil)
	must(t, gosdk.Install(s, p))
	mcp.AddTool(s, &mcp.Tool{Name: "twice"}, gosdk.Wrap(h))
	r, _ := call(context.Background(), connect(t, s, ""), adaptertest.Case{Tool: "twice"})
	if len(r.Texts) != 2 || r.Texts[0] != "inner" {
		t.Errorf("texts %q, want the tool's filter's answer", r.Texts)
	}
	if recs := log.Records(t); len(recs) != 1 {
		t.Errorf("%d log records, want 1", len(recs))
	}
}

// TestWrapNil checks that a nil handler is refused at start-up.
func TestWrapNil(t *testing.T) {
	checkDefinitionPanic(t, codes.NilValue, func() { gosdk.Wrap[any, any](nil) })
	checkDefinitionPanic(t, codes.NilValue, func() { gosdk.WrapRaw(nil) })
}

// TestWrapAllocs pins what Wrap and WrapRaw add to a successful call
// where mcperr is not installed: nothing, the handler runs as it is. (Under
// the middleware, TestWrapAllocsServed pins them.)
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
	_, _, _ = wrapped(ctx, req, in) // the one record of a server without mcperr
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
	_, _ = wrappedRaw(ctx, req)
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
