package mcpgo_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/adaptertest"
	"github.com/mcperr/mcperr/toolerr"
)

func ok(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return mcp.NewToolResultText("ok"), nil
}

func TestAddToolRefuses(t *testing.T) {
	s := server.NewMCPServer("t", "1.0.0")
	s.AddTool(mcp.NewTool("direct"), ok)
	if err := mcpgo.AddTool(s, mcp.NewTool("taken"), ok); err != nil {
		t.Fatal(err)
	}
	header := mcp.NewToolWithRawSchema("header", "", json.RawMessage(
		`{"type":"object","properties":{"tags":{"type":"array","x-mcp-header":"Tags"}}}`))
	tests := []struct {
		name string
		tool mcp.Tool
		h    server.ToolHandlerFunc
		opts []mcpgo.Option
		code codes.Code
	}{
		{"empty name", mcp.NewTool(""), ok, nil, codes.InvalidToolName},
		{"name with a space", mcp.NewTool("get order"), ok, nil, codes.InvalidToolName},
		{"added twice", mcp.NewTool("taken"), ok, nil, codes.DuplicateTool},
		{"added to the server directly", mcp.NewTool("direct"), ok, nil, codes.DuplicateTool},
		{"nil handler", mcp.NewTool("nil_handler"), nil, nil, codes.NilHandler},
		{"nil filter", mcp.NewTool("nil_filter"), ok, []mcpgo.Option{mcpgo.WithFilters(nil)}, codes.NilFilter},
		{"no schema", mcp.Tool{Name: "no_schema"}, ok, nil, codes.InvalidSchema},
		{"not an object schema", mcp.NewToolWithRawSchema("array", "", json.RawMessage(`{"type":"array"}`)), ok, nil, codes.InvalidSchema},
		{"schema that does not compile", mcp.NewToolWithRawSchema("bad", "", json.RawMessage(`{"type":"object","properties":{"n":{"type":"numbr"}}}`)), ok, nil, codes.InvalidSchema},
		{"schema that is not JSON", mcp.NewToolWithRawSchema("junk", "", json.RawMessage(`{"type":`)), ok, nil, codes.InvalidSchema},
		{"bad x-mcp-header", header, ok, []mcpgo.Option{mcpgo.WithoutArgumentCheck()}, codes.InvalidSchema},
		{"request ids", mcp.NewTool("ids"), ok, []mcpgo.Option{mcpgo.WithRequestIDs()}, codes.InvalidOption},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(s.ListTools())
			err := mcpgo.AddTool(s, tt.tool, tt.h, tt.opts...)
			var de *toolerr.DefinitionError
			if !errors.As(err, &de) || de.Code != tt.code {
				t.Fatalf("AddTool = %v, want a %s definition error", err, tt.code)
			}
			if n := len(s.ListTools()); n != before {
				t.Errorf("a refused tool changed the server's tools from %d to %d", before, n)
			}
		})
	}
	t.Run("name of a task tool", func(t *testing.T) {
		s.AddTaskTool(mcp.NewTool("task", mcp.WithTaskSupport(mcp.TaskSupportRequired)),
			func(context.Context, mcp.CallToolRequest) (*mcp.CreateTaskResult, error) { return nil, nil })
		err := mcpgo.AddTool(s, mcp.NewTool("task"), ok)
		var de *toolerr.DefinitionError
		if !errors.As(err, &de) || de.Code != codes.DuplicateTool {
			t.Errorf("AddTool = %v, want a DUPLICATE_TOOL definition error", err)
		}
	})
	t.Run("nil server", func(t *testing.T) {
		err := mcpgo.AddTool(nil, mcp.NewTool("orphan"), ok)
		var de *toolerr.DefinitionError
		if !errors.As(err, &de) || de.Code != codes.InvalidOption {
			t.Errorf("AddTool = %v, want an INVALID_OPTION definition error", err)
		}
	})
	t.Run("schema unchecked when the check is off", func(t *testing.T) {
		tool := mcp.NewToolWithRawSchema("loose", "", json.RawMessage(`{"type":"object","properties":{"n":{"type":"numbr"}}}`))
		if err := mcpgo.AddTool(s, tool, ok, mcpgo.WithoutArgumentCheck()); err != nil {
			t.Errorf("AddTool with the check off = %v", err)
		}
	})
}

// TestAddToolSeesSDKTools checks that AddTool refuses the name of a tool
// added to the server with the SDK alone, before or after mcperr was
// installed, and leaves that tool as it was.
func TestAddToolSeesSDKTools(t *testing.T) {
	s := server.NewMCPServer("t", "1.0.0")
	s.AddTool(mcp.NewTool("before"), ok)
	if err := mcpgo.Install(s, testPipeline(new(adaptertest.Log).Logger())); err != nil {
		t.Fatal(err)
	}
	s.AddTool(mcp.NewTool("after"), ok)
	other := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("replaced"), nil
	}
	for _, name := range []string{"before", "after"} {
		err := mcpgo.AddTool(s, mcp.NewTool(name), other)
		var de *toolerr.DefinitionError
		if !errors.As(err, &de) || de.Code != codes.DuplicateTool || de.Subject != name {
			t.Errorf("AddTool(%q) = %v, want a DUPLICATE_TOOL definition error", name, err)
		}
	}
	c := inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION)
	for _, name := range []string{"before", "after"} {
		if r := call(t, c, name, nil); r.IsError || r.Texts[0] != "ok" {
			t.Errorf("%s: the SDK's tool was replaced: %s", name, r.Raw)
		}
	}
}

// TestAddToolStrictInputSchemaDefault checks that the arguments are checked
// against the schema as the server registered it.
func TestAddToolStrictInputSchemaDefault(t *testing.T) {
	s := server.NewMCPServer("t", "1.0.0", server.WithStrictInputSchemaDefault())
	if err := mcpgo.Install(s, testPipeline(new(adaptertest.Log).Logger())); err != nil {
		t.Fatal(err)
	}
	if err := mcpgo.AddTool(s, mcp.NewTool("echo", mcp.WithNumber("n")), echo); err != nil {
		t.Fatal(err)
	}
	r := call(t, inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION), "echo", map[string]any{"n": 1, "token": adaptertest.Canary})
	if !r.IsError || r.Texts[0] != "Validation failed for token: is not a known property; remove it" {
		t.Errorf("an extra argument passed the strict schema: %s", r.Raw)
	}
}

// TestAddToolFilterOrder checks that a tool's filters run before the
// pipeline's global ones, the first outermost.
func TestAddToolFilterOrder(t *testing.T) {
	var seen []string
	f := func(name string) filter.Filter {
		return filter.Func(func(context.Context, filter.Call, error) (*filter.Response, error) {
			seen = append(seen, name)
			return nil, nil
		})
	}
	s := server.NewMCPServer("t", "1.0.0")
	if err := mcpgo.Install(s, testPipeline(new(adaptertest.Log).Logger(), filter.WithFilters(f("global")))); err != nil {
		t.Fatal(err)
	}
	err := mcpgo.AddTool(s, mcp.NewTool("fail"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("boom")
	}, mcpgo.WithFilters(f("tool-1"), f("tool-2")))
	if err != nil {
		t.Fatal(err)
	}
	call(t, inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION), "fail", nil)
	if got := strings.Join(seen, " "); got != "tool-1 tool-2 global" {
		t.Errorf("filters ran as %q, want the tool's in order, then the pipeline's", got)
	}
}

// TestAddToolAlone checks that AddTool on a server without Install installs
// mcperr with the default configuration, for the tools added with the SDK
// too.
func TestAddToolAlone(t *testing.T) {
	var log adaptertest.Log
	useDefaultLogger(t, log.Logger())
	s := server.NewMCPServer("t", "1.0.0")
	fail := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("dial: password=%s", adaptertest.Canary)
	}
	if err := mcpgo.AddTool(s, mcp.NewTool("added"), fail); err != nil {
		t.Fatal(err)
	}
	s.AddTool(mcp.NewTool("plain"), fail)
	c := inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION)
	log.Records(t)
	for _, tool := range []string{"added", "plain"} {
		adaptertest.Check(t, adaptertest.Case{Want: adaptertest.Expect{IsError: true, Code: codes.InternalError,
			Text: `Internal error in tool "` + tool + `" (ref: {ref}).`, Masked: true, Logged: 1,
			LogContains: []string{adaptertest.Canary}}}, call(t, c, tool, nil), log.Records(t))
	}
}

// TestAddToolAfterDelete checks that the name of a tool deleted from the
// server can be added again, and that concurrent AddTool calls of one name
// add it once.
func TestAddToolAfterDelete(t *testing.T) {
	s := server.NewMCPServer("del", "1.0.0")
	tool := mcp.NewTool("t")
	ok := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	}
	if err := mcpgo.AddTool(s, tool, ok); err != nil {
		t.Fatal(err)
	}
	s.DeleteTools("t")
	if err := mcpgo.AddTool(s, tool, ok); err != nil {
		t.Fatalf("adding a deleted tool's name again: %v", err)
	}
	s.DeleteTools("t")
	errs := make(chan error, 8)
	for range 8 {
		go func() { errs <- mcpgo.AddTool(s, tool, ok) }()
	}
	added := 0
	for range 8 {
		err := <-errs
		switch {
		case err == nil:
			added++
		case toolerr.CodeOf(err) != codes.DuplicateTool:
			t.Errorf("concurrent AddTool: %v", err)
		}
	}
	if added != 1 {
		t.Errorf("%d concurrent AddTool calls of one name succeeded, want 1", added)
	}
}
