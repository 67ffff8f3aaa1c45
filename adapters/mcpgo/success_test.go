package mcpgo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

// looseTool is a tool whose handler reads its arguments with the SDK's
// lenient accessors, which take "5" for 5 and "true" for true, and fails
// only when it cannot read a positive count: its schema says integer and
// boolean, but it succeeds with strings.
var looseTool = mcp.NewToolWithRawSchema("repeat", "Repeats.", json.RawMessage(
	`{"type":"object","properties":{"count":{"type":"integer","minimum":1},"loud":{"type":"boolean"}},"required":["count"]}`))

func loose(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	n := req.GetInt("count", 0)
	if n < 1 {
		return nil, fmt.Errorf("repeat: cannot read count %v", req.GetArguments()["count"])
	}
	text := fmt.Sprintf("repeated %d times", n)
	if req.GetBool("loud", false) {
		text += "!"
	}
	return mcp.NewToolResultText(text), nil
}

// TestSuccessStaysSuccess checks that arguments are checked against the
// schema only when a call fails: a handler that reads loose-typed
// arguments and succeeds is answered exactly as the bare SDK answers it,
// whichever way mcperr is in place; the same tool failing with arguments
// that do not fit the schema is answered VALIDATION_ERROR naming the field,
// the handler's error kept for the log.
func TestSuccessStaysSuccess(t *testing.T) {
	successes := []map[string]any{
		{"count": "5", "loud": "true"},
		{"count": "5"},
		{"count": 5, "loud": "false"},
		{"count": 2, "loud": true, "extra": "kept"},
	}
	bare := inProcess(t, looseServer(t, viaBare, nil), mcp.LATEST_PROTOCOL_VERSION)
	for _, way := range allWays {
		t.Run(way, func(t *testing.T) {
			var log adaptertest.Log
			c := inProcess(t, looseServer(t, way, &log), mcp.LATEST_PROTOCOL_VERSION)
			log.Records(t)
			for _, args := range successes {
				got, want := call(t, c, "repeat", args), call(t, bare, "repeat", args)
				if got.ProtocolErr != nil || got.IsError || string(got.Raw) != string(want.Raw) {
					t.Errorf("%v: got %s %v, the bare SDK answers %s", args, got.Raw, got.ProtocolErr, want.Raw)
				}
			}
			if recs := log.Records(t); len(recs) != 0 {
				t.Errorf("successful calls were logged: %v", recs)
			}
			adaptertest.Check(t, adaptertest.Case{Tool: "repeat", Want: adaptertest.Expect{IsError: true, Code: codes.ValidationError,
				Text: "Validation failed for count: must be integer, not string", Fields: []string{"count"}, Logged: 1,
				LogContains: []string{"repeat: cannot read count " + adaptertest.Canary}}},
				call(t, c, "repeat", map[string]any{"count": adaptertest.Canary}), log.Records(t))
			adaptertest.Check(t, adaptertest.Case{Tool: "repeat", Want: adaptertest.Expect{IsError: true, Code: codes.ValidationError,
				Text: "Validation failed for count: must be at least 1", Fields: []string{"count"}, Logged: 1}},
				call(t, c, "repeat", map[string]any{"count": 0}), log.Records(t))
		})
	}
}

// looseServer returns a server with looseTool, put in place the way way
// says, logging into log.
func looseServer(t *testing.T, way string, log *adaptertest.Log) *server.MCPServer {
	t.Helper()
	s := server.NewMCPServer("loose", "1.0.0")
	switch way {
	case viaBare:
	case viaWrapAlone:
		useDefaultLogger(t, log.Logger())
	default:
		if err := mcpgo.Install(s, testPipeline(log.Logger())); err != nil {
			t.Fatal(err)
		}
	}
	switch way {
	case viaWrap, viaWrapAlone:
		s.AddTool(looseTool, mcpgo.Wrap(loose))
	case viaAddTool:
		if err := mcpgo.AddTool(s, looseTool, loose); err != nil {
			t.Fatal(err)
		}
	default:
		s.AddTool(looseTool, loose)
	}
	return s
}

// TestSuccessUntouched checks that a successful call's result is, byte for
// byte, what the bare SDK returns, whichever way mcperr is in place.
func TestSuccessUntouched(t *testing.T) {
	type args struct {
		N int `json:"n"`
	}
	type out struct {
		Double int `json:"double"`
	}
	typed := mcp.NewTypedToolHandler(func(_ context.Context, _ mcp.CallToolRequest, a args) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(fmt.Sprint(a.N)), nil
	})
	double := func(_ context.Context, _ mcp.CallToolRequest, a args) (out, error) { return out{a.N * 2}, nil }
	calls := []struct {
		tool string
		args map[string]any
	}{{"ok", nil}, {"divide", map[string]any{"a": 6, "b": 3}}, {"with_output", nil}, {"typed", map[string]any{"n": 4}}, {"structured", map[string]any{"n": 4}}}
	results := func(t *testing.T, way, proto string) [][]byte {
		s, err := tableServer(way, testPipeline(new(adaptertest.Log).Logger()))
		if err != nil {
			t.Fatal(err)
		}
		typedDef := mcp.NewTool("typed", mcp.WithNumber("n"))
		structuredDef := mcp.NewTool("structured", mcp.WithNumber("n"), mcp.WithOutputSchema[out]())
		switch way {
		case viaWrap, viaWrapAlone:
			s.AddTool(typedDef, mcpgo.Wrap(typed))
			s.AddTool(structuredDef, mcpgo.Wrap(mcpgo.Structured(double)))
		case viaAddTool:
			if err := mcpgo.AddTool(s, typedDef, typed); err != nil {
				t.Fatal(err)
			}
			if err := mcpgo.AddTool(s, structuredDef, mcpgo.Structured(double)); err != nil {
				t.Fatal(err)
			}
		case viaInstall:
			s.AddTool(typedDef, typed)
			s.AddTool(structuredDef, mcpgo.Structured(double))
		default:
			s.AddTool(typedDef, typed)
			s.AddTool(structuredDef, mcp.NewStructuredToolHandler(double))
		}
		c := inProcess(t, s, proto)
		var out [][]byte
		for _, k := range calls {
			r := call(t, c, k.tool, k.args)
			if r.ProtocolErr != nil || r.IsError {
				t.Fatalf("%s failed: %v %s", k.tool, r.ProtocolErr, r.Raw)
			}
			out = append(out, r.Raw)
		}
		return out
	}
	for _, proto := range protocols {
		bare := results(t, viaBare, proto)
		for _, way := range allWays {
			got := results(t, way, proto)
			for i := range calls {
				if string(got[i]) != string(bare[i]) {
					t.Errorf("%s/%s: %s returned\n%s\nthe bare SDK returns\n%s", way, proto, calls[i].tool, got[i], bare[i])
				}
			}
		}
	}
}
