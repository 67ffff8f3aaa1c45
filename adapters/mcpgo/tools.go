package mcpgo

import (
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/internal/bind"
	"github.com/mcperr/mcperr/internal/toolname"
)

// AddTool adds a tool to s, like (*server.MCPServer).AddTool, with the
// whole mcperr contract: it is the drop-in replacement for that one line,
// on a server where Install was called first.
//
//	if err := mcpgo.AddTool(s, tool, h, mcpgo.WithFilters(f)); err != nil {
//		log.Fatal(err) // a definition error: what to fix
//	}
//
// Errors and panics of h are mapped and logged once, with the filters
// given by WithFilters before the global ones, and every error result
// carries the envelope; a failure of a call whose arguments do not fit the
// tool's input schema is a VALIDATION_ERROR.
//
// AddTool returns a *codes.DefinitionError, and adds nothing, if s is nil,
// Install was not called on s (codes.NotInstalled), the tool's name is not
// a valid MCP tool name (codes.InvalidToolName), s has a tool of that name
// already, however it was added (codes.DuplicateTool), h or a filter is
// nil (codes.NilValue, codes.NilValue), or the tool carries x-mcp-header
// annotations the SDK refuses (codes.InvalidSchema). The SDK alone
// registers any name and silently replaces a tool added twice.
func AddTool(s *server.MCPServer, tool mcp.Tool, h server.ToolHandlerFunc, opts ...Option) error {
	if s == nil {
		return &codes.DefinitionError{Mistake: codes.NilValue, Reason: "AddTool needs the *server.MCPServer to add the tool to"}
	}
	st := servers.Load(s)
	if st == nil {
		return bind.NotInstalled("mcpgo", "AddTool")
	}
	if err := toolname.Check(tool.Name); err != nil {
		return err
	}
	if h == nil {
		return &codes.DefinitionError{Mistake: codes.NilValue, Subject: tool.Name, Reason: "the tool has no handler; pass the function that implements it"}
	}
	c, err := newConfig("AddTool", opts)
	if err != nil {
		return err
	}
	if err := mcp.ValidateParamHeaderAnnotations(&tool); err != nil {
		return &codes.DefinitionError{Mistake: codes.InvalidSchema, Subject: tool.Name, Reason: err.Error()}
	}
	if err := st.checkInputSchema(&tool); err != nil {
		return err
	}
	// The server is the one list of its tools, those added with s.AddTool
	// included, and a deleted tool's name is free again.
	st.adding.Lock()
	defer st.adding.Unlock()
	if s.GetTool(tool.Name) != nil {
		return &codes.DefinitionError{Mistake: codes.DuplicateTool, Subject: tool.Name,
			Reason: "a tool with this name is already registered on this server; give each tool its own name"}
	}
	// The handler is registered as it is: the middleware of Install handles
	// its failures, with the options recorded here.
	if err := register(s, tool, h); err != nil {
		return err
	}
	st.added.Store(tool.Name, &c)
	if c.settings.ArgumentCheck == 2 {
		st.someChecks.Store(true)
	}
	return nil
}

// register adds tool to s, turning the SDK's panic for a name that a task
// tool has into a definition error. The SDK panics before it registers
// anything.
func register(s *server.MCPServer, tool mcp.Tool, h server.ToolHandlerFunc) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &codes.DefinitionError{Mistake: codes.DuplicateTool, Subject: tool.Name, Reason: fmt.Sprint(v)}
		}
	}()
	s.AddTool(tool, h)
	return nil
}
