package gosdk

import (
	"context"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/bind"
	"github.com/mcperr/mcperr/internal/inputschema"
)

// servers holds the state of each server Install was called on, so that
// AddTool can refuse a server without it (see bind.Table).
var servers bind.Table[mcp.Server, serverState]

// serverState is mcperr on one server: its configuration, and what it knows
// of the tools.
type serverState struct {
	p       *filter.Pipeline
	started atomic.Bool // the first tool call was served

	// By tool name: written once a tool, then mostly read.
	tools   sync.Map // *toolEntry, added with AddTool or AddRawTool
	listed  sync.Map // *listedTool, from tools/list results
	schemas inputschema.Cache

	mu    sync.Mutex
	asked map[string]bool // tools the server's own tools/list was asked for
}

// toolEntry is a tool added through this package: its options, its
// compiled input schema (nil if it does not compile) and its annotations.
type toolEntry struct {
	opts       []filter.ToolOption
	compiled   *inputschema.Schema
	repeatable bool // annotated read-only or idempotent
}

// Install makes p the mcperr configuration of s and installs on s the
// receiving middleware that runs every tools/call, resources/read,
// prompts/get and completion/complete through it (filter.Serve), however
// the handler was added. Call it once per server, at start-up, before
// AddTool or AddRawTool, and before any receiving middleware of your own:
// go-sdk runs the middleware added last first, so that yours then runs
// around mcperr's and never sees a raw error. A middleware added before
// Install, between mcperr and the handlers, is named in one ERROR record
// at the server's first tool call. The middleware answers with an error
// result, mapped and logged once:
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
//   - with filter.WithArgumentCheck, for the server or the tool, the same
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
		return bind.NilPipeline
	}
	st := &serverState{p: p}
	if old, loaded := servers.LoadOrStore(s, st); loaded {
		if old.p == p {
			return nil
		}
		return bind.Conflict("gosdk")
	}
	s.AddReceivingMiddleware(st.middleware)
	return nil
}

// firstCall returns, for the first tool call the server serves, what the
// pipeline needs to check how mcperr is put on it: the tools it has, and a
// middleware that runs between mcperr and the handlers, if any.
func (st *serverState) firstCall(ctx context.Context, next mcp.MethodHandler, req *mcp.CallToolRequest) (func(string) bool, func() []string) {
	if st.started.Load() || !st.started.CompareAndSwap(false, true) {
		return nil, nil
	}
	problems := func() []string {
		fn := runtime.FuncForPC(reflect.ValueOf(next).Pointer())
		if fn != nil {
			if file, _ := fn.FileLine(fn.Entry()); strings.Contains(file, "modelcontextprotocol/go-sdk") {
				return nil // the SDK's own handler, or a middleware of its own
			}
		}
		return []string{bind.Misplaced("gosdk", funcName(fn), "add your receiving middleware after gosdk.Install, which go-sdk then runs first")}
	}
	var once sync.Once
	return func(name string) bool {
		if once.Do(func() {
			if req.Session != nil {
				st.listAll(ctx, next, req.Session)
			}
		}); name == "" {
			return false
		}
		_, added := st.tools.Load(name)
		_, listed := st.listed.Load(name)
		return added || listed
	}, problems
}

func funcName(fn *runtime.Func) string {
	if fn == nil {
		return "a middleware"
	}
	return fn.Name()
}
