package mcpgo

import (
	"fmt"
	"reflect"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/toolerr"
)

// AddTool adds a tool to s, like (*server.MCPServer).AddTool, with the whole
// mcperr contract: it is the drop-in replacement for that one line.
//
//	if err := mcpgo.AddTool(s, tool, h, mcpgo.WithFilters(f)); err != nil {
//		log.Fatal(err) // a definition error: what to fix
//	}
//
// The tool runs with the configuration Install gave s; if Install was not
// called, AddTool installs mcperr on s with the default configuration, so
// that a later Install is refused. Errors and panics of h are mapped and
// logged once, with the filters given by WithFilters before the global
// ones, and every error result carries the envelope and hint blocks.
//
// Unless WithoutArgumentCheck is given, here or to Install, the wrapped
// handler checks each call's arguments against the tool's input schema,
// compiled here once, and answers VALIDATION_ERROR without calling h when
// they do not fit. If the server sets additionalProperties to false on the
// schema, as server.WithStrictInputSchemaDefault makes it do, the check
// follows the schema as registered. Do not combine the check with
// server.WithInputSchemaValidation, which answers first, in its own words.
//
// AddTool returns a *toolerr.DefinitionError, and adds nothing, if s is nil
// or WithRequestIDs is given (codes.InvalidOption: request ids go to
// Install), the tool's name is not a valid MCP tool name
// (codes.InvalidToolName), s has a tool of that name already, however it
// was added (codes.DuplicateTool), h or a filter is nil (codes.NilHandler,
// codes.NilFilter), or the input schema is not an object schema that
// compiles, or carries x-mcp-header annotations the SDK refuses
// (codes.InvalidSchema). The SDK alone registers any name and silently
// replaces a tool added twice.
func AddTool(s *server.MCPServer, tool mcp.Tool, h server.ToolHandlerFunc, opts ...Option) error {
	c, err := checkTool("AddTool", s, &tool, h == nil, opts)
	if err != nil {
		return err
	}
	check := !c.noCheck
	if st := servers.Load(s); st != nil && st.noCheck {
		check = false
	}
	w := &wrapper{next: h, filters: c.filters, noCheck: c.noCheck, fixed: true}
	if check {
		schema, err := compileInputSchema(&tool)
		if err != nil {
			return err
		}
		w.schema.Store(schema)
	}
	if err := mcp.ValidateParamHeaderAnnotations(&tool); err != nil {
		return &toolerr.DefinitionError{Code: codes.InvalidSchema, Subject: tool.Name, Reason: err.Error()}
	}
	if s.GetTool(tool.Name) != nil {
		return duplicate(tool.Name)
	}
	st, err := ensure(s)
	if err != nil {
		return err
	}
	// The server is the one list of its tools, those added with s.AddTool
	// included, and a deleted tool's name is free again.
	st.adding.Lock()
	defer st.adding.Unlock()
	if s.GetTool(tool.Name) != nil {
		return duplicate(tool.Name)
	}
	w.st = st
	if err := register(s, tool, w.handle); err != nil {
		return err
	}
	if check {
		w.followRegistered(s, &tool)
	}
	return nil
}

// checkTool refuses a nil server, an invalid name, a nil handler and bad
// options, and returns the tool's configuration.
func checkTool(fn string, s *server.MCPServer, tool *mcp.Tool, nilHandler bool, opts []Option) (config, error) {
	if s == nil {
		return config{}, invalidOption(fn + " needs the *server.MCPServer to add the tool to")
	}
	if err := toolerr.CheckToolName(tool.Name); err != nil {
		return config{}, err
	}
	if nilHandler {
		return config{}, &toolerr.DefinitionError{Code: codes.NilHandler, Subject: tool.Name, Reason: "the tool has no handler; pass the function that implements it"}
	}
	return toolConfig(fn, opts)
}

// register adds tool to s, turning the SDK's panic for a name that a task
// tool has into a definition error. The SDK panics before it registers
// anything.
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
	t := s.GetTool(defined.Name)
	if t == nil || reflect.DeepEqual(&t.Tool.InputSchema, &defined.InputSchema) {
		return
	}
	if schema, err := compileInputSchema(&t.Tool); err == nil {
		w.schema.Store(schema)
	}
}

// duplicate is the definition error of a tool the server has already.
func duplicate(name string) error {
	return &toolerr.DefinitionError{Code: codes.DuplicateTool, Subject: name,
		Reason: "a tool with this name is already registered on this server; give each tool its own name"}
}
