package gosdk

import (
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/bind"
	"github.com/mcperr/mcperr/internal/callctx"
	"github.com/mcperr/mcperr/internal/inputschema"
)

// servers holds the state of each server Install was called on, so that
// AddTool can refuse a server without it (see bind.Table).
var servers bind.Table[mcp.Server, serverState]

// serverState is mcperr on one server: its configuration, and what it knows
// of the tools.
type serverState struct {
	p *filter.Pipeline

	// checkAll: the pipeline checks every tool's arguments first
	// (filter.WithArgumentCheck); someChecks: a tool added here asks to.
	checkAll   bool
	someChecks atomic.Bool
	retries    bool // the pipeline calls a tool again after a transient failure

	// By tool name: written once a tool, then mostly read.
	tools   sync.Map // *toolEntry, added with AddTool or AddRawTool
	wrapped sync.Map // *binding, run through Wrap or WrapRaw
	listed  sync.Map // *listedTool, from tools/list results
	schemas inputschema.Cache

	mu    sync.Mutex
	asked map[string]bool // tools the server's own tools/list was asked for
}

// toolEntry is a tool added through this package: its options and its
// compiled input schema (nil if it does not compile).
type toolEntry struct {
	compiled   *inputschema.Schema
	repeatable bool // annotated read-only or idempotent
	bind.Config
}

// Install makes p the mcperr configuration of s and installs on s the
// receiving middleware that runs every tools/call, resources/read,
// prompts/get and completion/complete through it, however the handler was
// added. Call it once per server, at start-up, before AddTool or
// AddRawTool. The middleware answers with an error result, mapped and
// logged once:
//
//   - an error the handler returned: for a typed handler, read with
//     CallToolResult.GetError from the result the SDK built; for a raw one,
//     what the SDK alone would send as a JSON-RPC error with code 0 and the
//     raw text;
//   - an error result a raw handler marked with SetError;
//   - a panic in the handler, which the SDK alone lets kill the process;
//   - arguments that do not fit the tool's input schema, when the SDK
//     refused them or the handler failed: a VALIDATION_ERROR naming each
//     wrong field and what is wrong with it, never its value. The schemas
//     are those of the tools added with AddTool and AddRawTool, those the
//     tools/list results sent to clients show, and, for a tool no client
//     listed, the answer of the server's own tools/list, asked once the
//     call has failed, and at most once a tool for the life of the server;
//   - with filter.WithArgumentCheck or a tool's WithArgumentCheck, the same
//     for every call's arguments, checked before the handler, which does not
//     run when they do not fit.
//
// A failed resources/read, prompts/get or completion/complete becomes a
// JSON-RPC error with the pipeline's message, the code the MCP
// specification names (filter.Failure.JSONRPCCode) and the envelope as its
// data.
//
// A *jsonrpc.Error returned as it is (a deliberate protocol error), an
// unknown tool, resource or prompt, every other method, a result a handler
// built itself with IsError set but without SetError (unless
// filter.WithHandBuilt says otherwise), and every successful result pass
// through untouched.
//
// Install returns a *codes.DefinitionError if s or p is nil, or if s has
// mcperr installed already with another pipeline
// (codes.ConflictingConfiguration); installing the same pipeline twice
// does nothing.
func Install(s *mcp.Server, p *filter.Pipeline) error {
	if s == nil {
		return &codes.DefinitionError{Mistake: codes.NilValue, Reason: "Install needs the *mcp.Server to install mcperr on"}
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
		return bind.Conflict("gosdk")
	}
	s.AddReceivingMiddleware(st.middleware)
	return nil
}

func (st *serverState) setTool(name string, e *toolEntry) {
	st.tools.Store(name, e)
	if e.Settings.ArgumentCheck == 2 {
		st.someChecks.Store(true)
	}
}

// options returns the filters and settings the tool named name declared,
// where it was added or wrapped: AddTool's settings over Wrap's, and its
// filters, if any, instead of Wrap's.
func (st *serverState) options(name string) ([]filter.Filter, callctx.Settings) {
	var c bind.Config
	if b, ok := st.wrapped.Load(name); ok {
		c = b.(*binding).Config
	}
	if v, ok := st.tools.Load(name); ok {
		c = v.(*toolEntry).Over(c)
	}
	return c.Filters, c.Settings
}
