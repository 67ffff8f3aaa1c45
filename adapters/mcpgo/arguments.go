package mcpgo

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/internal/inputschema"
	"github.com/mcperr/mcperr/toolerr"
)

// checkArguments checks the arguments of req against s. It returns nil when
// they fit.
func checkArguments(s *inputschema.Schema, req *mcp.CallToolRequest) *domain.Validation {
	switch args := req.Params.Arguments.(type) {
	case nil, map[string]any, []any, string, float64, bool, json.Number:
		return s.Check(args) // as decoded from the request
	case json.RawMessage:
		return s.CheckJSON(args)
	}
	if len(req.Params.RawArguments) > 0 {
		return s.CheckJSON(req.Params.RawArguments)
	}
	doc, err := json.Marshal(req.Params.Arguments)
	if err != nil {
		return &domain.Validation{Violations: []domain.Violation{{Constraint: "The arguments must be a JSON object."}}}
	}
	return s.CheckJSON(doc)
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

// schemaCache holds the compiled input schema of each tool, by name, and
// notices when a tool is registered again with another schema. The zero
// schemaCache is ready to use and safe for concurrent use.
type schemaCache struct {
	mu     sync.RWMutex
	byName map[string]*cachedSchema
	docs   inputschema.Cache
}

// cachedSchema is the input schema of one tool as it was compiled.
type cachedSchema struct {
	raw    json.RawMessage     // the tool's RawInputSchema, when it has one
	input  mcp.ToolInputSchema // the tool's InputSchema otherwise
	schema *inputschema.Schema // nil: nothing to check
}

// get returns the compiled input schema of tool, compiling it on first use,
// or nil if the schema is empty or does not compile; the SDK's own
// validator skips such tools too. A hit costs a map lookup and a comparison
// that stops early on the maps and slices of the registered tool, and
// allocates nothing.
func (c *schemaCache) get(tool *mcp.Tool) *inputschema.Schema {
	c.mu.RLock()
	e := c.byName[tool.Name]
	c.mu.RUnlock()
	if e != nil && e.describes(tool) {
		return e.schema
	}
	e = &cachedSchema{raw: bytes.Clone(tool.RawInputSchema), input: tool.InputSchema}
	if doc, err := inputSchemaDoc(tool); err == nil && doc != nil {
		e.schema, _ = c.docs.Get(doc)
	}
	c.mu.Lock()
	if c.byName == nil {
		c.byName = make(map[string]*cachedSchema)
	}
	c.byName[tool.Name] = e
	c.mu.Unlock()
	return e.schema
}

// describes reports whether e was compiled from the input schema of tool.
func (e *cachedSchema) describes(tool *mcp.Tool) bool {
	if len(tool.RawInputSchema) > 0 {
		return bytes.Equal(e.raw, tool.RawInputSchema)
	}
	return e.raw == nil && reflect.DeepEqual(&e.input, &tool.InputSchema)
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

// compileInputSchema compiles the input schema of a tool added with
// AddTool, refusing one that the server could not check arguments against.
func compileInputSchema(tool *mcp.Tool) (*inputschema.Schema, error) {
	invalid := func(reason string) error {
		return &toolerr.DefinitionError{Code: codes.InvalidSchema, Subject: tool.Name, Reason: reason}
	}
	doc, err := inputSchemaDoc(tool)
	if err != nil {
		return nil, invalid("the input schema does not marshal to JSON: " + err.Error())
	}
	var root struct {
		Type any `json:"type"`
	}
	if doc == nil || json.Unmarshal(doc, &root) != nil || root.Type != "object" {
		return nil, invalid(`the input schema must be a JSON object with "type": "object"; mcp.NewTool makes one`)
	}
	s, err := inputschema.Compile(doc)
	if err != nil {
		return nil, invalid(err.Error())
	}
	return s, nil
}
