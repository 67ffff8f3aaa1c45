package gosdk_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/gosdkcompat"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
	"github.com/mcperr/mcperr/toolerr"
)

// BenchmarkErrorCall measures a failing call of a typed tool through a real
// client and server over in-memory transports, side by side: the SDK alone
// answering with its own error result (SetError), and mcperr answering a
// ToolError, on a server of 3 tools and of 200; and a result the handler
// built itself, which mcperr passes through, with and without mcperr.
//
//	go test -run='^$' -bench=ErrorCall -benchmem ./adapters/gosdk
func BenchmarkErrorCall(b *testing.B) {
	sdkError := func(context.Context, *mcp.CallToolRequest, order) (*mcp.CallToolResult, textOut, error) {
		var res mcp.CallToolResult
		res.SetError(fmt.Errorf("Not enough stock for order %s.", "ord_1"))
		return &res, textOut{}, nil
	}
	toolError := func(context.Context, *mcp.CallToolRequest, order) (*mcp.CallToolResult, textOut, error) {
		return nil, textOut{}, toolerr.New("Not enough stock for order ord_1.")
	}
	handBuilt := func(context.Context, *mcp.CallToolRequest, order) (*mcp.CallToolResult, textOut, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "Not enough stock for order ord_1."}}}, textOut{}, nil
	}
	p, err := filter.New(filter.WithLogger(slog.New(slog.NewJSONHandler(io.Discard, nil))))
	if err != nil {
		b.Fatal(err)
	}
	messageOnly, err := filter.New(filter.WithLogger(slog.New(slog.NewJSONHandler(io.Discard, nil))), filter.WithRenderer(adaptertest.MessageOnly))
	if err != nil {
		b.Fatal(err)
	}
	for _, tools := range []int{3, 200} {
		for _, bc := range []struct {
			name string
			add  func(s *mcp.Server, name string)
		}{
			{"bare SetError", func(s *mcp.Server, name string) { mcp.AddTool(s, &mcp.Tool{Name: name}, sdkError) }},
			{"Install ToolError", func(s *mcp.Server, name string) { mcp.AddTool(s, &mcp.Tool{Name: name}, toolError) }},
			{"Install ToolError message only", func(s *mcp.Server, name string) { mcp.AddTool(s, &mcp.Tool{Name: name}, toolError) }},
			{"AddTool ToolError", func(s *mcp.Server, name string) { orPanic(gosdk.AddTool(s, &mcp.Tool{Name: name}, toolError)) }},
			// A result the handler built itself, passed through (the default).
			{"bare hand-built", func(s *mcp.Server, name string) { mcp.AddTool(s, &mcp.Tool{Name: name}, handBuilt) }},
			{"Install hand-built", func(s *mcp.Server, name string) { mcp.AddTool(s, &mcp.Tool{Name: name}, handBuilt) }},
		} {
			b.Run(fmt.Sprintf("%s/%d tools", bc.name, tools), func(b *testing.B) {
				s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1.0.0"}, nil)
				switch bc.name {
				case "bare SetError", "bare hand-built":
				case "Install ToolError message only":
					orPanic(gosdk.Install(s, messageOnly))
				default:
					orPanic(gosdk.Install(s, p))
				}
				for i := range tools {
					bc.add(s, fmt.Sprintf("ship%d", i))
				}
				cs := connect(b, s, "")
				ctx := context.Background()
				params := &mcp.CallToolParams{Name: "ship1", Arguments: map[string]any{"id": "ord_1", "count": 2}}
				b.ReportAllocs()
				for b.Loop() {
					res, err := cs.CallTool(ctx, params)
					if err != nil || !res.IsError {
						b.Fatalf("call did not fail: %v %v", res, err)
					}
				}
			})
		}
	}
}

// TestErrorCallAllocs pins the cost of a failing call, on a server of 3
// tools and of 200 alike: a ToolError through mcperr costs at most 1.20
// times the allocations of the SDK's own error result when it sends the
// same one text block (a message-only renderer), and at most 1.25 times with the
// default rendering, whose second block, read by the model, the SDK must
// encode and the client decode (measured: 302 and 307 against the SDK's
// 266). A ToolError is never checked against the input schema: its words
// are the server's own; a successful call is never checked either (see
// TestSuccessfulCallAllocs).
func TestErrorCallAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("measures real calls")
	}
	if !gosdkcompat.CanChooseVersion() {
		t.Skip("the ratios are measured against the SDK's own error result of go-sdk v1.8.0; this build has an older go-sdk, whose error result costs far fewer allocations")
	}
	sdkError := func(context.Context, *mcp.CallToolRequest, order) (*mcp.CallToolResult, any, error) {
		var res mcp.CallToolResult
		res.SetError(fmt.Errorf("Not enough stock for order %s.", "ord_1"))
		return &res, nil, nil
	}
	toolError := func(context.Context, *mcp.CallToolRequest, order) (*mcp.CallToolResult, any, error) {
		return nil, nil, toolerr.New("Not enough stock for order ord_1.")
	}
	logger := filter.WithLogger(slog.New(slog.NewJSONHandler(io.Discard, nil)))
	model, err := filter.New(logger)
	must(t, err)
	messageOnly, err := filter.New(logger, filter.WithRenderer(adaptertest.MessageOnly))
	must(t, err)
	measure := func(tools int, p *filter.Pipeline) float64 {
		s := mcp.NewServer(&mcp.Implementation{Name: "pin", Version: "1.0.0"}, nil)
		if p != nil {
			must(t, gosdk.Install(s, p))
		}
		for i := range tools {
			name := fmt.Sprintf("ship%d", i)
			if p != nil {
				mcp.AddTool(s, &mcp.Tool{Name: name}, toolError)
			} else {
				mcp.AddTool(s, &mcp.Tool{Name: name}, sdkError)
			}
		}
		cs := connect(t, s, "")
		params := &mcp.CallToolParams{Name: "ship1", Arguments: map[string]any{"id": "ord_1", "count": 2}}
		return testing.AllocsPerRun(200, func() {
			if res, err := cs.CallTool(context.Background(), params); err != nil || !res.IsError {
				t.Fatalf("call did not fail: %v %v", res, err)
			}
		})
	}
	for _, tools := range []int{3, 200} {
		bare, plain, ours := measure(tools, nil), measure(tools, messageOnly), measure(tools, model)
		t.Logf("%d tools: SDK error result %.0f allocations, mcperr ToolError %.0f message only, %.0f rendered for the model", tools, bare, plain, ours)
		if plain > 1.20*bare {
			t.Errorf("%d tools: a ToolError sent as its message alone costs %.0f allocations, more than 1.20 × the SDK's %.0f", tools, plain, bare)
		}
		if ours > 1.25*bare {
			t.Errorf("%d tools: a ToolError rendered for the model costs %.0f allocations, more than 1.25 × the SDK's %.0f", tools, ours, bare)
		}
	}
}

// TestRefusalCostIndependentOfTools pins that an argument refusal costs
// what it costs whatever the number of tools the server has: the
// middleware never lists or compiles the other tools. It logs the ratio to
// the SDK's own refusal, and pins it (1.46 on go-sdk v1.8.0: the schema
// check that names the fields, the record and the larger answer).
func TestRefusalCostIndependentOfTools(t *testing.T) {
	if testing.Short() {
		t.Skip("measures real calls")
	}
	if raceEnabled {
		t.Skip("the race detector's own allocations vary from call to call")
	}
	h := func(context.Context, *mcp.CallToolRequest, order) (*mcp.CallToolResult, textOut, error) {
		return nil, textOut{Text: "ok"}, nil
	}
	logger := filter.WithLogger(slog.New(slog.NewJSONHandler(io.Discard, nil)))
	measure := func(tools int, installed bool) float64 {
		s := mcp.NewServer(&mcp.Implementation{Name: "pin", Version: "1.0.0"}, nil)
		if installed {
			p, err := filter.New(logger)
			must(t, err)
			must(t, gosdk.Install(s, p))
		}
		for i := range tools {
			mcp.AddTool(s, &mcp.Tool{Name: fmt.Sprintf("ship%d", i)}, h)
		}
		cs := connect(t, s, "")
		params := &mcp.CallToolParams{Name: "ship1", Arguments: map[string]any{"id": "ord_1", "count": "two"}}
		return testing.AllocsPerRun(100, func() {
			// go-sdk before v1.5.0 refuses with a protocol error of its own.
			if res, err := cs.CallTool(context.Background(), params); (installed || err == nil) && (err != nil || !res.IsError) {
				t.Fatalf("the call was not refused: %v %v", res, err)
			}
		})
	}
	bare, few, many := measure(3, false), measure(3, true), measure(2000, true)
	t.Logf("a refusal: the SDK alone %.0f allocations; mcperr %.0f on 3 tools, %.0f on 2000 (%.2fx)", bare, few, many, few/bare)
	if many > few+2 {
		t.Errorf("a refusal on a server of 2000 tools costs %.0f allocations, %.0f on 3 tools", many, few)
	}
	// Pinned beside the SDK's own refusal where it is go-sdk v1.8.0's: 1.46
	// measured. The server's share is about 56 allocations (the check that
	// names the fields, the record, the envelope); the rest is the larger
	// answer the client decodes (the violations, in the text the model
	// reads and in the envelope).
	if gosdkcompat.CanChooseVersion() && few > 1.49*bare {
		t.Errorf("a refusal costs %.0f allocations, more than 1.49 × the SDK's own %.0f", few, bare)
	}
}

// BenchmarkRetriedFailure measures ten successful calls and one whose
// first attempt fails transiently, side by side: the SDK alone, where the
// client calls again, and mcperr with retries, where the server does (the
// failure asks for a wait of 1 ns, so that the time is the calls'). The
// successes keep the server's retry budget full, as real traffic does.
//
//	go test -run='^$' -bench=RetriedFailure -benchmem ./adapters/gosdk
func BenchmarkRetriedFailure(b *testing.B) {
	errFlaky := errors.New("replica busy")
	var failNext atomic.Bool
	flaky := func(context.Context, *mcp.CallToolRequest, order) (*mcp.CallToolResult, textOut, error) {
		if failNext.Swap(false) {
			return nil, textOut{}, errFlaky
		}
		return nil, textOut{Text: "ok"}, nil
	}
	tool := &mcp.Tool{Name: "ship", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}
	params := &mcp.CallToolParams{Name: "ship", Arguments: map[string]any{"id": "ord_1", "count": 2}}
	run := func(b *testing.B, s *mcp.Server, clientRetries bool) {
		mcp.AddTool(s, tool, flaky)
		cs := connect(b, s, "")
		b.ReportAllocs()
		for b.Loop() {
			for range 10 {
				if res, err := cs.CallTool(context.Background(), params); err != nil || res.IsError {
					b.Fatalf("a call failed: %v %v", res, err)
				}
			}
			failNext.Store(true)
			res, err := cs.CallTool(context.Background(), params)
			if clientRetries {
				if err != nil || !res.IsError {
					b.Fatalf("the first attempt did not fail: %v %v", res, err)
				}
				res, err = cs.CallTool(context.Background(), params)
			}
			if err != nil || res.IsError {
				b.Fatalf("the call failed: %v %v", res, err)
			}
		}
	}
	b.Run("bare, the client calls again", func(b *testing.B) {
		run(b, mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1.0.0"}, nil), true)
	})
	b.Run("mcperr, the server retries", func(b *testing.B) {
		p, err := filter.New(filter.WithLogger(slog.New(slog.NewJSONHandler(io.Discard, nil))), filter.WithRetries(1),
			filter.WithFilters(filter.Is(errFlaky, filter.Response{Code: codes.Unavailable, Message: "Busy.", RetryAfter: time.Nanosecond})))
		if err != nil {
			b.Fatal(err)
		}
		s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1.0.0"}, nil)
		orPanic(gosdk.Install(s, p))
		run(b, s, false)
	})
}
