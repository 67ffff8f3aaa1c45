package gosdk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

// pairSchema is the input schema of the raw tool "pair": two numbers, and
// nothing else.
var pairSchema = json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"],"additionalProperties":false}`)

// pairHandler is the raw handler of "pair". It never looks at the schema:
// it fails when b is "fail" or 0, panics when b is "panic", and otherwise
// succeeds, echoing its arguments, whether they fit the schema or not.
func pairHandler(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args map[string]any
	_ = json.Unmarshal(req.Params.Arguments, &args)
	switch args["b"] {
	case "fail":
		return nil, errors.New("pair: b is not a number: " + adaptertest.Canary)
	case 0.0:
		return nil, errors.New("pair: division by zero: " + adaptertest.Canary)
	case "panic":
		panic("pair: " + adaptertest.Canary)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "pair of " + string(req.Params.Arguments)}}}, nil
}

// TestArgumentsCheckedOnlyOnFailure checks that a raw tool added with
// AddRawTool is handed every call's arguments, as the SDK hands them: a
// call that succeeds with arguments that do not fit the schema is answered
// with its success, byte for byte as the SDK alone answers it. Only a call
// that fails has its arguments checked: arguments that do not fit give
// VALIDATION_ERROR naming the fields, with the handler's own error kept in
// the log; arguments that fit give the handler's error. A panic is never a
// VALIDATION_ERROR.
func TestArgumentsCheckedOnlyOnFailure(t *testing.T) {
	ctx := context.Background()
	for _, proto := range protocols {
		t.Run(proto.name, func(t *testing.T) {
			bareServer := mcp.NewServer(&mcp.Implementation{Name: "args", Version: "1.0.0"}, nil)
			bareServer.AddTool(&mcp.Tool{Name: "pair", InputSchema: pairSchema}, pairHandler)
			bareCS := connect(t, bareServer, proto.version)

			var log adaptertest.Log
			s := mcp.NewServer(&mcp.Implementation{Name: "args", Version: "1.0.0"}, nil)
			must(t, gosdk.Install(s, newPipeline(t, &log)))
			must(t, gosdk.AddRawTool(s, &mcp.Tool{Name: "pair", InputSchema: pairSchema}, pairHandler))
			cs := connect(t, s, proto.version)

			// Successes, on arguments that fit and on arguments that do not.
			for _, args := range []map[string]any{
				{"a": 1, "b": 2},
				{"a": 1},
				{"a": "one", "b": "two"},
				{"a": 1, "b": 2, "c": 3},
			} {
				want, _ := call(ctx, bareCS, adaptertest.Case{Tool: "pair", Args: args})
				got, _ := call(ctx, cs, adaptertest.Case{Tool: "pair", Args: args})
				if want.ProtocolErr != nil || want.IsError {
					t.Fatalf("%v: the SDK alone answered %s %v; the test expects a success", args, want.Raw, want.ProtocolErr)
				}
				if got.ProtocolErr != nil || !bytes.Equal(got.Raw, want.Raw) {
					t.Errorf("%v: with mcperr the client got\n%s %v\nthe SDK alone sends\n%s", args, got.Raw, got.ProtocolErr, want.Raw)
				}
			}
			if recs := log.Records(t); len(recs) != 0 {
				t.Errorf("successful calls wrote log records: %v", recs)
			}

			// Failures.
			for _, tt := range []struct {
				args   map[string]any
				code   codes.Code
				text   string
				fields []string
				level  string
			}{
				{map[string]any{"a": 1, "b": "fail"}, codes.ValidationError, "Validation failed for b: must be number, not string", []string{"b"}, "INFO"},
				{map[string]any{"b": "fail", "token": adaptertest.Canary}, codes.ValidationError,
					"Validation failed: a: is required; b: must be number, not string; token: is not a known property; remove it", []string{"a", "b", "token"}, "INFO"},
				{map[string]any{"a": 1, "b": 0}, codes.InternalError, `Internal error in tool "pair" (ref: {ref}).`, nil, "ERROR"},
				{map[string]any{"a": 1, "b": "panic"}, codes.InternalError, `Internal error in tool "pair" (ref: {ref}).`, nil, "ERROR"},
			} {
				r, _ := call(ctx, cs, adaptertest.Case{Tool: "pair", Args: tt.args})
				recs := log.Records(t)
				if r.ProtocolErr != nil || !r.IsError {
					t.Errorf("%v: got %s %v, want an error result", tt.args, r.Raw, r.ProtocolErr)
					continue
				}
				env := r.Envelope()
				ref, _ := env["ref"].(string)
				if want := strings.ReplaceAll(tt.text, "{ref}", ref); env["code"] != string(tt.code) || len(r.Texts) == 0 || r.Texts[0] != want {
					t.Errorf("%v: code %v, texts %q; want %s, %q", tt.args, env["code"], r.Texts, tt.code, want)
				}
				if got := violatedFields(env); strings.Join(got, ",") != strings.Join(tt.fields, ",") {
					t.Errorf("%v: violations name %v, want %v", tt.args, got, tt.fields)
				}
				if bytes.Contains(r.Raw, []byte(adaptertest.Canary)) || bytes.Contains(r.Raw, []byte(`"two"`)) {
					t.Errorf("%v: a secret or a value reached the client: %s", tt.args, r.Raw)
				}
				if len(recs) != 1 || recs[0]["level"] != tt.level || recs[0]["code"] != string(tt.code) {
					t.Errorf("%v: records %v, want one %s record of %s", tt.args, recs, tt.level, tt.code)
					continue
				}
				if rec, _ := json.Marshal(recs[0]); !bytes.Contains(rec, []byte("pair: ")) {
					t.Errorf("%v: the record lost the handler's own error: %s", tt.args, rec)
				}
				if tt.level == "ERROR" && (ref == "" || recs[0]["ref"] != ref) {
					t.Errorf("%v: the record's ref %v is not the client's %q", tt.args, recs[0]["ref"], ref)
				}
			}
		})
	}
}

// violatedFields returns the fields named by the violations of an
// envelope's details, in order.
func violatedFields(env map[string]any) []string {
	details, _ := env["details"].(map[string]any)
	vs, _ := details["violations"].([]any)
	var fields []string
	for _, v := range vs {
		m, _ := v.(map[string]any)
		f, _ := m["field"].(string)
		fields = append(fields, f)
	}
	return fields
}

// connectUnlisted connects a new client to s over in-memory transports and
// never lists the tools.
func connectUnlisted(t testing.TB, s *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	must(t, err)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0.0"}, nil).Connect(ctx, ct, nil)
	must(t, err)
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

// TestTypedArgumentsRefused checks that arguments the SDK refuses for a
// typed tool, before its handler runs, reach the client as a
// VALIDATION_ERROR naming the field and never its value: for a tool the
// client listed, however it was added, and for a tool added with AddTool
// even when the client did not list the tools.
func TestTypedArgumentsRefused(t *testing.T) {
	ctx := context.Background()
	ran := 0
	ship := func(context.Context, *mcp.CallToolRequest, order) (*mcp.CallToolResult, any, error) {
		ran++
		return nil, nil, errors.New("unreachable")
	}
	var log adaptertest.Log
	s := mcp.NewServer(&mcp.Implementation{Name: "typed", Version: "1.0.0"}, nil)
	must(t, gosdk.Install(s, newPipeline(t, &log)))
	mcp.AddTool(s, &mcp.Tool{Name: "sdk"}, ship)
	mcp.AddTool(s, &mcp.Tool{Name: "wrapped"}, gosdk.Wrap(ship))
	must(t, gosdk.AddTool(s, &mcp.Tool{Name: "added"}, ship))

	bad := map[string]any{"id": "o1", "count": adaptertest.Canary}
	for _, tc := range []struct {
		name   string
		cs     *mcp.ClientSession
		tools  []string
		listed bool
	}{
		{"listed", connect(t, s, ""), []string{"sdk", "wrapped", "added"}, true},
		{"not listed", connectUnlisted(t, s), []string{"added", "sdk", "wrapped"}, false},
	} {
		for _, tool := range tc.tools {
			r, _ := call(ctx, tc.cs, adaptertest.Case{Tool: tool, Args: bad})
			recs := log.Records(t)
			env := r.Envelope()
			if r.ProtocolErr != nil || !r.IsError || env["code"] != string(codes.ValidationError) ||
				len(r.Texts) == 0 || r.Texts[0] != "Validation failed for count: must be integer, not string" {
				t.Errorf("%s/%s: got %s %v, want VALIDATION_ERROR for count", tc.name, tool, r.Raw, r.ProtocolErr)
			}
			if bytes.Contains(r.Raw, []byte(adaptertest.Canary)) {
				t.Errorf("%s/%s: the value reached the client: %s", tc.name, tool, r.Raw)
			}
			if len(recs) != 1 || recs[0]["level"] != "INFO" || recs[0]["code"] != string(codes.ValidationError) {
				t.Errorf("%s/%s: records %v, want one VALIDATION_ERROR record below error level", tc.name, tool, recs)
			}
		}
	}
	if ran != 0 {
		t.Errorf("the handler ran %d times for arguments the SDK refused", ran)
	}
}
