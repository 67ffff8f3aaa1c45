package mcpgo_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

func ok(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return mcp.NewToolResultText("ok"), nil
}

// installed returns a new server with mcperr installed with p.
func installed(t testing.TB, p *filter.Pipeline) *server.MCPServer {
	t.Helper()
	s := server.NewMCPServer("t", "1.0.0")
	if err := mcpgo.Install(s, p); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestAddToolRefuses(t *testing.T) {
	s := installed(t, testPipeline(new(adaptertest.Log).Logger()))
	s.AddTool(mcp.NewTool("direct"), ok)
	if err := mcpgo.AddTool(s, mcp.NewTool("taken"), ok); err != nil {
		t.Fatal(err)
	}
	header := mcp.NewToolWithRawSchema("header", "", json.RawMessage(
		`{"type":"object","properties":{"tags":{"type":"array","x-mcp-header":"Tags"}}}`))
	tests := []struct {
		name    string
		tool    mcp.Tool
		h       server.ToolHandlerFunc
		opts    []filter.ToolOption
		mistake codes.Mistake
	}{
		{"empty name", mcp.NewTool(""), ok, nil, codes.InvalidToolName},
		{"name with a space", mcp.NewTool("get order"), ok, nil, codes.InvalidToolName},
		{"added twice", mcp.NewTool("taken"), ok, nil, codes.DuplicateTool},
		{"added to the server directly", mcp.NewTool("direct"), ok, nil, codes.DuplicateTool},
		{"nil handler", mcp.NewTool("nil_handler"), nil, nil, codes.NilValue},
		{"nil filter", mcp.NewTool("nil_filter"), ok, []filter.ToolOption{filter.WithFilters(nil)}, codes.NilValue},
		{"nil filter.Catch", mcp.NewTool("nil_func"), ok, []filter.ToolOption{filter.WithFilters(filter.Catch[error](nil))}, codes.NilValue},
		{"bad x-mcp-header", header, ok, nil, codes.InvalidSchema},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(s.ListTools())
			err := mcpgo.AddTool(s, tt.tool, tt.h, tt.opts...)
			var de *codes.DefinitionError
			if !errors.As(err, &de) || de.Mistake != tt.mistake {
				t.Fatalf("AddTool = %v, want a %s definition error", err, tt.mistake)
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
		var de *codes.DefinitionError
		if !errors.As(err, &de) || de.Mistake != codes.DuplicateTool {
			t.Errorf("AddTool = %v, want a DUPLICATE_TOOL definition error", err)
		}
	})
	t.Run("nil server", func(t *testing.T) {
		err := mcpgo.AddTool(nil, mcp.NewTool("orphan"), ok)
		var de *codes.DefinitionError
		if !errors.As(err, &de) || de.Mistake != codes.NilValue {
			t.Errorf("AddTool = %v, want a NIL_VALUE definition error", err)
		}
	})
	// A schema the argument check could not use is a definition error; a
	// tool without one is accepted, and its arguments are never checked.
	t.Run("input schemas", func(t *testing.T) {
		if err := mcpgo.AddTool(s, mcp.Tool{Name: "no_schema"}, ok); err != nil || s.GetTool("no_schema") == nil {
			t.Errorf("AddTool(no_schema) = %v", err)
		}
		for _, tool := range []mcp.Tool{
			mcp.NewToolWithRawSchema("array", "", json.RawMessage(`{"type":"array"}`)),
			mcp.NewToolWithRawSchema("bad", "", json.RawMessage(`{"type":"object","properties":{"n":{"type":"numbr"}}}`)),
		} {
			err := mcpgo.AddTool(s, tool, ok)
			var de *codes.DefinitionError
			if !errors.As(err, &de) || de.Mistake != codes.InvalidSchema || s.GetTool(tool.Name) != nil {
				t.Errorf("AddTool(%s) = %v, want an INVALID_SCHEMA definition error and nothing added", tool.Name, err)
			}
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
		var de *codes.DefinitionError
		if !errors.As(err, &de) || de.Mistake != codes.DuplicateTool || de.Subject != name {
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

// TestAddToolStrictInputSchemaDefault checks that a failing call's
// arguments are checked against the schema as the server registered it,
// here with additionalProperties false, and that a call the handler
// answers is left as it is.
func TestAddToolStrictInputSchemaDefault(t *testing.T) {
	var log adaptertest.Log
	s := server.NewMCPServer("t", "1.0.0", server.WithStrictInputSchemaDefault())
	if err := mcpgo.Install(s, testPipeline(log.Logger())); err != nil {
		t.Fatal(err)
	}
	if err := mcpgo.AddTool(s, mcp.NewTool("echo", mcp.WithNumber("n")), echo); err != nil {
		t.Fatal(err)
	}
	if err := mcpgo.AddTool(s, mcp.NewTool("fail", mcp.WithNumber("n")), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("decode arguments: unknown field")
	}); err != nil {
		t.Fatal(err)
	}
	c := inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION)
	log.Records(t)
	args := map[string]any{"n": 1, "token": adaptertest.Canary}
	adaptertest.Check(t, adaptertest.Case{Want: adaptertest.Expect{IsError: true, Code: codes.ValidationError,
		Text: "Validation failed for token: is not a known property; remove it", Fields: []string{"token"}, Logged: 1}},
		call(t, c, "fail", args), log.Records(t))
	if r := call(t, c, "echo", args); r.IsError || len(r.Texts) != 1 || r.Texts[0] != `{"n":1,"token":"`+adaptertest.Canary+`"}` {
		t.Errorf("a call the handler answered was changed: %s", r.Raw)
	}
}

// TestAddToolFilterOrder checks that a tool's filters run before the
// pipeline's global ones, the first outermost.
func TestAddToolFilterOrder(t *testing.T) {
	var seen []string
	f := func(name string) filter.Filter {
		return filter.Catch(func(context.Context, filter.Call, error) (*filter.Response, error) {
			seen = append(seen, name)
			return nil, nil
		})
	}
	s := installed(t, testPipeline(new(adaptertest.Log).Logger(), filter.WithFilters(f("global"))))
	err := mcpgo.AddTool(s, mcp.NewTool("fail"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("boom")
	}, filter.WithFilters(f("tool-1"), f("tool-2")))
	if err != nil {
		t.Fatal(err)
	}
	call(t, inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION), "fail", nil)
	if got := strings.Join(seen, " "); got != "tool-1 tool-2 global" {
		t.Errorf("filters ran as %q, want the tool's in order, then the pipeline's", got)
	}
}

// TestAddToolAfterDelete checks that the name of a tool deleted from the
// server can be added again, and that concurrent AddTool calls of one name
// add it once.
func TestAddToolAfterDelete(t *testing.T) {
	s := installed(t, testPipeline(new(adaptertest.Log).Logger()))
	tool := mcp.NewTool("t")
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
		var de *codes.DefinitionError
		switch {
		case err == nil:
			added++
		case !errors.As(err, &de) || de.Mistake != codes.DuplicateTool:
			t.Errorf("concurrent AddTool: %v", err)
		}
	}
	if added != 1 {
		t.Errorf("%d concurrent AddTool calls of one name succeeded, want 1", added)
	}
}
