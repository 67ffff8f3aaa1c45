package mcpgo

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
)

// afterCallTool answers the SDK's refusal of arguments
// (server.WithInputSchemaValidation), made before any middleware with the
// validator's text, which can hold the refused value: an error result
// without mcperr's envelope of a call whose arguments the SDK's validator
// refuses, on a server where no handler ever ran with such arguments. It
// fills the SDK's own result in place, the one thing a hook can change.
func (st *serverState) afterCallTool(ctx context.Context, _ any, req *mcp.CallToolRequest, result any) {
	res, ok := result.(*mcp.CallToolResult)
	if !ok || res == nil || !res.IsError || req == nil || hasEnvelope(res) || st.unchecked.Load() {
		return // a success costs a type assertion
	}
	defer func() { _ = recover() }() // outside every middleware: never take the server down
	t := registeredTool(ctx, req.Params.Name)
	if t == nil || server.ServerFromContext(ctx) != st.self.Value() {
		return
	}
	// Arguments that the check finds do not fit cannot have reached a
	// handler of this server, whose SDK checks them: the result is its
	// refusal. Where the check finds nothing, the SDK's validator decides.
	ts := st.compiled(&t.Tool)
	v := st.check(ts, req)
	if v == nil {
		if !st.refusedBy(ts, req) {
			return
		}
		v = domain.NewValidation("", nil, "The arguments do not fit the tool's input schema; check them against it.")
	}
	var opts []filter.ToolOption
	if o, ok := st.added.Load(req.Params.Name); ok {
		opts = o.([]filter.ToolOption)
	}
	_, f, _ := filter.Serve(ctx, st.p, callOf(ctx, req), opts, filter.Handler[*mcp.CallToolResult]{
		Run: func(context.Context) (*mcp.CallToolResult, error) { return nil, v }})
	if f != nil {
		*res = *errorResult(f)
	}
}

func hasEnvelope(res *mcp.CallToolResult) bool {
	return res.Meta != nil && res.Meta.AdditionalFields[filter.MetaKey] != nil
}

// sawArguments learns, from a call whose handler ran and gave an error
// result, whether the SDK checks arguments: if the SDK's validator refuses
// the call's, it does not, and no error result of this server is a refusal.
// The validator is asked only where the check finds they do not fit, so
// that a result passed as built costs little more than a success.
func (st *serverState) sawArguments(ctx context.Context, req *mcp.CallToolRequest) {
	if st.unchecked.Load() {
		return
	}
	if t := registeredTool(ctx, req.Params.Name); t != nil {
		if ts := st.compiled(&t.Tool); st.check(ts, req) != nil && st.refusedBy(ts, req) {
			st.unchecked.Store(true)
		}
	}
}

// refusedBy reports whether the validator of server.WithInputSchemaValidation,
// the same engine with the same schema and the same reading of the
// arguments, refuses the arguments of req.
func (st *serverState) refusedBy(ts *toolSchema, req *mcp.CallToolRequest) bool {
	ts.once.Do(func() {
		c := jsonschema.NewCompiler()
		if d, err := jsonschema.UnmarshalJSON(bytes.NewReader(ts.doc)); ts.doc != nil && err == nil && c.AddResource("mem:///input-schema.json", d) == nil {
			ts.sdk, _ = c.Compile("mem:///input-schema.json")
		}
	})
	if ts.sdk == nil {
		return false // the SDK skips a schema that does not compile
	}
	var value any = map[string]any{}
	var err error
	switch args := req.Params.Arguments.(type) {
	case nil:
	case json.RawMessage:
		if len(bytes.TrimSpace(args)) > 0 {
			value, err = jsonschema.UnmarshalJSON(bytes.NewReader(args))
		}
	default:
		var b []byte
		if b, err = json.Marshal(args); err == nil {
			value, err = jsonschema.UnmarshalJSON(bytes.NewReader(b))
		}
	}
	return err != nil || ts.sdk.Validate(value) != nil
}
