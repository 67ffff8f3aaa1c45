package mcpgo

import (
	"context"
	"sync"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/bind"
	"github.com/mcperr/mcperr/internal/isolate"
)

// servers holds the mcperr state of each server, so that Wrap finds the
// configuration of the server it runs on. It holds its keys weakly.
var servers bind.Table[server.MCPServer, serverState]

// serverState is mcperr on one server: its one configuration and the input
// schemas compiled so far. It is safe for concurrent use.
type serverState struct {
	p          *filter.Pipeline
	explicit   bool // set by Install, not implied by AddTool
	defaults   bool // Install was given a nil pipeline
	noCheck    bool
	requestIDs bool

	adding  sync.Mutex // held by AddTool from its duplicate check to the registration
	runner  *isolate.Runner[handlerCall, handlerResult]
	schemas schemaCache
}

// Install makes p the mcperr configuration of s, and installs on s the tool
// handler middleware that runs every tool call through it. Call it once per
// server, at start-up, after the SDK's own middleware options, such as
// server.WithLogger and server.WithRecovery, and before adding tools:
//
//	s := server.NewMCPServer("orders", "1.0.0", server.WithRecovery())
//	p, err := filter.New(filter.WithLogger(logger), filter.WithReporter(r))
//	...
//	if err := mcpgo.Install(s, p); err != nil {
//		log.Fatal(err)
//	}
//
// A nil p means filter.New() with its defaults. Everything mcperr does on s
// then uses p: the middleware, AddTool, and Wrap and WrapStructured wherever
// their handlers run on s. The middleware turns into error results, mapped
// and logged once:
//
//   - an error a handler returns, which the SDK alone sends as a JSON-RPC
//     error -32603 whose message is the raw error text;
//   - a panic in a handler, which the SDK alone lets reach the caller, drop
//     the HTTP connection or answer with the panic value;
//   - arguments that do not fit the tool's input schema: a VALIDATION_ERROR
//     naming each wrong field and what is wrong with it, never its value,
//     before the handler runs. The schema is the tool's RawInputSchema if
//     set, its InputSchema otherwise, as the server has it registered for
//     the session; each is compiled once, and a tool whose schema is empty
//     or does not compile is not checked. WithoutArgumentCheck turns the
//     check off for the whole server.
//
// The SDK runs the middleware in the order it was added, the first
// outermost, and Install adds its own last. Added after WithLogger and
// WithRecovery, it turns errors into results before the SDK's logging
// middleware sees them, so that middleware logs the outcome without the raw
// error text, and it recovers a panic itself, with the stack where it
// happened, before WithRecovery would turn it into an error without one. Do
// not combine Install with server.WithInputSchemaValidation, which answers
// arguments that do not fit in its own words, before any middleware runs.
//
// A result a handler built itself, such as mcp.NewToolResultError, a
// mcp.URLElicitationRequiredError returned as it is, a call to an unknown
// tool and every successful result pass through untouched. A handler
// returned by Wrap, WrapStructured or AddTool maps its own errors and checks
// its own arguments, so the middleware does neither twice. The SDK's
// mcp.NewStructuredToolHandler turns the errors of its handler into results
// with their raw text before the middleware sees them: use WrapStructured.
//
// Install also adds resource and prompt handler middleware
// (server.WithResourceHandlerMiddleware, server.WithPromptHandlerMiddleware)
// that serves every resources/read and prompts/get however it was added: an
// error or a panic becomes the JSON-RPC error of filter.Pipeline.HandleRPC,
// mapped and logged once (see AddResource). The client reads that error's
// message, the public message or the masked text, exactly; but mcp-go
// sends every error of a resource or prompt handler as -32603 without data,
// and offers no way to choose either, so on mcp-go the JSON-RPC code is
// always -32603 and the envelope is in the log only. mcp-go has no
// middleware or hook for completion/complete: wrap the providers with
// WrapPromptCompletion and WrapResourceCompletion.
//
// Install returns a *toolerr.DefinitionError if s is nil, if WithFilters is
// given (global filters belong to the pipeline: filter.WithFilters), or if s
// already has another configuration: from an earlier Install with another
// pipeline or other options, or the default one that AddTool put on s
// because it came first (codes.ConflictingConfiguration). Installing the
// same pipeline (or nil) with the same options twice does nothing.
func Install(s *server.MCPServer, p *filter.Pipeline, opts ...Option) error {
	if s == nil {
		return invalidOption("Install needs the *server.MCPServer to install mcperr on")
	}
	c, err := newConfig("Install", opts)
	if err != nil {
		return err
	}
	if c.hasFilters {
		return invalidOption("WithFilters given to Install: per-tool filters go to AddTool or Wrap; global filters go to filter.WithFilters")
	}
	defaults := p == nil
	if defaults {
		if p, err = filter.New(); err != nil {
			return err
		}
	}
	st := newState(p)
	st.explicit, st.defaults, st.noCheck, st.requestIDs = true, defaults, c.noCheck, c.requestIDs
	if old, loaded := servers.LoadOrStore(s, st); loaded {
		return conflict(old, st)
	}
	st.install(s)
	return nil
}

// install puts st on s: its middleware for tools, resources and prompts,
// and the hooks that stamp their requests with their JSON-RPC ids.
func (st *serverState) install(s *server.MCPServer) {
	// The SDK hands the JSON-RPC id to hooks alone: they stamp it on the
	// request, for the middleware to read.
	hooks := s.GetHooks()
	if hooks == nil {
		hooks = &server.Hooks{}
		server.WithHooks(hooks)(s)
	}
	hooks.AddBeforeCallTool(stampRequestID)
	hooks.AddBeforeReadResource(stampReadResource)
	hooks.AddBeforeGetPrompt(stampGetPrompt)
	s.Use(st.middleware)
	server.WithResourceHandlerMiddleware(st.resourceMiddleware)(s)
	server.WithPromptHandlerMiddleware(st.promptMiddleware)(s)
}

// newState returns the state of a server configured by p.
func newState(p *filter.Pipeline) *serverState {
	return &serverState{p: p, runner: isolate.NewRunner(callHandler)}
}

// conflict reports a second configuration for a server: nil if it is the
// same as the first.
func conflict(old, st *serverState) error {
	same := (old.p == st.p || old.defaults && st.defaults) && old.noCheck == st.noCheck
	return bind.Conflict("mcpgo", old.explicit, same)
}

// ensure returns the state of s, installing mcperr with the default
// configuration if Install was not called.
func ensure(s *server.MCPServer) (*serverState, error) {
	if st := servers.Load(s); st != nil {
		return st, nil
	}
	p, err := filter.New()
	if err != nil {
		return nil, err
	}
	st, loaded := servers.LoadOrStore(s, newState(p))
	if !loaded {
		st.install(s)
	}
	return st, nil
}

// stateOf returns the state of the server that runs the call in ctx, or nil
// if mcperr is not installed there. A lookup of a known server allocates
// nothing.
func stateOf(ctx context.Context) *serverState {
	if s := server.ServerFromContext(ctx); s != nil {
		return servers.Load(s)
	}
	return nil
}

// unbound is the configuration of a handler from Wrap or WrapStructured that
// runs where mcperr was not installed: the default one, built on first use.
// The wrapped handler alone gives the whole contract on this SDK, so nothing
// is missing and nothing is logged about it.
type unbound struct {
	once sync.Once
	st   *serverState
}

// state returns the default state.
func (u *unbound) state() *serverState {
	u.once.Do(func() {
		p, err := filter.New()
		if err != nil {
			panic(err) // filter.New without options cannot fail
		}
		u.st = newState(p)
	})
	return u.st
}
