package mcpgo

import (
	"context"
	"encoding/json"
	"reflect"
	"sync"
	"unsafe"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/internal/inputschema"
)

// checkArguments returns how the arguments of req do not fit the input
// schema of the tool the server runs for it, or nil if they fit or there is
// no schema to check.
func (st *serverState) checkArguments(ctx context.Context, req *mcp.CallToolRequest) *domain.Validation {
	if t := registeredTool(ctx, req.Params.Name); t != nil {
		return st.check(st.compiled(&t.Tool), req)
	}
	return nil
}

// check returns how the arguments of req do not fit ts, or nil.
func (st *serverState) check(ts *toolSchema, req *mcp.CallToolRequest) *domain.Validation {
	s := ts.s
	if s == nil {
		return nil
	}
	switch args := req.Params.Arguments.(type) {
	case nil, map[string]any, []any, string, float64, bool, json.Number:
		return s.Check(args) // as decoded from the request
	case json.RawMessage:
		return s.CheckJSON(args)
	default:
		b, err := json.Marshal(args)
		if err != nil {
			return nil
		}
		return s.CheckJSON(b)
	}
}

// registeredTool returns the tool the server in ctx runs for a call to
// name, found as the SDK finds it: the session's tools first.
func registeredTool(ctx context.Context, name string) *server.ServerTool {
	if s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithTools); ok {
		if st, ok := s.GetSessionTools()[name]; ok {
			return &st
		}
	}
	if srv := server.ServerFromContext(ctx); srv != nil {
		return srv.GetTool(name)
	}
	return nil
}

// compiled returns the input schema of tool, compiled on first use: for the
// check of inputschema, nil if it has none or it does not compile (as in
// the SDK's validator), and for the SDK's own validator (refused). The
// SDK's copies of a tool share the schema's maps and slices, so one made of
// the same ones as last time is not encoded again (the pointers kept pin
// their memory).
func (st *serverState) compiled(tool *mcp.Tool) *toolSchema {
	in := &tool.InputSchema
	id := schemaID{
		unsafe.SliceData(tool.RawInputSchema), len(tool.RawInputSchema),
		reflect.ValueOf(in.Defs).UnsafePointer(), reflect.ValueOf(in.Properties).UnsafePointer(),
		unsafe.SliceData(in.Required), len(in.Required), in.Type, in.AdditionalProperties,
	}
	if m, ok := id.additional.(map[string]any); ok {
		id.additional = reflect.ValueOf(m).UnsafePointer()
	}
	known := reflect.TypeOf(id.additional) == nil || reflect.TypeOf(id.additional).Comparable()
	if e, ok := st.byTool.Load(tool.Name); ok && known && e.(*toolSchema).id == id {
		return e.(*toolSchema)
	}
	ts := &toolSchema{id: id}
	if doc, err := inputSchemaDoc(tool); err == nil && doc != nil {
		ts.doc = doc
		ts.s, _ = st.schemas.Get(doc)
	}
	if known {
		st.byTool.Store(tool.Name, ts)
	}
	return ts
}

// schemaID identifies an input schema by the maps and slices it is made of.
type schemaID struct {
	raw              *byte
	rawLen           int
	defs, properties unsafe.Pointer
	required         *string
	requiredLen      int
	typ              string
	additional       any // a comparable value, or the pointer of a map
}

// toolSchema is the input schema last seen under a tool's name, compiled.
type toolSchema struct {
	id  schemaID
	doc []byte
	s   *inputschema.Schema

	once sync.Once
	sdk  *jsonschema.Schema // as the SDK's validator compiles doc
}

// inputSchemaDoc returns the JSON of the input schema of tool as the SDK's
// validator reads it: RawInputSchema if set, else InputSchema, nil if empty.
func inputSchemaDoc(tool *mcp.Tool) ([]byte, error) {
	if len(tool.RawInputSchema) > 0 {
		return tool.RawInputSchema, nil
	}
	in := &tool.InputSchema
	if in.Type == "" && len(in.Properties) == 0 && len(in.Required) == 0 && in.AdditionalProperties == nil {
		return nil, nil
	}
	return json.Marshal(in)
}

// checkInputSchema refuses an input schema that is not a JSON object schema
// or does not compile; compiled into st's cache, it costs a failure nothing.
func (st *serverState) checkInputSchema(tool *mcp.Tool) error {
	doc, err := inputSchemaDoc(tool)
	if err != nil {
		return &codes.DefinitionError{Mistake: codes.InvalidSchema, Subject: tool.Name, Reason: "the input schema does not marshal to JSON: " + err.Error()}
	}
	if doc == nil {
		return nil
	}
	var root struct {
		Type any `json:"type"`
	}
	if json.Unmarshal(doc, &root) != nil || root.Type != "object" {
		return &codes.DefinitionError{Mistake: codes.InvalidSchema, Subject: tool.Name, Reason: `the input schema must be a JSON object with "type": "object"; mcp.NewTool makes one`}
	}
	if _, err := st.schemas.Get(doc); err != nil {
		return &codes.DefinitionError{Mistake: codes.InvalidSchema, Subject: tool.Name, Reason: err.Error()}
	}
	return nil
}
