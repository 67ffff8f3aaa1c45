package gosdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

func typedOK(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
	return nil, nil, nil
}

func rawOK(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
}

// mistakeOf returns the Mistake of the *codes.DefinitionError in err's
// chain, or "".
func mistakeOf(err error) codes.Mistake {
	var de *codes.DefinitionError
	if errors.As(err, &de) {
		return de.Mistake
	}
	return ""
}

// listedTools returns the names of the tools a new client of s lists.
func listedTools(t *testing.T, s *mcp.Server) []string {
	t.Helper()
	list, err := connect(t, s, "").ListTools(context.Background(), nil)
	must(t, err)
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	return names
}

// TestToolsDefinitionErrors checks that a bad definition is refused with the
// right definition error and registers nothing.
func TestToolsDefinitionErrors(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "defs", Version: "1.0.0"}, nil)
	must(t, gosdk.Install(s, defaults()))
	must(t, gosdk.AddTool(s, &mcp.Tool{Name: "taken"}, typedOK))
	must(t, gosdk.AddRawTool(s, &mcp.Tool{Name: "raw_taken", InputSchema: adaptertest.EmptySchema}, rawOK))

	long := strings.Repeat("x", 129) // the MCP limit is 128 characters
	tests := []struct {
		name string
		add  func() error
		want codes.Mistake
	}{
		{"typed: nil tool", func() error { return gosdk.AddTool(s, nil, typedOK) }, codes.InvalidToolName},
		{"typed: empty name", func() error { return gosdk.AddTool(s, &mcp.Tool{}, typedOK) }, codes.InvalidToolName},
		{"typed: space in name", func() error { return gosdk.AddTool(s, &mcp.Tool{Name: "bad name"}, typedOK) }, codes.InvalidToolName},
		{"typed: name too long", func() error { return gosdk.AddTool(s, &mcp.Tool{Name: long}, typedOK) }, codes.InvalidToolName},
		{"typed: duplicate", func() error { return gosdk.AddTool(s, &mcp.Tool{Name: "taken"}, typedOK) }, codes.DuplicateTool},
		{"typed: duplicate of a raw tool", func() error { return gosdk.AddTool(s, &mcp.Tool{Name: "raw_taken"}, typedOK) }, codes.DuplicateTool},
		{"typed: nil handler", func() error {
			return gosdk.AddTool[any, any](s, &mcp.Tool{Name: "nil_handler"}, nil)
		}, codes.NilValue},
		{"typed: nil filter", func() error {
			return gosdk.AddTool(s, &mcp.Tool{Name: "nil_filter"}, typedOK, filter.WithFilters(nil))
		}, codes.NilValue},
		{"typed: schema the SDK cannot use", func() error {
			return gosdk.AddTool(s, &mcp.Tool{Name: "int_input"}, func(context.Context, *mcp.CallToolRequest, int) (*mcp.CallToolResult, any, error) {
				return nil, nil, nil
			})
		}, codes.InvalidSchema},
		{"raw: nil tool", func() error { return gosdk.AddRawTool(s, nil, rawOK) }, codes.InvalidToolName},
		{"typed: nil server", func() error { return gosdk.AddTool(nil, &mcp.Tool{Name: "x"}, typedOK) }, codes.NilValue},
		{"raw: nil server", func() error {
			return gosdk.AddRawTool(nil, &mcp.Tool{Name: "x", InputSchema: adaptertest.EmptySchema}, rawOK)
		}, codes.NilValue},
		{"raw: bad name", func() error {
			return gosdk.AddRawTool(s, &mcp.Tool{Name: "bad/name", InputSchema: adaptertest.EmptySchema}, rawOK)
		}, codes.InvalidToolName},
		{"raw: duplicate", func() error {
			return gosdk.AddRawTool(s, &mcp.Tool{Name: "taken", InputSchema: adaptertest.EmptySchema}, rawOK)
		}, codes.DuplicateTool},
		{"raw: nil handler", func() error {
			return gosdk.AddRawTool(s, &mcp.Tool{Name: "raw_nil", InputSchema: adaptertest.EmptySchema}, nil)
		}, codes.NilValue},
		{"raw: nil filter", func() error {
			return gosdk.AddRawTool(s, &mcp.Tool{Name: "raw_nil_filter", InputSchema: adaptertest.EmptySchema}, rawOK, filter.WithFilters(nil))
		}, codes.NilValue},
		{"raw: nil filter.Catch", func() error {
			return gosdk.AddRawTool(s, &mcp.Tool{Name: "raw_nil_func", InputSchema: adaptertest.EmptySchema}, rawOK, filter.WithFilters(filter.Catch[error](nil)))
		}, codes.NilValue},
		{"raw: no schema", func() error { return gosdk.AddRawTool(s, &mcp.Tool{Name: "raw_no_schema"}, rawOK) }, codes.InvalidSchema},
		{"raw: schema not an object", func() error {
			return gosdk.AddRawTool(s, &mcp.Tool{Name: "raw_array", InputSchema: json.RawMessage(`{"type":"array"}`)}, rawOK)
		}, codes.InvalidSchema},
		{"raw: schema does not compile", func() error {
			return gosdk.AddRawTool(s, &mcp.Tool{Name: "raw_bad_pattern",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string","pattern":"("}}}`)}, rawOK)
		}, codes.InvalidSchema},
	}
	for _, tt := range tests {
		if got := mistakeOf(tt.add()); got != tt.want {
			t.Errorf("%s: got mistake %q, want a *codes.DefinitionError of %s", tt.name, got, tt.want)
		}
	}

	// The refused tools were not registered, and those refused for a nil
	// handler or filter or a bad schema can be added once fixed.
	if got := strings.Join(listedTools(t, s), ","); got != "raw_taken,taken" {
		t.Errorf("registered tools %s, want raw_taken,taken", got)
	}
	must(t, gosdk.AddTool(s, &mcp.Tool{Name: "nil_handler"}, typedOK))
	must(t, gosdk.AddTool(s, &mcp.Tool{Name: "int_input"}, typedOK))
	must(t, gosdk.AddRawTool(s, &mcp.Tool{Name: "raw_no_schema", InputSchema: adaptertest.EmptySchema}, rawOK))
}

// TestInstallErrors checks that a server gets one configuration: Install
// refuses a nil server, a nil pipeline (a caller who ignored filter.New's
// error), and a second, different configuration, and does nothing when
// given the same one again.
func TestInstallErrors(t *testing.T) {
	newServer := func() *mcp.Server { return mcp.NewServer(&mcp.Implementation{Name: "n", Version: "1"}, nil) }
	p, err := filter.New()
	must(t, err)
	other, err := filter.New()
	must(t, err)

	installed := newServer()
	must(t, gosdk.Install(installed, p))
	bare := newServer()

	for _, tt := range []struct {
		name string
		err  error
		want codes.Mistake
		says string
	}{
		{"nil server", gosdk.Install(nil, p), codes.NilValue, "*mcp.Server"},
		{"nil pipeline", gosdk.Install(bare, nil), codes.NilValue, "filter.New"},
		{"another pipeline", gosdk.Install(installed, other), codes.ConflictingConfiguration, "once per server"},
	} {
		var de *codes.DefinitionError
		if !errors.As(tt.err, &de) || de.Mistake != tt.want || !strings.Contains(de.Reason, tt.says) {
			t.Errorf("%s: got %v, want a definition error %s saying %q", tt.name, tt.err, tt.want, tt.says)
		}
	}
	if err := gosdk.Install(installed, p); err != nil {
		t.Errorf("installing the same pipeline again: %v, want nil", err)
	}
	if err := gosdk.Install(bare, p); err != nil {
		t.Errorf("a nil pipeline installed something: installing one afterwards: %v, want nil", err)
	}
}

// TestInstallFirst checks both orders of Install and AddTool. AddTool and
// AddRawTool on a server without Install are refused with NotInstalled
// and register nothing; Install then works, and so do AddTool and
// AddRawTool after it, whose tools run with the pipeline Install gave.
// Installing the same pipeline again changes nothing; another is refused,
// and the server keeps the first.
func TestInstallFirst(t *testing.T) {
	ctx := context.Background()
	s := mcp.NewServer(&mcp.Implementation{Name: "order", Version: "1.0.0"}, nil)
	fail := func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
		return nil, nil, errors.New("boom")
	}
	failRaw := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("boom")
	}

	for name, err := range map[string]error{
		"AddTool":    gosdk.AddTool(s, &mcp.Tool{Name: "early"}, fail),
		"AddRawTool": gosdk.AddRawTool(s, &mcp.Tool{Name: "early_raw", InputSchema: adaptertest.EmptySchema}, failRaw),
	} {
		var de *codes.DefinitionError
		if !errors.As(err, &de) || de.Mistake != codes.NotInstalled || !strings.Contains(de.Reason, "gosdk.Install") {
			t.Errorf("%s before Install: %v, want a *codes.DefinitionError of %s that says to call gosdk.Install", name, err, codes.NotInstalled)
		}
	}

	var log, otherLog adaptertest.Log
	p := newPipeline(t, &log)
	must(t, gosdk.Install(s, p))
	if got := listedTools(t, s); len(got) != 0 {
		t.Errorf("after the refused AddTool and AddRawTool the server lists %v, want no tool", got)
	}
	must(t, gosdk.AddTool(s, &mcp.Tool{Name: "early"}, fail))
	must(t, gosdk.AddRawTool(s, &mcp.Tool{Name: "early_raw", InputSchema: adaptertest.EmptySchema}, failRaw))
	must(t, gosdk.Install(s, p))
	if err := gosdk.Install(s, newPipeline(t, &otherLog)); mistakeOf(err) != codes.ConflictingConfiguration {
		t.Errorf("Install with another pipeline: %v, want %s", err, codes.ConflictingConfiguration)
	}
	must(t, gosdk.AddTool(s, &mcp.Tool{Name: "late"}, fail))

	if got := listedTools(t, s); !slices.Equal(got, []string{"early", "early_raw", "late"}) {
		t.Errorf("the server lists %v, want early, early_raw and late", got)
	}
	cs := connect(t, s, "")
	for _, tool := range []string{"early", "early_raw", "late"} {
		r, _ := call(ctx, cs, adaptertest.Case{Tool: tool})
		env := r.Envelope()
		if env == nil || env["code"] != string(codes.InternalError) {
			t.Errorf("%s: got %s, want a masked INTERNAL_ERROR with its envelope", tool, r.Raw)
		}
		if recs := log.Records(t); len(recs) != 1 || recs[0]["ref"] != env["ref"] {
			t.Errorf("%s: records %v, want one in the first pipeline's log, with the client's ref", tool, recs)
		}
	}
	if recs := otherLog.Records(t); len(recs) != 0 {
		t.Errorf("the refused pipeline logged %v", recs)
	}
}

// TestDuplicatesAcrossEntryPoints checks that a name is checked against
// every tool added through mcperr on the server, whatever the function, and
// not against another server's tools.
func TestDuplicatesAcrossEntryPoints(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "d", Version: "1"}, nil)
	other := mcp.NewServer(&mcp.Implementation{Name: "o", Version: "1"}, nil)
	p, err := filter.New()
	must(t, err)
	must(t, gosdk.Install(s, p))
	must(t, gosdk.Install(other, p)) // one pipeline may serve many servers
	must(t, gosdk.AddTool(s, &mcp.Tool{Name: "a"}, typedOK))
	must(t, gosdk.AddRawTool(s, &mcp.Tool{Name: "b", InputSchema: adaptertest.EmptySchema}, rawOK))
	if err := gosdk.AddRawTool(s, &mcp.Tool{Name: "a", InputSchema: adaptertest.EmptySchema}, rawOK); mistakeOf(err) != codes.DuplicateTool {
		t.Errorf("raw after typed: %v, want DUPLICATE_TOOL", err)
	}
	if err := gosdk.AddTool(s, &mcp.Tool{Name: "b"}, typedOK); mistakeOf(err) != codes.DuplicateTool {
		t.Errorf("typed after raw: %v, want DUPLICATE_TOOL", err)
	}
	must(t, gosdk.AddTool(other, &mcp.Tool{Name: "a"}, typedOK))
}
