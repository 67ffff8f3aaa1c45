package gosdk

import (
	"context"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/bind"
	"github.com/mcperr/mcperr/internal/inputschema"
	"github.com/mcperr/mcperr/internal/isolate"
	"github.com/mcperr/mcperr/internal/toolnames"
)

// servers holds the mcperr state of each server, and sessions that of the
// server each session belongs to, so that Wrap finds the configuration of
// the server it runs on. Both hold their keys weakly.
var (
	servers  bind.Table[mcp.Server, serverState]
	sessions bind.Table[mcp.ServerSession, serverState]
)

// serverState is mcperr on one server: its one configuration, and what it
// knows of the tools added through this package.
type serverState struct {
	p        *filter.Pipeline
	explicit bool // set by Install, not implied by AddTool
	defaults bool // Install was given a nil pipeline
	noCheck  bool

	chain   *isolate.Runner[chainCall, chainResult]
	names   toolnames.Set
	mu      sync.RWMutex
	tools   map[string]*toolEntry
	listed  sync.Map // tool name -> *listedTool, from tools/list results
	schemas inputschema.Cache
}

// toolEntry is what the middleware needs of a tool added through this
// package: its input schema, to explain arguments the SDK refused, and its
// filters.
type toolEntry struct {
	compiled *inputschema.Schema // nil if it does not compile
	filters  []filter.Filter
}

// Install makes p the mcperr configuration of s, and installs on s the
// receiving middleware that runs every tools/call through it. Call it once
// per server, at start-up, before adding tools:
//
//	p, err := filter.New(filter.WithLogger(logger), filter.WithReporter(r))
//	...
//	if err := gosdk.Install(s, p); err != nil {
//		log.Fatal(err)
//	}
//
// A nil p means filter.New() with its defaults. Everything mcperr does on s
// then uses p: the middleware, AddTool, AddRawTool, and Wrap and WrapRaw
// wherever their handlers run on s. The middleware turns into error results,
// mapped and logged once:
//
//   - an error a typed handler returned, read with CallToolResult.GetError
//     and replaced in the result the SDK built;
//   - an error result a raw handler marked with SetError;
//   - an error a raw handler returned, which the SDK alone would send as a
//     JSON-RPC error with code 0 and the raw text;
//   - a panic in the handler, which the SDK alone lets kill the process;
//   - arguments the SDK refused because they do not fit the tool's input
//     schema: a VALIDATION_ERROR naming each wrong field and what is wrong
//     with it, never its value. The middleware sends no request of its own
//     to find a schema: it knows those of the tools added with AddTool and
//     AddRawTool, and learns the others from the tools/list results that
//     clients ask for before they call tools. Arguments the SDK refused for
//     a tool it does not know that way are masked like any other error.
//
// The middleware also serves every resources/read, prompts/get and
// completion/complete, however the resource, template, prompt or completion
// handler was added: an error or a panic there becomes the JSON-RPC error
// of filter.Pipeline.HandleRPC, mapped and logged once (see AddResource).
//
// A *jsonrpc.Error returned as it is, an unknown tool, resource or prompt,
// every other method, a result a handler built itself with IsError set but
// without SetError, and every successful result pass through untouched.
//
// Install returns a *toolerr.DefinitionError if s is nil, if WithFilters is
// given (global filters belong to the pipeline: filter.WithFilters), or if s
// already has another configuration: from an earlier Install with another
// pipeline, or the default one that AddTool put on s because it came first
// (codes.ConflictingConfiguration). Installing the same pipeline twice does
// nothing.
func Install(s *mcp.Server, p *filter.Pipeline, opts ...Option) error {
	if s == nil {
		return invalidOption("Install needs the *mcp.Server to install mcperr on")
	}
	c, err := newConfig("Install", opts)
	if err != nil {
		return err
	}
	if c.hasFilters {
		return invalidOption("WithFilters given to Install: per-tool filters go to AddTool, AddRawTool or Wrap; global filters go to filter.WithFilters")
	}
	defaults := p == nil
	if defaults {
		if p, err = filter.New(); err != nil {
			return err
		}
	}
	st := newState(p)
	st.explicit, st.defaults, st.noCheck = true, defaults, c.noCheck
	if old, loaded := servers.LoadOrStore(s, st); loaded {
		return conflict(old, st)
	}
	s.AddReceivingMiddleware(st.middleware)
	return nil
}

// conflict reports a second configuration for a server: nil if it is the
// same as the first.
func conflict(old, st *serverState) error {
	same := (old.p == st.p || old.defaults && st.defaults) && old.noCheck == st.noCheck
	return bind.Conflict("gosdk", old.explicit, same)
}

// ensure returns the state of s, installing mcperr with the default
// configuration if Install was not called.
func ensure(s *mcp.Server) (*serverState, error) {
	if st := servers.Load(s); st != nil {
		return st, nil
	}
	p, err := filter.New()
	if err != nil {
		return nil, err
	}
	st, loaded := servers.LoadOrStore(s, newState(p))
	if !loaded {
		s.AddReceivingMiddleware(st.middleware)
	}
	return st, nil
}

// newState returns the state of a server configured by p.
func newState(p *filter.Pipeline) *serverState {
	return &serverState{p: p, chain: isolate.NewRunner(callChain)}
}

// setTool records a tool added through this package.
func (st *serverState) setTool(name string, e *toolEntry) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.tools == nil {
		st.tools = make(map[string]*toolEntry)
	}
	st.tools[name] = e
}

// tool returns what st knows of the tool named name, or nil.
func (st *serverState) tool(name string) *toolEntry {
	st.mu.RLock()
	defer st.mu.RUnlock()
	return st.tools[name]
}

// unbound is the configuration of a handler from Wrap or WrapRaw that runs
// where mcperr was not installed: the default one. Its first failure writes
// one ERROR record saying so.
type unbound struct {
	once sync.Once
	st   *serverState
}

// state returns the default state, warning once that tool runs unbound.
func (u *unbound) state(ctx context.Context, fn, tool string) *serverState {
	u.once.Do(func() {
		p, err := filter.New()
		if err != nil {
			panic(err) // filter.New without options cannot fail
		}
		u.st = newState(p)
		bind.Warn(ctx, slog.LevelError, "mcperr: handler runs without mcperr installed on its server",
			slog.String("tool", tool), slog.String("wrapper", "gosdk."+fn),
			slog.String("consequence", "its errors are masked and logged with the default configuration, without the error envelope, hint blocks or VALIDATION_ERROR for arguments the SDK refuses"),
			slog.String("fix", "call gosdk.Install(s, pipeline) at start-up, or add the tool with gosdk.AddTool(s, tool, handler)"))
	})
	return u.st
}
