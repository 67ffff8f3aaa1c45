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

// servers holds the mcperr state of each server Install was called on, so
// that AddTool can refuse a server without it (see bind.Table for why this
// table must exist). At run time the middleware hands the state to the
// handlers in the request's context.
var servers bind.Table[mcp.Server, serverState]

// serverState is mcperr on one server: its one configuration, and what it
// knows of the tools' input schemas.
type serverState struct {
	p *filter.Pipeline

	// checkAll says the pipeline checks every tool's arguments before its
	// handler (filter.WithArgumentCheck); someChecks, that a tool added
	// through this package asked for it with WithArgumentCheck(true).
	checkAll   bool
	someChecks atomic.Bool

	mu      sync.RWMutex
	tools   map[string]*toolEntry // added with AddTool or AddRawTool
	wrapped map[string]*binding   // run through Wrap or WrapRaw, by tool name
	asked   map[string]bool       // tools the server's own tools/list was asked for
	listed  sync.Map              // tool name -> *listedTool, from tools/list results
	schemas inputschema.Cache
}

// toolEntry is what the middleware needs of a tool added through this
// package: its input schema, to explain arguments the SDK refused, and its
// filters.
type toolEntry struct {
	compiled *inputschema.Schema // nil if it does not compile
	filters  []filter.Filter
	settings callctx.Settings // the tool's own, from its options
}

// Install makes p the mcperr configuration of s, and installs on s the
// receiving middleware that runs every tools/call, resources/read,
// prompts/get and completion/complete through it. Call it once per server,
// at start-up, before adding tools with AddTool or AddRawTool:
//
//	p, err := filter.New(filter.WithLogger(logger))
//	...
//	if err := gosdk.Install(s, p); err != nil {
//		log.Fatal(err)
//	}
//
// The middleware turns into
// error results, mapped and logged once:
//
//   - an error a typed handler returned, read with CallToolResult.GetError
//     and replaced in the result the SDK built;
//   - an error result a raw handler marked with SetError;
//   - an error a raw handler returned, which the SDK alone would send as a
//     JSON-RPC error with code 0 and the raw text;
//   - a panic in the handler, which the SDK alone lets kill the process;
//   - arguments that do not fit the tool's input schema, when the SDK
//     refused them or the handler failed: a VALIDATION_ERROR naming each
//     wrong field and what is wrong with it, never its value. The
//     middleware knows the schemas of the tools added with AddTool and
//     AddRawTool, and learns the others from the tools/list results that
//     clients ask for, or, for a tool no client listed, from the server's
//     own tools/list handler, asked once the call has failed;
//   - with filter.WithArgumentCheck or a tool's WithArgumentCheck, the same
//     for every call's arguments, checked before the handler, which does not
//     run when they do not fit.
//
// A resources/read, prompts/get or completion/complete that fails becomes a
// JSON-RPC error with the message the pipeline chose, the code the MCP
// specification names (filter.Failure.JSONRPCCode) and the envelope as its
// data, however the resource, prompt or completion handler was added.
//
// A *jsonrpc.Error returned as it is, an unknown tool, resource or prompt,
// every other method, a result a handler built itself with IsError set but
// without SetError, and every successful result pass through untouched.
//
// Install returns a *codes.DefinitionError if s or p is nil, or if s has mcperr
// installed already with another pipeline (codes.ConflictingConfiguration).
// Installing the same pipeline twice does nothing.
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
	if old, loaded := servers.LoadOrStore(s, st); loaded {
		if old.p == p {
			return nil
		}
		return bind.Conflict("gosdk")
	}
	s.AddReceivingMiddleware(st.middleware)
	return nil
}

// setTool records a tool added through this package.
func (st *serverState) setTool(name string, e *toolEntry) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.tools[name] = e
	if e.settings.ArgumentCheck == 2 {
		st.someChecks.Store(true)
	}
}

// tool returns what st knows of the tool named name, or nil.
func (st *serverState) tool(name string) *toolEntry {
	st.mu.RLock()
	defer st.mu.RUnlock()
	return st.tools[name]
}

// options returns the filters and settings that the tool named name
// declared: where it was added with AddTool or AddRawTool, or where it was
// wrapped with Wrap or WrapRaw, which a tool's handler declares on its
// first call. AddTool's settings are over Wrap's, and its filters, if it
// was given any, instead of Wrap's. It is called only when a call failed,
// so that a success costs no lookup.
func (st *serverState) options(name string) ([]filter.Filter, callctx.Settings) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	var filters []filter.Filter
	var settings callctx.Settings
	if b := st.wrapped[name]; b != nil {
		filters, settings = b.filters, b.settings
	}
	if e := st.tools[name]; e != nil {
		if len(e.filters) > 0 {
			filters = e.filters
		}
		settings = settings.Merge(e.settings)
	}
	return filters, settings
}

// declare records that the tool named name runs through b, and costs only
// a lookup once it has.
func (st *serverState) declare(name string, b *binding) {
	st.mu.RLock()
	known := st.wrapped[name] == b
	st.mu.RUnlock()
	if known {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.wrapped == nil {
		st.wrapped = make(map[string]*binding)
	}
	st.wrapped[name] = b
}

// reserve records name for a tool being added, and reports whether it was
// free.
func (st *serverState) reserve(name string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if _, taken := st.tools[name]; taken {
		return false
	}
	if st.tools == nil {
		st.tools = make(map[string]*toolEntry)
	}
	st.tools[name] = &toolEntry{}
	return true
}

// release frees a name reserved for a tool that could not be added.
func (st *serverState) release(name string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	delete(st.tools, name)
}
