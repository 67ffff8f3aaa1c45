package gosdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

// order is the input of a typed tool whose schema the SDK infers.
type order struct {
	ID    string `json:"id"`
	Count int    `json:"count"`
	Note  string `json:"note,omitempty"`
}

// TestMiddlewareInferredSchema checks arguments refused against a schema the
// SDK inferred from a Go type, including an integer field given a fraction,
// which only the SDK's own schema knows about.
func TestMiddlewareInferredSchema(t *testing.T) {
	ctx := context.Background()
	for _, proto := range protocols {
		t.Run(proto.name, func(t *testing.T) {
			var log adaptertest.Log
			s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1.0.0"}, nil)
			must(t, gosdk.Install(s, newPipeline(t, &log)))
			ran := 0
			mcp.AddTool(s, &mcp.Tool{Name: "ship"}, func(context.Context, *mcp.CallToolRequest, order) (*mcp.CallToolResult, any, error) {
				ran++
				return nil, nil, nil
			})
			cs := connect(t, s, proto.version)
			tests := []struct {
				args map[string]any
				text string
			}{
				{map[string]any{"count": 1}, "Validation failed for id: is required"},
				{map[string]any{}, "Validation failed: count: is required; id: is required"},
				{map[string]any{"id": "o1", "count": adaptertest.Canary}, "Validation failed for count: must be integer, not string"},
				{map[string]any{"id": "o1", "count": 1.5}, "Validation failed for count: must be integer, not number"},
				{map[string]any{"id": "o1", "count": 1, "token": adaptertest.Canary}, "Validation failed for token: is not a known property; remove it"},
			}
			for _, tt := range tests {
				r, _ := call(ctx, cs, adaptertest.Case{Tool: "ship", Args: tt.args})
				if r.ProtocolErr != nil {
					t.Fatalf("%v: %v", tt.args, r.ProtocolErr)
				}
				if !r.IsError || len(r.Texts) != 2 || r.Texts[0] != tt.text {
					t.Errorf("%v: got isError %v, texts %q; want %q", tt.args, r.IsError, r.Texts, tt.text)
				}
				if env := r.Envelope(); env == nil || env["code"] != string(codes.ValidationError) {
					t.Errorf("%v: envelope %v, want code %s", tt.args, env, codes.ValidationError)
				}
				public := strings.Join(r.Texts, " ") + rawJSON(r.Envelope()["details"])
				if strings.Contains(public, "1.5") || strings.Contains(string(r.Raw), adaptertest.Canary) {
					t.Errorf("%v: the offending value reached the client: %s", tt.args, r.Raw)
				}
				if recs := log.Records(t); len(recs) != 1 || recs[0]["level"] != "INFO" {
					t.Errorf("%v: log records %v, want one below error level", tt.args, recs)
				}
			}
			if ran != 0 {
				t.Errorf("the handler ran %d times for bad arguments", ran)
			}
		})
	}
}

// TestMiddlewarePagedToolList checks that the middleware finds the input
// schema of a tool listed on a later page.
func TestMiddlewarePagedToolList(t *testing.T) {
	var log adaptertest.Log
	s := mcp.NewServer(&mcp.Implementation{Name: "paged", Version: "1.0.0"}, &mcp.ServerOptions{PageSize: 2})
	must(t, gosdk.Install(s, newPipeline(t, &log)))
	for i := range 7 {
		mcp.AddTool(s, &mcp.Tool{Name: fmt.Sprintf("tool%d", i)}, func(context.Context, *mcp.CallToolRequest, order) (*mcp.CallToolResult, any, error) {
			return nil, nil, errors.New("unreachable")
		})
	}
	cs := connect(t, s, "")
	r, _ := call(context.Background(), cs, adaptertest.Case{Tool: "tool6", Args: map[string]any{"id": "o1"}})
	if len(r.Texts) == 0 || r.Texts[0] != "Validation failed for count: is required" {
		t.Errorf("got %s, want a validation error for count", r.Raw)
	}
}

// TestMiddlewareHandlerErrorFittingArguments checks that a handler error on
// arguments that fit the schema is the handler's error, not a validation
// error, even when the server also has tools with other schemas.
func TestMiddlewareHandlerErrorFittingArguments(t *testing.T) {
	var log adaptertest.Log
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1.0.0"}, nil)
	must(t, gosdk.Install(s, newPipeline(t, &log)))
	mcp.AddTool(s, &mcp.Tool{Name: "ship"}, func(context.Context, *mcp.CallToolRequest, order) (*mcp.CallToolResult, any, error) {
		return nil, nil, domain.NewNotFound("Order", "o1")
	})
	cs := connect(t, s, "")
	r, _ := call(context.Background(), cs, adaptertest.Case{Tool: "ship", Args: map[string]any{"id": "o1", "count": 2}})
	if env := r.Envelope(); env == nil || env["code"] != string(codes.NotFound) {
		t.Errorf("got %s, want NOT_FOUND", r.Raw)
	}
}

// TestFilterOrder checks the one order of filters: the tool's own, given
// where it was added, then the pipeline's global ones, for every entry point
// that takes per-tool filters; a tool added with the SDK alone gets the
// global ones only.
func TestFilterOrder(t *testing.T) {
	var trail []string
	mark := func(name string) filter.Filter {
		return filter.Catch(func(context.Context, filter.Call, error) (*filter.Response, error) {
			trail = append(trail, name)
			return nil, nil
		})
	}
	var log adaptertest.Log
	p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithFilters(mark("global")),
		filter.ForTool("wrapped", filter.WithFilters(mark("wrapped"))), filter.ForTool("wrapped_raw", filter.WithFilters(mark("wrapped raw"))),
		filter.ForTool("both", filter.WithFilters(mark("by name"))))
	must(t, err)
	s := mcp.NewServer(&mcp.Implementation{Name: "f", Version: "1.0.0"}, nil)
	must(t, gosdk.Install(s, p))
	fail := func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
		return nil, nil, errors.New("boom")
	}
	failRaw := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("boom")
	}
	must(t, gosdk.AddTool(s, &mcp.Tool{Name: "added"}, fail, filter.WithFilters(mark("added 1"), mark("added 2"))))
	must(t, gosdk.AddRawTool(s, &mcp.Tool{Name: "raw", InputSchema: adaptertest.EmptySchema}, failRaw, filter.WithFilters(mark("raw"))))
	mcp.AddTool(s, &mcp.Tool{Name: "wrapped"}, gosdk.Wrap(fail))
	s.AddTool(&mcp.Tool{Name: "wrapped_raw", InputSchema: adaptertest.EmptySchema}, gosdk.WrapRaw(failRaw))
	must(t, gosdk.AddTool(s, &mcp.Tool{Name: "both"}, fail, filter.WithFilters(mark("added"))))
	mcp.AddTool(s, &mcp.Tool{Name: "plain"}, fail)
	cs := connect(t, s, "")
	for _, tc := range []struct{ tool, want string }{
		{"added", "[added 1 added 2 global]"},
		{"raw", "[raw global]"},
		{"wrapped", "[wrapped global]"},
		{"wrapped_raw", "[wrapped raw global]"},
		{"both", "[by name added global]"},
		{"plain", "[global]"},
	} {
		trail = nil
		r, _ := call(context.Background(), cs, adaptertest.Case{Tool: tc.tool})
		if fmt.Sprint(trail) != tc.want {
			t.Errorf("%s: filters ran %v, want %s", tc.tool, trail, tc.want)
		}
		if recs := log.Records(t); len(recs) != 1 || !r.IsError {
			t.Errorf("%s: %d records, isError %v; want one record and an error result", tc.tool, len(recs), r.IsError)
		}
	}
}

// TestMiddlewareNilResult checks that a raw handler returning neither a
// result nor an error does not bring the server down on any protocol.
func TestMiddlewareNilResult(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto.name, func(t *testing.T) {
			var log adaptertest.Log
			s := mcp.NewServer(&mcp.Implementation{Name: "nil", Version: "1.0.0"}, nil)
			must(t, gosdk.Install(s, newPipeline(t, &log)))
			s.AddTool(&mcp.Tool{Name: "nothing", InputSchema: adaptertest.EmptySchema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return nil, nil
			})
			cs := connect(t, s, proto.version)
			for range 2 {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "nothing"})
				if err != nil || res.IsError || len(res.Content) != 0 {
					t.Fatalf("got %v, %v; want an empty successful result", res, err)
				}
			}
		})
	}
}

// TestMiddlewareClientCancels checks a call the client gives up on: the
// client sees its own context error, and the server logs the cancelled
// handler once.
func TestMiddlewareClientCancels(t *testing.T) {
	log := newSignalLog()
	p, err := filter.New(filter.WithLogger(log.Logger()))
	must(t, err)
	s := mcp.NewServer(&mcp.Implementation{Name: "slow", Version: "1.0.0"}, nil)
	must(t, gosdk.Install(s, p))
	started := make(chan struct{})
	mcp.AddTool(s, &mcp.Tool{Name: "slow"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, any, error) {
		close(started)
		<-ctx.Done()
		return nil, nil, ctx.Err()
	})
	cs := connect(t, s, "")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("client got %v, want context.Canceled", err)
	}
	log.wait(t) // the server learns of the cancellation after the client
	recs := log.Records(t)
	if len(recs) != 1 || recs[0]["code"] != string(codes.Cancelled) || recs[0]["level"] == "ERROR" {
		t.Errorf("log records %v, want one CANCELLED record below error level", recs)
	}
}

// TestMiddlewareOtherMethods checks that methods other than tools/call,
// resources/read, prompts/get and completion/complete, their results and
// their errors, pass through as the SDK sends them.
func TestMiddlewareOtherMethods(t *testing.T) {
	ctx := context.Background()
	newPromptServer := func(p *filter.Pipeline) *mcp.Server {
		s := mcp.NewServer(&mcp.Implementation{Name: "p", Version: "1.0.0"}, nil)
		if p != nil {
			must(t, gosdk.Install(s, p))
		}
		s.AddPrompt(&mcp.Prompt{Name: "broken"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return nil, errors.New("prompt failed")
		})
		mcp.AddTool(s, &mcp.Tool{Name: "t"}, func(context.Context, *mcp.CallToolRequest, order) (*mcp.CallToolResult, any, error) {
			return nil, nil, nil
		})
		return s
	}
	var log adaptertest.Log
	bareCS := connect(t, newPromptServer(nil), "")
	cs := connect(t, newPromptServer(newPipeline(t, &log)), "")

	wantList, err := bareCS.ListTools(ctx, nil)
	must(t, err)
	gotList, err := cs.ListTools(ctx, nil)
	must(t, err)
	if a, b := rawJSON(gotList), rawJSON(wantList); a != b {
		t.Errorf("tools/list with mcperr:\n%s\nwithout:\n%s", a, b)
	}
	wantPrompts, err := bareCS.ListPrompts(ctx, nil)
	must(t, err)
	gotPrompts, err := cs.ListPrompts(ctx, nil)
	must(t, err)
	if a, b := rawJSON(gotPrompts), rawJSON(wantPrompts); a != b {
		t.Errorf("prompts/list with mcperr:\n%s\nwithout:\n%s", a, b)
	}
	if recs := log.Records(t); len(recs) != 0 {
		t.Errorf("other methods were logged: %v", recs)
	}
	// prompts/get is no longer one of them: its failure is masked, as
	// TestRPCTable checks in full.
	if _, gotErr := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "broken"}); gotErr == nil || strings.Contains(gotErr.Error(), "prompt failed") {
		t.Errorf("prompts/get error with mcperr %v, want it masked", gotErr)
	}
}

// TestNilFilter checks that a nil filter is refused at start-up by every
// entry point that takes per-tool filters, and by the pipeline for global
// ones.
func TestNilFilter(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "f", Version: "1.0.0"}, nil)
	must(t, gosdk.Install(s, defaults()))
	noop := func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
		return nil, nil, nil
	}
	_, globalErr := filter.New(filter.WithFilters(nil))
	for name, err := range map[string]error{
		"filter.WithFilters": globalErr,
		"AddTool":            gosdk.AddTool(s, &mcp.Tool{Name: "a"}, noop, filter.WithFilters(filter.Catch[error](nil))),
		"AddRawTool":         gosdk.AddRawTool(s, &mcp.Tool{Name: "b", InputSchema: adaptertest.EmptySchema}, rawOK, filter.WithFilters(nil)),
	} {
		if mistakeOf(err) != codes.NilValue {
			t.Errorf("%s: %v, want %s", name, err, codes.NilValue)
		}
	}
	// A nil option, and a filter Is could not build, named where they were made.
	if err := gosdk.AddTool(s, &mcp.Tool{Name: "c"}, noop, nil); mistakeOf(err) != codes.NilValue || !strings.Contains(err.Error(), "option 0 given to gosdk.AddTool is nil") {
		t.Errorf("AddTool with a nil option: %v", err)
	}
	if err := gosdk.AddTool(s, &mcp.Tool{Name: "d"}, noop, filter.WithFilters(filter.Is(nil, filter.Response{Message: "x"}))); !strings.Contains(fmt.Sprint(err), "filter.Is needs the sentinel") {
		t.Errorf("AddTool with a misdefined filter.Is: %v", err)
	}
	checkDefinitionPanic(t, codes.NilValue, func() { gosdk.Wrap[any, any](nil) })
	checkDefinitionPanic(t, codes.NilValue, func() { gosdk.WrapRaw(nil) })
}

// checkDefinitionPanic checks that fn panics with a *codes.DefinitionError
// of mistake want.
func checkDefinitionPanic(t *testing.T, want codes.Mistake, fn func()) {
	t.Helper()
	defer func() {
		t.Helper()
		v := recover()
		err, _ := v.(error)
		if mistakeOf(err) != want {
			t.Errorf("panicked with %v, want a *codes.DefinitionError of %s", v, want)
		}
	}()
	fn()
}

// TestMiddlewareKeepsError checks that middleware installed outside mcperr
// still finds the handler's own error in the result, with errors.Is.
func TestMiddlewareKeepsError(t *testing.T) {
	errDown := errors.New("database down")
	var log adaptertest.Log
	var seen []bool
	s := mcp.NewServer(&mcp.Implementation{Name: "outer", Version: "1.0.0"}, nil)
	must(t, gosdk.Install(s, newPipeline(t, &log)))
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if r, ok := res.(*mcp.CallToolResult); ok && method == "tools/call" {
				seen = append(seen, errors.Is(r.GetError(), errDown))
			}
			return res, err
		}
	})
	fail := func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
		return nil, nil, fmt.Errorf("load: %w", errDown)
	}
	mcp.AddTool(s, &mcp.Tool{Name: "bare"}, fail)
	mcp.AddTool(s, &mcp.Tool{Name: "wrapped"}, gosdk.Wrap(fail))
	cs := connect(t, s, "")
	for _, tool := range []string{"bare", "wrapped"} {
		call(context.Background(), cs, adaptertest.Case{Tool: tool})
	}
	if fmt.Sprint(seen) != "[true true]" {
		t.Errorf("outer middleware found the handler's error: %v, want [true true]", seen)
	}
}

// TestNoRequestTheClientDidNotSend checks that a failing call sends no
// request of mcperr's own through the middleware installed inside it, on a
// server of many tools, and that its cost does not grow with them.
func TestNoRequestTheClientDidNotSend(t *testing.T) {
	var log adaptertest.Log
	s := mcp.NewServer(&mcp.Implementation{Name: "many", Version: "1.0.0"}, nil)
	var methods []string
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			methods = append(methods, method)
			return next(ctx, method, req)
		}
	})
	must(t, gosdk.Install(s, newPipeline(t, &log))) // outside the counting middleware
	for i := range 200 {
		mcp.AddTool(s, &mcp.Tool{Name: fmt.Sprintf("tool%d", i)}, func(context.Context, *mcp.CallToolRequest, order) (*mcp.CallToolResult, any, error) {
			return nil, nil, errors.New("failed")
		})
	}
	cs := connect(t, s, "")
	methods = nil
	for range 3 {
		call(context.Background(), cs, adaptertest.Case{Tool: "tool7", Args: map[string]any{"id": "o1", "count": 1}})
		call(context.Background(), cs, adaptertest.Case{Tool: "tool7", Args: map[string]any{"id": "o1"}})
	}
	if fmt.Sprint(methods) != fmt.Sprint(slices.Repeat([]string{"tools/call"}, 6)) {
		t.Errorf("the inner middleware saw %v, want only the client's six calls", methods)
	}
	recs := log.Records(t)
	// The first says that the counting middleware runs inside mcperr's.
	if len(recs) != 7 || recs[0]["msg"] != "mcperr: misplaced middleware" || recs[2]["code"] != string(codes.ValidationError) || recs[1]["code"] != string(codes.InternalError) {
		t.Errorf("records %v, want the misplaced middleware, then internal errors and validation errors", recs)
	}
}

// TestUnlistedTool checks a tool added with the SDK alone, called by a
// client that never listed the tools: mcperr asks the server's own
// tools/list handler for its schema once the call fails, and answers
// VALIDATION_ERROR as for a listed tool, with nothing of the value.
func TestUnlistedTool(t *testing.T) {
	var log adaptertest.Log
	// One tool a page: the tool is found on a later page.
	s := mcp.NewServer(&mcp.Implementation{Name: "unlisted", Version: "1.0.0"}, &mcp.ServerOptions{PageSize: 1})
	must(t, gosdk.Install(s, newPipeline(t, &log)))
	mcp.AddTool(s, &mcp.Tool{Name: "ship"}, func(context.Context, *mcp.CallToolRequest, order) (*mcp.CallToolResult, any, error) {
		return nil, nil, nil
	})
	s.AddTool(&mcp.Tool{Name: "zz_raw", InputSchema: json.RawMessage(`{"type":"object","properties":{"count":{"type":"integer"}}}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("decode count: " + adaptertest.Canary)
		})
	must(t, gosdk.AddTool(s, &mcp.Tool{Name: "ship_added"}, func(context.Context, *mcp.CallToolRequest, order) (*mcp.CallToolResult, any, error) {
		return nil, nil, nil
	}))
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	must(t, err)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, ct, nil)
	must(t, err)
	defer func() { cs.Close(); ss.Wait() }()

	bad := map[string]any{"id": "o1", "count": adaptertest.Canary}
	r, _ := call(ctx, cs, adaptertest.Case{Tool: "ship", Args: bad})
	if env := r.Envelope(); env == nil || env["code"] != string(codes.ValidationError) || strings.Contains(string(r.Raw), adaptertest.Canary) {
		t.Errorf("unlisted tool: %s, want VALIDATION_ERROR without the value", r.Raw)
	}
	r, _ = call(ctx, cs, adaptertest.Case{Tool: "zz_raw", Args: bad})
	if env := r.Envelope(); env == nil || env["code"] != string(codes.ValidationError) || strings.Contains(string(r.Raw), adaptertest.Canary) {
		t.Errorf("unlisted raw tool on the last page: %s, want VALIDATION_ERROR without the value", r.Raw)
	}
	r, _ = call(ctx, cs, adaptertest.Case{Tool: "ship_added", Args: bad})
	if env := r.Envelope(); env == nil || env["code"] != string(codes.ValidationError) {
		t.Errorf("a tool added with AddTool: %s, want VALIDATION_ERROR without listing", r.Raw)
	}
}

// TestServerListAskedOnceATool checks that the failure path asks the
// server's own tools/list handler for a tool's schema at most once a tool
// for the life of the server, however many of its calls fail, even when
// the answer teaches nothing (here the server's tools/list fails, as one
// that needs a credential the call lacks would): five failing calls of
// each of two tools no client listed ask once a tool.
func TestServerListAskedOnceATool(t *testing.T) {
	var log adaptertest.Log
	s := mcp.NewServer(&mcp.Implementation{Name: "asked", Version: "1.0.0"}, nil)
	var asked atomic.Int64
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler { // inside mcperr's
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				asked.Add(1)
				return nil, errors.New("tools/list needs a credential")
			}
			return next(ctx, method, req)
		}
	})
	must(t, gosdk.Install(s, newPipeline(t, &log)))
	mcp.AddTool(s, &mcp.Tool{Name: "ship"}, func(context.Context, *mcp.CallToolRequest, order) (*mcp.CallToolResult, any, error) {
		return nil, nil, errors.New("db down")
	})
	s.AddTool(&mcp.Tool{Name: "raw", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("db down")
		})
	ctx, cs := context.Background(), connectUnlisted(t, s)
	for _, tc := range []struct {
		tool string
		want int64
	}{{"ship", 1}, {"raw", 1}} {
		tool, want := tc.tool, tc.want
		before := asked.Load()
		for range 5 {
			r, _ := call(ctx, cs, adaptertest.Case{Tool: tool, Args: map[string]any{"id": "o1", "count": 1}})
			if env := r.Envelope(); env == nil || env["code"] != string(codes.InternalError) {
				t.Fatalf("%s: %s, want the masked failure", tool, r.Raw)
			}
		}
		if n := asked.Load() - before; n != want {
			t.Errorf("%s: the server's tools/list was asked %d times in 5 failing calls, want %d", tool, n, want)
		}
	}
}

// TestOneInterceptionPoint checks where a failure is handled: a wrapped
// handler's error, on a server with Install, is logged by the middleware,
// which called the pipeline once the handler had returned; neither the
// handler nor its wrapper is on the stack when the record is written.
func TestOneInterceptionPoint(t *testing.T) {
	var stacks adaptertest.StackLog
	p, err := filter.New(filter.WithLogger(slog.New(&stacks)))
	must(t, err)
	s := mcp.NewServer(&mcp.Implementation{Name: "one", Version: "1.0.0"}, nil)
	must(t, gosdk.Install(s, p))
	mcp.AddTool(s, &mcp.Tool{Name: "ship"}, gosdk.Wrap(failingShip))
	r, _ := call(context.Background(), connect(t, s, ""), adaptertest.Case{Tool: "ship", Args: map[string]any{"id": "o1", "count": 1}})
	if env := r.Envelope(); env == nil || env["code"] != string(codes.InternalError) {
		t.Fatalf("%s, want the masked failure", r.Raw)
	}
	adaptertest.CheckOneInterceptionPoint(t, &stacks, "adapters/gosdk", "failingShip")
}

// failingShip is a typed handler that fails with an internal error.
func failingShip(context.Context, *mcp.CallToolRequest, order) (*mcp.CallToolResult, any, error) {
	return nil, nil, errors.New("dial db: connection refused")
}
