package mcpgo

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/internal/inputschema"
)

const pairSchema = `{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"string"}},"required":["a"],"additionalProperties":false}`

func TestCheckArguments(t *testing.T) {
	s, err := inputschema.Compile([]byte(pairSchema))
	if err != nil {
		t.Fatal(err)
	}
	type pair struct {
		A any    `json:"a"`
		B string `json:"b,omitempty"`
	}
	tests := []struct {
		name string
		args any
		raw  string
		want string // the violations, "" when the arguments fit
	}{
		{"decoded map that fits", map[string]any{"a": 1.0, "b": "x"}, "", ""},
		{"decoded map with a wrong type", map[string]any{"a": "one"}, "", "[{a must be number, not string}]"},
		{"no arguments", nil, "", "[{a is required}]"},
		{"not an object", []any{1.0}, "", "[{ must be object, not array}]"},
		{"raw JSON", json.RawMessage(`{"a":1,"c":true}`), "", "[{c is not a known property; remove it}]"},
		{"a Go value", pair{A: 1}, "", ""},
		{"a Go value that does not fit", pair{A: "one"}, "", "[{a must be number, not string}]"},
		{"a Go value with the wire's arguments", pair{A: 1}, `{"b":2}`, "[{a is required} {b must be string, not number}]"},
		{"a value JSON cannot encode", pair{A: func() {}}, "", "[{ The arguments must be a JSON object.}]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := mcp.CallToolRequest{}
			req.Params.Arguments = tt.args
			req.Params.RawArguments = json.RawMessage(tt.raw)
			v := checkArguments(s, &req)
			got := ""
			if v != nil {
				var vs []string
				for _, x := range v.Violations {
					vs = append(vs, "{"+x.Field+" "+x.Constraint+"}")
				}
				got = fmt.Sprint(vs)
			}
			if got != tt.want {
				t.Errorf("violations = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestSchemaCache(t *testing.T) {
	var c schemaCache
	tool := mcp.NewTool("t", mcp.WithNumber("a", mcp.Required()))
	first := c.get(&tool)
	if first == nil {
		t.Fatal("no schema for a tool with properties")
	}
	copied := tool // same maps and slices, as GetTool returns it
	if got := c.get(&copied); got != first {
		t.Error("the same schema was compiled again")
	}
	rebuilt := mcp.NewTool("t", mcp.WithNumber("a", mcp.Required()))
	if got := c.get(&rebuilt); got != first {
		t.Error("an equal schema in new maps was compiled again")
	}
	changed := mcp.NewTool("t", mcp.WithString("a", mcp.Required()))
	second := c.get(&changed)
	if second == nil || second == first || second.Check(map[string]any{"a": "x"}) != nil {
		t.Error("a changed schema was not compiled again")
	}
	raw := mcp.NewToolWithRawSchema("t", "", json.RawMessage(pairSchema))
	third := c.get(&raw)
	if third == nil || third == second || c.get(&raw) != third {
		t.Error("a raw schema replacing a structured one was not compiled once")
	}
	if v := third.Check(map[string]any{"a": 1.0, "z": 1.0}); v == nil {
		t.Error("the raw schema is not the one checked")
	}
	empty := mcp.Tool{Name: "empty"}
	broken := mcp.NewToolWithRawSchema("broken", "", json.RawMessage(`{"type":"numbr"}`))
	if c.get(&empty) != nil || c.get(&broken) != nil {
		t.Error("an empty or broken schema must leave the arguments unchecked, as the SDK does")
	}
}

func TestIsWrapped(t *testing.T) {
	h := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil }
	s := server.NewMCPServer("t", "1.0.0")
	if err := AddTool(s, mcp.NewTool("added"), h); err != nil {
		t.Fatal(err)
	}
	st := servers.Load(s)
	structured := WrapStructured(func(context.Context, mcp.CallToolRequest, struct{}) (struct{}, error) { return struct{}{}, nil })
	tests := []struct {
		name string
		h    server.ToolHandlerFunc
		want bool
	}{
		{"Wrap", Wrap(h), true},
		{"WrapStructured", structured, true},
		{"AddTool", s.GetTool("added").Handler, true},
		{"a plain handler", h, false},
		{"a handler behind the middleware", st.middleware(h), false},
		{"nil", nil, false},
	}
	for _, tt := range tests {
		if got := isWrapped(tt.h); got != tt.want {
			t.Errorf("%s: isWrapped = %v, want %v", tt.name, got, tt.want)
		}
	}
}
