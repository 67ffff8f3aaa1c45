package mcpgo

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
)

// checkArguments returns how the arguments of req do not fit the input
// schema of the tool as the server has it registered, a *domain.Validation,
// or nil if they fit or there is no schema to check. It runs on the
// failure path only.
func (st *serverState) checkArguments(ctx context.Context, req *mcp.CallToolRequest) error {
	t := registeredTool(ctx, req.Params.Name)
	if t == nil {
		return nil
	}
	doc, err := inputSchemaDoc(&t.Tool)
	if err != nil || doc == nil {
		return nil
	}
	s, err := st.schemas.Get(doc)
	if err != nil {
		return nil // a schema that does not compile checks nothing, as in the SDK's own validator
	}
	var v *domain.Validation
	switch args := req.Params.Arguments.(type) {
	case nil, map[string]any, []any, string, float64, bool, json.Number:
		v = s.Check(args) // as decoded from the request
	case json.RawMessage:
		v = s.CheckJSON(args)
	default:
		b, err := json.Marshal(args)
		if err != nil {
			return nil
		}
		v = s.CheckJSON(b)
	}
	if v == nil {
		return nil
	}
	return v
}

// registeredTool returns the tool that the server in ctx runs for a call to
// name, found as the SDK finds it: among the session's own tools first, then
// among the server's.
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

// inputSchemaDoc returns the JSON of the input schema of tool, read as the
// SDK's own validator reads it: RawInputSchema when set, InputSchema
// otherwise, nil when that is empty.
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

// checkInputSchema refuses an input schema that classify could not use: one
// that is not a JSON object schema, or does not compile. It compiles the
// schema into st's cache, so that the first failure pays nothing for it.
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
