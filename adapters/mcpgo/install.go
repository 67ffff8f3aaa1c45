package mcpgo

import (
	"sync"
	"sync/atomic"
	"weak"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/bind"
	"github.com/mcperr/mcperr/internal/callctx"
	"github.com/mcperr/mcperr/internal/inputschema"
)

// servers holds the mcperr state of each server Install was called on, so
// that AddTool can refuse a server without it (see bind.Table for why this
// table must exist). At run time the middleware hands the state to the
// handlers in the request's context.
var servers bind.Table[server.MCPServer, serverState]

// serverState is mcperr on one server: its one configuration and the input
// schemas compiled so far. It is safe for concurrent use.
type serverState struct {
	p *filter.Pipeline

	// checkAll says the pipeline checks every tool's arguments before its
	// handler (filter.WithArgumentCheck); someChecks, that a tool added
	// with AddTool asked for it with WithArgumentCheck(true).
	checkAll   bool
	someChecks atomic.Bool
	added      sync.Map // tool name -> *config, of the tools added with AddTool
	wrapped    sync.Map // tool name -> *wrapper, of the tools run through Wrap

	// self is the server, for the hooks, which a server's hooks may share
	// with another's; passed holds the contexts of the calls whose error
	// result the middleware sent unanswered, until the after-call hook.
	self   weak.Pointer[server.MCPServer]
	passed sync.Map

	adding  sync.Mutex // held by AddTool from its duplicate check to the registration
	schemas inputschema.Cache
	byTool  sync.Map // tool name -> *toolSchema
}

// declare records that the tool named name runs through w, where the
// middleware finds the tool's options for every failure that follows; once
// it has, a call costs a lookup.
func (st *serverState) declare(name string, w *wrapper) {
	if old, ok := st.wrapped.Load(name); !ok || old != w {
		st.wrapped.Store(name, w)
	}
}

// Install makes p the mcperr configuration of s, and installs on s the
// middleware that runs every tool call, resources/read and prompts/get
// through it. Call it once per server, at start-up, after the SDK's own
// middleware options, such as server.WithLogger and server.WithRecovery,
// and before adding tools with AddTool:
//
//	s := server.NewMCPServer("orders", "1.0.0", server.WithRecovery())
//	p, err := filter.New(filter.WithLogger(logger))
//	...
//	if err := mcpgo.Install(s, p); err != nil {
//		log.Fatal(err)
//	}
//
// The middleware turns into
// error results, mapped and logged once:
//
//   - an error a handler returns, which the SDK alone sends as a JSON-RPC
//     error -32603 whose message is the raw error text;
//   - a panic in a handler, which the SDK alone lets reach the caller, drop
//     the HTTP connection or answer with the panic value;
//   - a failure of a call whose arguments do not fit the tool's input
//     schema: a VALIDATION_ERROR naming each wrong field and what is wrong
//     with it, never its value. Arguments are checked only when the
//     handler fails, so a call the handler answers stays as it was,
//     unless the server or the tool asks for the check before the handler
//     (filter.WithArgumentCheck, WithArgumentCheck);
//   - the refusal of arguments by the SDK's own
//     server.WithInputSchemaValidation, made before any middleware runs
//     with the validator's text: answered as mcperr's own check answers,
//     through an after-call hook Install adds to the server's hooks.
//
// The SDK runs the middleware in the order it was added, the first
// outermost, and Install adds its own last: added after WithLogger and
// WithRecovery, it turns errors into results before the SDK's logging
// middleware sees them, and recovers a panic itself, with its stack.
//
// A resources/read or prompts/get that fails is answered with the
// message the pipeline chose; mcp-go sends every error of a resource or
// prompt handler as -32603 without data, and offers no way to choose
// either, so the envelope is in the log only. mcp-go has no middleware for
// completion/complete: wrap the providers with WrapPromptCompletion and
// WrapResourceCompletion.
//
// A result a handler built itself, such as mcp.NewToolResultError, a
// mcp.URLElicitationRequiredError returned as it is, a call to an unknown
// tool and every successful result pass through untouched (see
// filter.WithHandBuilt). So do the results mcp-go's typed helpers
// (mcp.NewTypedToolHandler, mcp.NewStructuredToolHandler) build from an
// error or from arguments they could not bind: they are hand-built
// results too. Structured is the way to have those errors handled: masked,
// VALIDATION_ERROR for arguments that do not fit, a ToolError's words kept.
//
// Install returns a *codes.DefinitionError if s or p is nil, or if s has mcperr
// installed already with another pipeline (codes.ConflictingConfiguration).
// Installing the same pipeline twice does nothing.
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
