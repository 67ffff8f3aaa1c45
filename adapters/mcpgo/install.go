package mcpgo

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/bind"
	"github.com/mcperr/mcperr/internal/inputschema"
	"github.com/mcperr/mcperr/internal/toolname"
)

// servers holds the state of each server Install was called on, so that
// AddTool can refuse a server without it (see bind.Table).
var servers bind.Table[server.MCPServer, serverState]

// serverState is mcperr on one server: its one configuration and what it
// knows of the tools. It is safe for concurrent use.
type serverState struct {
	p       *filter.Pipeline
	self    weak.Pointer[server.MCPServer] // for hooks that servers may share
	started atomic.Bool                    // the first tool call was served
	added   sync.Map                       // tool name -> []filter.ToolOption, of the tools added with AddTool
	adding  sync.Mutex                     // held by AddTool from its duplicate check to the registration

	// unchecked: a handler ran with arguments the SDK's validator refuses,
	// so this server's SDK does not check them (no WithInputSchemaValidation).
	unchecked atomic.Bool
	schemas   inputschema.Cache
	byTool    sync.Map // tool name -> *toolSchema
}

// Install makes p the mcperr configuration of s, and installs on s the
// middleware that runs every tool call, resources/read and prompts/get
// through it (filter.Serve; see the package doc). Call it once per server,
// at start-up, after the SDK's own middleware options, such as
// server.WithLogger and server.WithRecovery, and after any tool middleware
// of your own (s.Use), and before AddTool:
//
//	s := server.NewMCPServer("orders", "1.0.0", server.WithRecovery())
//	p, err := filter.New(filter.WithLogger(logger))
//	...
//	if err := mcpgo.Install(s, p); err != nil {
//		log.Fatal(err)
//	}
//
// The SDK runs middleware in the order it was added, the first outermost:
// Install's, added last, turns errors into results before any other sees
// them, so that no log line holds the raw error text, and recovers a panic
// itself, with its stack. A middleware added after Install, between
// mcperr and the handlers, is named in one ERROR record at the server's
// first tool call.
//
// A failed call whose arguments do not fit the tool's input schema is
// answered VALIDATION_ERROR naming each wrong field and what is wrong with
// it, never its value. Arguments are checked only when the handler fails,
// so a call the handler answers stays as it was, unless the server or the
// tool asks for the check first (filter.WithArgumentCheck). The refusal of
// arguments by the SDK's own server.WithInputSchemaValidation, made before
// any middleware with the validator's text, is answered the same way, by
// an after-call hook.
//
// A failed resources/read or prompts/get is answered with the message the
// pipeline chose, as -32603 without data: mcp-go offers no way to choose
// either, so the envelope is in the log only.
//
// The errors that mcp-go's typed helpers (mcp.NewTypedToolHandler,
// mcp.NewStructuredToolHandler) turn into error results are handled as the
// errors they are, found by the handler the tool was registered with:
// arguments they could not bind are a VALIDATION_ERROR, a handler's error is
// masked. Structured is the way to keep a ToolError's words.
//
// Every successful result, a call to an unknown tool and a
// mcp.URLElicitationRequiredError returned as it is pass through
// untouched; so, by default (see filter.WithHandBuilt), does an error
// result the handler built itself, such as mcp.NewToolResultError's.
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
		return bind.NilPipeline
	}
	st := &serverState{p: p, self: weak.Make(s)}
	if old, loaded := servers.LoadOrStore(s, st); loaded {
		if old.p == p {
			return nil
		}
		return bind.Conflict("mcpgo")
	}
	s.Use(st.middleware)
	hooks := s.GetHooks()
	if hooks == nil {
		hooks = &server.Hooks{}
		server.WithHooks(hooks)(s)
	}
	hooks.AddAfterCallTool(st.afterCallTool)
	server.WithResourceHandlerMiddleware(st.resourceMiddleware)(s)
	server.WithPromptHandlerMiddleware(st.promptMiddleware)(s)
	return nil
}

// AddTool adds a tool to s, like (*server.MCPServer).AddTool, with the
// whole mcperr contract and the tool's own options (filter.WithFilters,
// filter.WithReportOnly, ...), which apply over those of filter.ForTool: it
// is the drop-in replacement for that one line, on a server where Install
// was called.
//
//	if err := mcpgo.AddTool(s, tool, h, filter.WithFilters(f)); err != nil {
//		log.Fatal(err) // a definition error: what to fix
//	}
//
// AddTool returns a *codes.DefinitionError, and adds nothing, if s is nil,
// Install was not called on s (codes.NotInstalled), the tool's name is not
// a valid MCP tool name (codes.InvalidToolName), s has a tool of that name
// already, however it was added (codes.DuplicateTool), h or an option is
// nil or misdefined (codes.NilValue, codes.InvalidOption), or the input
// schema is not a JSON object schema that compiles or the tool carries
// x-mcp-header annotations the SDK refuses (codes.InvalidSchema). The SDK
// alone registers any name and silently replaces a tool added twice.
func AddTool(s *server.MCPServer, tool mcp.Tool, h server.ToolHandlerFunc, opts ...filter.ToolOption) error {
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
	if err := bind.CheckOptions("mcpgo", "AddTool", opts); err != nil {
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
	st.added.Store(tool.Name, opts)
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

// firstCall returns, for the first tool call the server serves, what the
// pipeline needs to check how mcperr is put on it: the tools it has, and a
// middleware that runs between mcperr and the handlers, if any, which is
// what next is when it is not the handler the tool was registered with.
func (st *serverState) firstCall(ctx context.Context, name string, next server.ToolHandlerFunc) (func(string) bool, func() []string) {
	if st.started.Load() || !st.started.CompareAndSwap(false, true) {
		return nil, nil
	}
	problems := func() []string {
		t := registeredTool(ctx, name)
		if t == nil || t.Handler == nil || reflect.ValueOf(t.Handler).Pointer() == reflect.ValueOf(next).Pointer() {
			return nil
		}
		fn, inner := runtime.FuncForPC(reflect.ValueOf(next).Pointer()), "a tool middleware"
		if fn != nil {
			inner = fn.Name()
		}
		return []string{bind.Misplaced("mcpgo", inner, "call mcpgo.Install after s.Use and the server's middleware options, so that mcp-go runs it innermost")}
	}
	return func(name string) bool { return registeredTool(ctx, name) != nil }, problems
}
