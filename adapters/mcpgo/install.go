package mcpgo

import (
	"fmt"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/bind"
	"github.com/mcperr/mcperr/internal/callctx"
	"github.com/mcperr/mcperr/internal/inputschema"
	"github.com/mcperr/mcperr/internal/toolname"
)

// servers holds the state of each server Install was called on, so that
// AddTool can refuse a server without it (see bind.Table).
var servers bind.Table[server.MCPServer, serverState]

// serverState is mcperr on one server: its one configuration and the input
// schemas compiled so far. It is safe for concurrent use.
type serverState struct {
	p *filter.Pipeline

	// checkAll says the pipeline checks every tool's arguments before its
	// handler; someChecks, that a tool added with AddTool asked for it.
	checkAll   bool
	someChecks atomic.Bool
	retries    bool     // the pipeline calls a tool again after a transient failure
	added      sync.Map // tool name -> *bind.Config, of the tools added with AddTool
	wrapped    sync.Map // tool name -> *wrapper, of the tools run through Wrap

	// self is the server, for hooks that servers may share; passed holds the
	// contexts of calls whose error result the middleware let through.
	self   weak.Pointer[server.MCPServer]
	passed sync.Map

	adding  sync.Mutex // held by AddTool from its duplicate check to the registration
	schemas inputschema.Cache
	byTool  sync.Map // tool name -> *toolSchema
}

// Install makes p the mcperr configuration of s, and installs on s the
// middleware that runs every tool call, resources/read and prompts/get
// through it (see the package doc). Call it once per server, at start-up,
// after the SDK's own middleware options, such as server.WithLogger and
// server.WithRecovery, and before AddTool:
//
//	s := server.NewMCPServer("orders", "1.0.0", server.WithRecovery())
//	p, err := filter.New(filter.WithLogger(logger))
//	...
//	if err := mcpgo.Install(s, p); err != nil {
//		log.Fatal(err)
//	}
//
// The SDK runs middleware in the order it was added, the first outermost:
// Install's, added last, turns errors into results before the SDK's
// logging middleware sees them, so that its lines never hold the raw
// error text, and recovers a panic itself, with its stack.
//
// A failed call whose arguments do not fit the tool's input schema is
// answered VALIDATION_ERROR naming each wrong field and what is wrong with
// it, never its value. Arguments are checked only when the handler fails,
// so a call the handler answers stays as it was, unless the server or the
// tool asks for the check first (filter.WithArgumentCheck,
// WithArgumentCheck). The refusal of arguments by the SDK's own
// server.WithInputSchemaValidation, made before any middleware with the
// validator's text, is answered the same way, by an after-call hook.
//
// A failed resources/read or prompts/get is answered with the message the
// pipeline chose, as -32603 without data: mcp-go offers no way to choose
// either, so the envelope is in the log only.
//
// Every successful result, a call to an unknown tool and a
// mcp.URLElicitationRequiredError returned as it is pass through
// untouched; so, by default (see filter.WithHandBuilt), does an error
// result the handler built itself, such as mcp.NewToolResultError's or
// those mcp-go's typed helpers (mcp.NewTypedToolHandler,
// mcp.NewStructuredToolHandler) build from an error or from arguments they
// could not bind. Structured is the way to have those errors handled.
//
// Install returns a *codes.DefinitionError if s or p is nil, or if s has
// mcperr installed already with another pipeline
// (codes.ConflictingConfiguration). Installing the same pipeline twice does
// nothing.
func Install(s *server.MCPServer, p *filter.Pipeline) error {
	if s == nil {
		return &codes.DefinitionError{Mistake: codes.NilValue, Reason: "Install needs the *server.MCPServer to install mcperr on"}
	}
	if p == nil {
		return &codes.DefinitionError{Mistake: codes.NilValue,
			Reason: "Install needs the server's *filter.Pipeline; build it with filter.New (filter.New() for the defaults) and check its error"}
	}
	st := &serverState{p: p}
	st.checkAll, _ = callctx.Modes(st.p, callctx.Settings{})
	st.retries = callctx.Succeeded(st.p)
	if old, loaded := servers.LoadOrStore(s, st); loaded {
		if old.p == p {
			return nil
		}
		return bind.Conflict("mcpgo")
	}
	s.Use(st.middleware)
	st.hook(s)
	server.WithResourceHandlerMiddleware(st.resourceMiddleware)(s)
	server.WithPromptHandlerMiddleware(st.promptMiddleware)(s)
	return nil
}

// AddTool adds a tool to s, like (*server.MCPServer).AddTool, with the
// whole mcperr contract and opts bound to the tool: it is the drop-in
// replacement for that one line, on a server where Install was called.
//
//	if err := mcpgo.AddTool(s, tool, h, mcpgo.WithFilters(f)); err != nil {
//		log.Fatal(err) // a definition error: what to fix
//	}
//
// AddTool returns a *codes.DefinitionError, and adds nothing, if s is nil,
// Install was not called on s (codes.NotInstalled), the tool's name is not
// a valid MCP tool name (codes.InvalidToolName), s has a tool of that name
// already, however it was added (codes.DuplicateTool), h, an option or a
// filter is nil (codes.NilValue), an option is invalid
// (codes.InvalidOption), or the input schema is not a JSON object schema
// that compiles or the tool carries x-mcp-header annotations the SDK
// refuses (codes.InvalidSchema). The SDK alone registers any name and
// silently replaces a tool added twice.
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
	c, err := bind.NewConfig("mcpgo", "AddTool", opts)
	if err != nil {
		return err
	}
	if err := mcp.ValidateParamHeaderAnnotations(&tool); err != nil {
		return &codes.DefinitionError{Mistake: codes.InvalidSchema, Subject: tool.Name, Reason: err.Error()}
	}
	if err := st.checkInputSchema(&tool); err != nil {
		return err
	}
	// The server is the one list of its tools, however added.
	st.adding.Lock()
	defer st.adding.Unlock()
	if s.GetTool(tool.Name) != nil {
		return &codes.DefinitionError{Mistake: codes.DuplicateTool, Subject: tool.Name,
			Reason: "a tool with this name is already registered on this server; give each tool its own name"}
	}
	// The middleware handles the failures of the handler, registered as it is.
	if err := register(s, tool, h); err != nil {
		return err
	}
	st.added.Store(tool.Name, &c)
	if c.Settings.ArgumentCheck == 2 {
		st.someChecks.Store(true)
	}
	return nil
}

// register adds tool to s, turning the SDK's panic for the name of a task
// tool, made before it registers anything, into a definition error.
func register(s *server.MCPServer, tool mcp.Tool, h server.ToolHandlerFunc) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &codes.DefinitionError{Mistake: codes.DuplicateTool, Subject: tool.Name, Reason: fmt.Sprint(v)}
		}
	}()
	s.AddTool(tool, h)
	return nil
}
