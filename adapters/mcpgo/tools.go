package mcpgo

import (
	"fmt"
	"reflect"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/toolerr"
)

// Tools adds tools to one server, each wrapped as Wrap does, and refuses a
// bad definition with a *toolerr.DefinitionError instead of registering it:
// a tool name the MCP specification does not allow, a tool the server
// already has, a nil handler or filter, an input schema the arguments cannot
// be checked against. The SDK alone registers any name and silently replaces
// a tool added twice. Make one with NewTools. A Tools is safe for concurrent
// use.
type Tools struct {
	server *server.MCPServer
	cfg    config
	names  toolerr.ToolNames
}

// NewTools returns a Tools that adds tools to s, configured by opts. Filters
// given with WithFilters run for every tool added through it, after each
// tool's own. NewTools does not install Middleware: install it as well to
// handle the tools added to s in other ways.
//
// NewTools returns a *toolerr.DefinitionError if s or a filter is nil, or if
// WithRequestIDs was given nil hooks.
func NewTools(s *server.MCPServer, opts ...Option) (*Tools, error) {
	if s == nil {
		return nil, &toolerr.DefinitionError{Code: codes.InvalidOption, Reason: "NewTools needs the *server.MCPServer to add tools to"}
	}
	cfg := newConfig(opts)
	if _, err := cfg.build(); err != nil {
		return nil, err
	}
	return &Tools{server: s, cfg: cfg}, nil
}

// AddTool adds tool to the server of t, like (*server.MCPServer).AddTool,
// with h wrapped as Wrap does and the filters given by opts bound to it.
// Unless WithoutArgumentCheck is given, to AddTool or NewTools, the wrapped
// handler checks each call's arguments against the tool's input schema,
// compiled here once, and answers VALIDATION_ERROR without calling h when
// they do not fit. If the server sets additionalProperties to false on the
// schema, as server.WithStrictInputSchemaDefault makes it do, the check
// follows the schema as registered. Do not combine the check with
// server.WithInputSchemaValidation, which answers first, in its own words.
//
// AddTool returns a *toolerr.DefinitionError, and adds nothing, if the tool's
// name is not a valid MCP tool name (codes.InvalidToolName), the server has
// a tool of that name already (codes.DuplicateTool), h is nil
// (codes.NilHandler), a filter is nil (codes.NilFilter), or the input schema
// is not an object schema that compiles, or carries x-mcp-header
// annotations the SDK refuses (codes.InvalidSchema).
func (t *Tools) AddTool(tool mcp.Tool, h server.ToolHandlerFunc, opts ...Option) error {
	if err := toolerr.CheckToolName(tool.Name); err != nil {
		return err
	}
	if h == nil {
		return &toolerr.DefinitionError{Code: codes.NilHandler, Subject: tool.Name, Reason: "the tool has no handler; pass the function that implements it"}
	}
	a, err := t.cfg.over(newConfig(opts)).build()
	if err != nil {
		return err
	}
	w := &wrapper{a: a, next: h, fixed: true}
	if a.check {
		s, err := compileInputSchema(&tool)
		if err != nil {
			return err
		}
		w.schema.Store(s)
	}
	if err := mcp.ValidateParamHeaderAnnotations(&tool); err != nil {
		return &toolerr.DefinitionError{Code: codes.InvalidSchema, Subject: tool.Name, Reason: err.Error()}
	}
	if t.server.GetTool(tool.Name) != nil {
		return duplicate(tool.Name)
	}
	if err := t.names.Add(tool.Name); err != nil {
		return err
	}
	if err := register(t.server, tool, w.handle); err != nil {
		return err
	}
	if a.check {
		w.followRegistered(t.server, &tool)
	}
	return nil
}

// register adds tool to s, turning the SDK's panic for a name that a task
// tool has into a definition error.
func register(s *server.MCPServer, tool mcp.Tool, h server.ToolHandlerFunc) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &toolerr.DefinitionError{Code: codes.DuplicateTool, Subject: tool.Name, Reason: fmt.Sprint(v)}
		}
	}()
	s.AddTool(tool, h)
	return nil
}

// followRegistered recompiles the input schema of w if the server changed it
// on registration, as server.WithStrictInputSchemaDefault does.
func (w *wrapper) followRegistered(s *server.MCPServer, defined *mcp.Tool) {
	st := s.GetTool(defined.Name)
	if st == nil || reflect.DeepEqual(&st.Tool.InputSchema, &defined.InputSchema) {
		return
	}
	if schema, err := compileInputSchema(&st.Tool); err == nil {
		w.schema.Store(schema)
	}
}

// duplicate is the definition error of a tool added twice.
func duplicate(name string) error {
	return &toolerr.DefinitionError{Code: codes.DuplicateTool, Subject: name,
		Reason: "the server already has a tool with this name; give each tool its own name"}
}
