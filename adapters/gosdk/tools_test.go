package gosdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/adaptertest"
	"github.com/mcperr/mcperr/toolerr"
)

func typedOK(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
	return nil, nil, nil
}

func rawOK(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
}

// TestToolsDefinitionErrors checks that a bad definition is refused with the
// right definition error and registers nothing.
func TestToolsDefinitionErrors(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "defs", Version: "1.0.0"}, nil)
	tools, err := gosdk.NewTools(s)
	must(t, err)
	must(t, gosdk.AddTool(tools, &mcp.Tool{Name: "taken"}, typedOK))
	must(t, tools.AddRawTool(&mcp.Tool{Name: "raw_taken", InputSchema: adaptertest.EmptySchema}, rawOK))

	long := strings.Repeat("x", toolerr.MaxToolNameLen+1)
	tests := []struct {
		name string
		add  func() error
		want codes.Code
	}{
		{"typed: nil tool", func() error { return gosdk.AddTool(tools, nil, typedOK) }, codes.InvalidToolName},
		{"typed: empty name", func() error { return gosdk.AddTool(tools, &mcp.Tool{}, typedOK) }, codes.InvalidToolName},
		{"typed: space in name", func() error { return gosdk.AddTool(tools, &mcp.Tool{Name: "bad name"}, typedOK) }, codes.InvalidToolName},
		{"typed: name too long", func() error { return gosdk.AddTool(tools, &mcp.Tool{Name: long}, typedOK) }, codes.InvalidToolName},
		{"typed: duplicate", func() error { return gosdk.AddTool(tools, &mcp.Tool{Name: "taken"}, typedOK) }, codes.DuplicateTool},
		{"typed: duplicate of a raw tool", func() error { return gosdk.AddTool(tools, &mcp.Tool{Name: "raw_taken"}, typedOK) }, codes.DuplicateTool},
		{"typed: nil handler", func() error {
			return gosdk.AddTool[any, any](tools, &mcp.Tool{Name: "nil_handler"}, nil)
		}, codes.NilHandler},
		{"typed: nil filter", func() error {
			return gosdk.AddTool(tools, &mcp.Tool{Name: "nil_filter"}, typedOK, gosdk.WithFilters(nil))
		}, codes.NilFilter},
		{"typed: schema the SDK cannot use", func() error {
			return gosdk.AddTool(tools, &mcp.Tool{Name: "int_input"}, func(context.Context, *mcp.CallToolRequest, int) (*mcp.CallToolResult, any, error) {
				return nil, nil, nil
			})
		}, codes.InvalidSchema},
		{"raw: nil tool", func() error { return tools.AddRawTool(nil, rawOK) }, codes.InvalidToolName},
		{"raw: bad name", func() error {
			return tools.AddRawTool(&mcp.Tool{Name: "bad/name", InputSchema: adaptertest.EmptySchema}, rawOK)
		}, codes.InvalidToolName},
		{"raw: duplicate", func() error {
			return tools.AddRawTool(&mcp.Tool{Name: "taken", InputSchema: adaptertest.EmptySchema}, rawOK)
		}, codes.DuplicateTool},
		{"raw: nil handler", func() error {
			return tools.AddRawTool(&mcp.Tool{Name: "raw_nil", InputSchema: adaptertest.EmptySchema}, nil)
		}, codes.NilHandler},
		{"raw: nil filter", func() error {
			return tools.AddRawTool(&mcp.Tool{Name: "raw_nil_filter", InputSchema: adaptertest.EmptySchema}, rawOK, gosdk.WithFilters(nil))
		}, codes.NilFilter},
		{"raw: no schema", func() error { return tools.AddRawTool(&mcp.Tool{Name: "raw_no_schema"}, rawOK) }, codes.InvalidSchema},
		{"raw: schema not an object", func() error {
			return tools.AddRawTool(&mcp.Tool{Name: "raw_array", InputSchema: json.RawMessage(`{"type":"array"}`)}, rawOK)
		}, codes.InvalidSchema},
		{"raw: schema does not compile", func() error {
			return tools.AddRawTool(&mcp.Tool{Name: "raw_bad_pattern",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string","pattern":"("}}}`)}, rawOK)
		}, codes.InvalidSchema},
	}
	for _, tt := range tests {
		err := tt.add()
		var de *toolerr.DefinitionError
		if !errors.As(err, &de) || de.Code != tt.want {
			t.Errorf("%s: got %v, want a definition error with code %s", tt.name, err, tt.want)
		}
	}

	// The refused tools were not registered, and those refused for a nil
	// handler or filter or a bad schema can be added once fixed.
	list, err := connect(t, s, "").ListTools(context.Background(), nil)
	must(t, err)
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	if got := strings.Join(names, ","); got != "raw_taken,taken" {
		t.Errorf("registered tools %s, want raw_taken,taken", got)
	}
	must(t, gosdk.AddTool(tools, &mcp.Tool{Name: "nil_handler"}, typedOK))
	must(t, gosdk.AddTool(tools, &mcp.Tool{Name: "int_input"}, typedOK))
	must(t, tools.AddRawTool(&mcp.Tool{Name: "raw_no_schema", InputSchema: adaptertest.EmptySchema}, rawOK))
}

// TestNewToolsErrors checks that NewTools refuses a nil server or filter.
func TestNewToolsErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		s    *mcp.Server
		opts []gosdk.Option
		want codes.Code
	}{
		{"nil server", nil, nil, codes.InvalidOption},
		{"nil filter", mcp.NewServer(&mcp.Implementation{Name: "n", Version: "1"}, nil), []gosdk.Option{gosdk.WithFilters(nil)}, codes.NilFilter},
	} {
		_, err := gosdk.NewTools(tt.s, tt.opts...)
		var de *toolerr.DefinitionError
		if !errors.As(err, &de) || de.Code != tt.want {
			t.Errorf("%s: got %v, want a definition error with code %s", tt.name, err, tt.want)
		}
	}
}

// TestToolsFilterOrder checks that a tool's own filters run before those
// given to NewTools, that those given to NewTools run for tools added
// straight to the server as well, and that a tool may have its own pipeline.
func TestToolsFilterOrder(t *testing.T) {
	var log adaptertest.Log
	answer := func(msg string) filter.Filter {
		return filter.Catch(func(context.Context, filter.Call, *domain.NotFound) (*filter.Response, error) {
			return &filter.Response{Code: codes.NotFound, Message: msg}, nil
		})
	}
	notFound := func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
		return nil, nil, domain.NewNotFound("Order", "o1")
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "order", Version: "1.0.0"}, nil)
	tools, err := gosdk.NewTools(s, gosdk.WithPipeline(newPipeline(t, &log)), gosdk.WithFilters(answer("server-wide")))
	must(t, err)
	must(t, gosdk.AddTool(tools, &mcp.Tool{Name: "own"}, notFound, gosdk.WithFilters(answer("own"))))
	must(t, gosdk.AddTool(tools, &mcp.Tool{Name: "plain"}, notFound))
	var ownLog adaptertest.Log
	must(t, gosdk.AddTool(tools, &mcp.Tool{Name: "own_pipeline"}, notFound, gosdk.WithPipeline(newPipeline(t, &ownLog))))
	mcp.AddTool(s, &mcp.Tool{Name: "direct"}, notFound)
	cs := connect(t, s, "")
	for tool, want := range map[string]string{"own": "own", "plain": "server-wide", "direct": "server-wide", "own_pipeline": "server-wide"} {
		r, _ := call(context.Background(), cs, adaptertest.Case{Tool: tool})
		if len(r.Texts) != 1 || r.Texts[0] != want {
			t.Errorf("%s: texts %q, want %q", tool, r.Texts, want)
		}
		recs, ownRecs := log.Records(t), ownLog.Records(t)
		if tool == "own_pipeline" {
			recs, ownRecs = ownRecs, recs
		}
		if len(recs) != 1 || len(ownRecs) != 0 {
			t.Errorf("%s: %d records in its pipeline's log and %d in the other, want 1 and 0", tool, len(recs), len(ownRecs))
		}
	}
}

// TestAddRawToolChecksArguments checks that a raw tool added through Tools
// never sees arguments that do not fit its schema, and sees those that do.
func TestAddRawToolChecksArguments(t *testing.T) {
	var log adaptertest.Log
	s := mcp.NewServer(&mcp.Implementation{Name: "raw", Version: "1.0.0"}, nil)
	tools, err := gosdk.NewTools(s, gosdk.WithPipeline(newPipeline(t, &log)))
	must(t, err)
	var got []string
	must(t, tools.AddRawTool(&mcp.Tool{Name: "divide", InputSchema: adaptertest.DivideSchema}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		got = append(got, string(req.Params.Arguments))
		return rawOK(nil, req)
	}))
	cs := connect(t, s, "")
	for _, args := range []any{map[string]any{"a": 1}, []int{1, 2}, "text", map[string]any{"a": 1, "b": 2}} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "divide", Arguments: args})
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		fits := len(got) > 0 && got[len(got)-1] == `{"a":1,"b":2}`
		if env := resultOf(res).Envelope(); !fits && (env == nil || env["code"] != string(codes.ValidationError)) {
			t.Errorf("%v: got %s, want VALIDATION_ERROR", args, rawJSON(res))
		}
	}
	if len(got) != 1 || got[0] != `{"a":1,"b":2}` {
		t.Errorf("the handler saw %q, want only the fitting arguments", got)
	}
}
