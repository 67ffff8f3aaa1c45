package mcpgo

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

const pairSchema = `{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"string"}},"required":["a"],"additionalProperties":false}`

// serverContext returns the context a handler of s runs with: the server
// in it, as the SDK puts it there.
func serverContext(t *testing.T, s *server.MCPServer) context.Context {
	t.Helper()
	var ctx context.Context
	s.AddTool(mcp.NewTool("capture_context"), func(c context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx = c
		return mcp.NewToolResultText("captured"), nil
	})
	s.HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"capture_context"}}`))
	if ctx == nil || server.ServerFromContext(ctx) != s {
		t.Fatal("the capturing tool did not run with the server in its context")
	}
	return ctx
}

// TestClassify checks that a failure is the client's, a *refused holding
// the Validation that says how and the original error, exactly when the
// arguments do not fit the schema of the tool as the server has it
// registered, whatever Go type they arrive as; otherwise the error is
// returned as it is.
func TestCheckArguments(t *testing.T) {
	s := server.NewMCPServer("t", "1.0.0")
	s.AddTool(mcp.NewToolWithRawSchema("pair", "", json.RawMessage(pairSchema)), nil)
	s.AddTool(mcp.NewTool("structured", mcp.WithNumber("n", mcp.Required())), nil)
	s.AddTool(mcp.Tool{Name: "no_schema"}, nil)
	s.AddTool(mcp.NewToolWithRawSchema("broken", "", json.RawMessage(`{"type":"numbr"}`)), nil)
	ctx := serverContext(t, s)
	st := &serverState{}
	type pair struct {
		A any    `json:"a"`
		B string `json:"b,omitempty"`
	}
	tests := []struct {
		name string
		tool string
		args any
		want string // the violations, "" when err must come back as it is
	}{
		{"decoded map that fits", "pair", map[string]any{"a": 1.0, "b": "x"}, ""},
		{"decoded map with a wrong type", "pair", map[string]any{"a": "one"}, "[{a must be number, not string}]"},
		{"no arguments", "pair", nil, "[{a is required}]"},
		{"not an object", "pair", []any{1.0}, "[{ must be object, not array}]"},
		{"a string", "pair", "a", "[{ must be object, not string}]"},
		{"raw JSON", "pair", json.RawMessage(`{"a":1,"c":true}`), "[{c is not a known property; remove it}]"},
		{"a Go value that fits", "pair", pair{A: 1}, ""},
		{"a Go value that does not fit", "pair", pair{A: "one"}, "[{a must be number, not string}]"},
		{"a value JSON cannot encode", "pair", pair{A: func() {}}, ""},
		{"a structured schema", "structured", map[string]any{"n": "x"}, "[{n must be number, not string}]"},
		{"a structured schema that fits", "structured", map[string]any{"n": 1.0}, ""},
		{"no schema", "no_schema", map[string]any{"n": "x"}, ""},
		{"a schema that does not compile", "broken", map[string]any{"n": "x"}, ""},
		{"an unknown tool", "unknown", map[string]any{"n": "x"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := mcp.CallToolRequest{}
			req.Params.Name, req.Params.Arguments = tt.tool, tt.args
			got := st.compiled(ctx, req.Params.Name).check(&req)
			if tt.want == "" {
				if got != nil {
					t.Errorf("check = %v, want nil", got)
				}
				return
			}
			v := got
			var vs []string
			for _, x := range v.Violations {
				vs = append(vs, "{"+x.Field+" "+x.Constraint+"}")
			}
			if s := fmt.Sprint(vs); s != tt.want {
				t.Errorf("violations = %s, want %s", s, tt.want)
			}
		})
	}
}

// TestCheckArgumentsOutsideAServer checks that a call outside any server,
// as when a wrapped handler is called directly, has nothing to check.
func TestCheckArgumentsOutsideAServer(t *testing.T) {
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "pair", map[string]any{"a": "one"}
	if got := (&serverState{}).compiled(context.Background(), req.Params.Name).check(&req); got != nil {
		t.Errorf("check = %v, want nil", got)
	}
}

// TestInputSchemaDoc checks that the schema checked is the one the SDK's
// own validator reads: RawInputSchema when set, InputSchema otherwise, none
// when that is empty.
func TestInputSchemaDoc(t *testing.T) {
	raw := mcp.NewToolWithRawSchema("raw", "", json.RawMessage(pairSchema))
	raw.InputSchema = mcp.ToolInputSchema{Type: "object", Required: []string{"ignored"}}
	structured := mcp.NewTool("structured", mcp.WithNumber("n", mcp.Required()))
	tests := []struct {
		name string
		tool mcp.Tool
		want string
	}{
		{"raw schema first", raw, pairSchema},
		{"structured schema", structured, `{"properties":{"n":{"type":"number"}},"required":["n"],"type":"object"}`},
		{"empty schema", mcp.Tool{Name: "empty"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := inputSchemaDoc(&tt.tool)
			if err != nil || string(doc) != tt.want {
				t.Errorf("inputSchemaDoc = %s, %v; want %s", doc, err, tt.want)
			}
		})
	}
}

// TestCheckArgumentsFollowsTheRegisteredSchema checks that the schema a
// failed call is checked against is the one the server has registered at
// the time of the call: a tool added again under the same name with
// another schema, and a session's own tool of that name, are checked
// against their own schema, never one remembered from an earlier call.
func TestCheckArgumentsFollowsTheRegisteredSchema(t *testing.T) {
	s := server.NewMCPServer("t", "1.0.0", server.WithToolCapabilities(true))
	s.AddTool(mcp.NewTool("t", mcp.WithNumber("a", mcp.Required())), nil)
	ctx := serverContext(t, s)
	st := &serverState{}
	violations := func(args map[string]any) string {
		t.Helper()
		req := &mcp.CallToolRequest{}
		req.Params.Name = "t"
		req.Params.Arguments = args
		v := st.compiled(ctx, req.Params.Name).check(req)
		if v == nil {
			return ""
		}
		var vs []string
		for _, x := range v.Violations {
			vs = append(vs, "{"+x.Field+" "+x.Constraint+"}")
		}
		return fmt.Sprint(vs)
	}
	if got := violations(map[string]any{"a": "x"}); got != "[{a must be number, not string}]" {
		t.Fatalf("first schema: %s", got)
	}
	if got := violations(map[string]any{"a": "x"}); got != "[{a must be number, not string}]" {
		t.Fatalf("first schema, again: %s", got)
	}
	s.AddTool(mcp.NewTool("t", mcp.WithString("b", mcp.Required())), nil)
	if got := violations(map[string]any{"a": "x"}); got != "[{b is required}]" {
		t.Errorf("after the tool was added again with another schema: %s, want b is required", got)
	}
	if got := violations(map[string]any{"b": "x"}); got != "" {
		t.Errorf("arguments that fit the new schema: %s", got)
	}
	raw := json.RawMessage(`{"type":"object","properties":{"c":{"type":"boolean"}},"required":["c"]}`)
	s.AddTool(mcp.NewToolWithRawSchema("t", "", raw), nil)
	if got := violations(map[string]any{"b": "x"}); got != "[{c is required}]" {
		t.Errorf("after the tool was added again with a raw schema: %s, want c is required", got)
	}
	s.AddTool(mcp.NewToolWithRawSchema("t", "", json.RawMessage(`{"type":"object","properties":{"d":{"type":"integer"}},"required":["d"]}`)), nil)
	if got := violations(map[string]any{"c": true}); got != "[{d is required}]" {
		t.Errorf("after the tool was added again with another raw schema: %s, want d is required", got)
	}
}
