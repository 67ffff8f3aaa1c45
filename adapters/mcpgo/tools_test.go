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
	"github.com/mcperr/mcperr/internal/adaptertest"
	"github.com/mcperr/mcperr/toolerr"
)

func ok(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return mcp.NewToolResultText("ok"), nil
}

func TestNewToolsRefuses(t *testing.T) {
	tests := []struct {
		name string
		s    *server.MCPServer
		opts []mcpgo.Option
		code codes.Code
	}{
		{"nil server", nil, nil, codes.InvalidOption},
		{"nil filter", server.NewMCPServer("t", "1"), []mcpgo.Option{mcpgo.WithFilters(nil)}, codes.NilFilter},
		{"nil hooks", server.NewMCPServer("t", "1"), []mcpgo.Option{mcpgo.WithRequestIDs(nil)}, codes.InvalidOption},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tools, err := mcpgo.NewTools(tt.s, tt.opts...)
			var de *toolerr.DefinitionError
			if tools != nil || !errors.As(err, &de) || de.Code != tt.code {
				t.Errorf("NewTools = %v, %v; want a %s definition error", tools, err, tt.code)
			}
		})
	}
}

func TestAddToolRefuses(t *testing.T) {
	s := server.NewMCPServer("t", "1.0.0")
	s.AddTool(mcp.NewTool("direct"), ok)
	tools, err := mcpgo.NewTools(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := tools.AddTool(mcp.NewTool("taken"), ok); err != nil {
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(s.ListTools())
			err := tools.AddTool(tt.tool, tt.h, tt.opts...)
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
		err := tools.AddTool(mcp.NewTool("task"), ok)
		var de *toolerr.DefinitionError
		if !errors.As(err, &de) || de.Code != codes.DuplicateTool {
			t.Errorf("AddTool = %v, want a DUPLICATE_TOOL definition error", err)
		}
	})
	t.Run("schema unchecked when the check is off", func(t *testing.T) {
		tool := mcp.NewToolWithRawSchema("loose", "", json.RawMessage(`{"type":"object","properties":{"n":{"type":"numbr"}}}`))
		if err := tools.AddTool(tool, ok, mcpgo.WithoutArgumentCheck()); err != nil {
			t.Errorf("AddTool with the check off = %v", err)
		}
	})
}

// TestAddToolStrictInputSchemaDefault checks that the arguments are checked
// against the schema as the server registered it.
func TestAddToolStrictInputSchemaDefault(t *testing.T) {
	s := server.NewMCPServer("t", "1.0.0", server.WithStrictInputSchemaDefault())
	tools, err := mcpgo.NewTools(s, mcpgo.WithPipeline(testPipeline(new(adaptertest.Log).Logger())))
	if err != nil {
		t.Fatal(err)
	}
	if err := tools.AddTool(mcp.NewTool("echo", mcp.WithNumber("n")), echo); err != nil {
		t.Fatal(err)
	}
	r := call(t, inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION), "echo", map[string]any{"n": 1, "token": adaptertest.Canary})
	if !r.IsError || r.Texts[0] != "Validation failed for token: is not a known property; remove it" {
		t.Errorf("an extra argument passed the strict schema: %s", r.Raw)
	}
}

// TestAddToolFilterOrder checks that a tool's filters run before those given
// to NewTools, and those before the pipeline's.
func TestAddToolFilterOrder(t *testing.T) {
	var seen []string
	f := func(name string) filter.Filter {
		return filter.Func(func(context.Context, filter.Call, error) (*filter.Response, error) {
			seen = append(seen, name)
			return nil, nil
		})
	}
	p, err := filter.New(filter.WithLogger(new(adaptertest.Log).Logger()), filter.WithFilters(f("global")))
	if err != nil {
		t.Fatal(err)
	}
	s := server.NewMCPServer("t", "1.0.0")
	tools, err := mcpgo.NewTools(s, mcpgo.WithPipeline(p), mcpgo.WithFilters(f("tools")))
	if err != nil {
		t.Fatal(err)
	}
	err = tools.AddTool(mcp.NewTool("fail"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("boom")
	}, mcpgo.WithFilters(f("tool")))
	if err != nil {
		t.Fatal(err)
	}
	call(t, inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION), "fail", nil)
	if got := strings.Join(seen, " "); got != "tool tools global" {
		t.Errorf("filters ran as %q, want the tool's, then the Tools', then the pipeline's", got)
	}
}
