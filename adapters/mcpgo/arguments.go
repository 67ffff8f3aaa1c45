package mcpgo

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/domain"
)

// classify returns err, or, when the arguments of req do not fit the input
// schema of the tool as the server has it registered, the Validation that
// says how, with err kept for the log: the failure is the client's. It
// runs on the failure path only.
func (st *serverState) classify(ctx context.Context, req *mcp.CallToolRequest, err error) error {
	t := registeredTool(ctx, req.Params.Name)
	if t == nil {
		return err
	}
	doc, merr := inputSchemaDoc(&t.Tool)
	if merr != nil || doc == nil {
		return err
	}
	s, cerr := st.schemas.Get(doc)
	if cerr != nil {
		return err // a schema that does not compile checks nothing, as in the SDK's own validator
	}
	var v *domain.Validation
	switch args := req.Params.Arguments.(type) {
	case nil, map[string]any, []any, string, float64, bool, json.Number:
		v = s.Check(args) // as decoded from the request
	case json.RawMessage:
		v = s.CheckJSON(args)
	default:
		b, merr := json.Marshal(args)
		if merr != nil {
			return err
		}
		v = s.CheckJSON(b)
	}
	if v == nil {
		return err
	}
	return &refused{v: v, err: err}
}

// refused is a failure of a call whose arguments do not fit the tool's
// schema: the Validation that says how, which the client reads, and the
// error the call failed with, which the log keeps.
type refused struct {
	v   *domain.Validation
	err error
}

func (r *refused) Error() string   { return r.v.Error() + " (failed with: " + r.err.Error() + ")" }
func (r *refused) Unwrap() []error { return []error{r.v, r.err} }

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
