package gosdk

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/internal/inputschema"
)

// checkArguments reports how the arguments of req do not fit the input
// schema of the tool it calls, or nil if they fit or the schema is not
// known; next is the handlers inside the middleware, asked for the schema
// (listFor) of a tool neither added here nor listed.
func (st *serverState) checkArguments(ctx context.Context, next mcp.MethodHandler, req *mcp.CallToolRequest) *domain.Validation {
	if req.Params == nil {
		return nil
	}
	s := st.schemaOf(req.Params.Name)
	if s == nil && st.listFor(ctx, next, req) {
		s = st.schemaOf(req.Params.Name)
	}
	if s == nil {
		return nil
	}
	return s.CheckJSON(req.Params.Arguments)
}

// repeatable reports whether the tool req calls is annotated read-only or
// idempotent, as it was added here or as the server lists it; next is
// asked for the list as checkArguments asks it.
func (st *serverState) repeatable(ctx context.Context, next mcp.MethodHandler, req *mcp.CallToolRequest) bool {
	if req.Params == nil {
		return false
	}
	if e, ok := st.tools.Load(req.Params.Name); ok {
		return e.(*toolEntry).repeatable
	}
	v, ok := st.listed.Load(req.Params.Name)
	if !ok && st.listFor(ctx, next, req) {
		v, ok = st.listed.Load(req.Params.Name)
	}
	return ok && repeatable(v.(*listedTool).tool)
}

func repeatable(t *mcp.Tool) bool {
	return t.Annotations != nil && (t.Annotations.ReadOnlyHint || t.Annotations.IdempotentHint)
}

func (st *serverState) schemaOf(name string) *inputschema.Schema {
	if e, ok := st.tools.Load(name); ok {
		return e.(*toolEntry).compiled
	}
	if v, ok := st.listed.Load(name); ok {
		l := v.(*listedTool)
		l.once.Do(func() { l.schema = compileSchema(&st.schemas, l.tool.InputSchema) })
		return l.schema
	}
	return nil
}

// maxListPages bounds the pages of tools/list read to find one tool.
const maxListPages = 64

// listFor asks the server's own tools/list handler for the tools of the
// session of req, unless it was asked for the tool req calls before, and
// reports whether it asked. It asks once a tool for the life of the server,
// so that failures never cost more of the server's handlers.
func (st *serverState) listFor(ctx context.Context, next mcp.MethodHandler, req *mcp.CallToolRequest) bool {
	if next == nil || req.Session == nil || !st.firstAsk(req.Params.Name) {
		return false
	}
	st.list(ctx, next, req.Session, req.Params.Name)
	return true
}

// listAll learns every tool the server lists to session.
func (st *serverState) listAll(ctx context.Context, next mcp.MethodHandler, session *mcp.ServerSession) {
	st.list(ctx, next, session, "")
}

// list reads the server's own tools/list, page by page, until it has seen
// the tool named until, or to the end.
func (st *serverState) list(ctx context.Context, next mcp.MethodHandler, session *mcp.ServerSession, until string) {
	cursor := ""
	for range maxListPages {
		res, err := next(ctx, methodListTools, &mcp.ListToolsRequest{Session: session, Params: &mcp.ListToolsParams{Cursor: cursor}})
		if err != nil {
			return
		}
		st.learn(res)
		list, ok := res.(*mcp.ListToolsResult)
		if _, found := st.listed.Load(until); until != "" && found || !ok || list == nil || list.NextCursor == "" {
			return
		}
		cursor = list.NextCursor
	}
}

// maxAsked bounds the tool names the server's tools/list is asked for, so
// that names made up by a client cannot grow the record without end.
const maxAsked = 4096

// firstAsk reports whether the server's tools/list was never asked for the
// tool named name before, and records that it now is.
func (st *serverState) firstAsk(name string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.asked[name] || len(st.asked) >= maxAsked {
		return false
	}
	if st.asked == nil {
		st.asked = make(map[string]bool)
	}
	st.asked[name] = true
	return true
}

// listedTool is a tool as a tools/list result showed it, with its input
// schema compiled on first use (nil if it does not compile).
type listedTool struct {
	tool   *mcp.Tool
	once   sync.Once
	schema *inputschema.Schema
}

func compileSchema(cache *inputschema.Cache, schema any) *inputschema.Schema {
	if schema == nil {
		return nil
	}
	doc, err := inputschema.Marshal(schema)
	if err != nil {
		return nil
	}
	s, _ := cache.Get(doc)
	return s
}

// learn records the tools of a tools/list result. The SDK lists the same
// *mcp.Tool until a tool is replaced, so relearning a list allocates
// nothing.
func (st *serverState) learn(res mcp.Result) {
	list, ok := res.(*mcp.ListToolsResult)
	if !ok || list == nil {
		return
	}
	for _, t := range list.Tools {
		if t == nil {
			continue
		}
		if v, ok := st.listed.Load(t.Name); !ok || v.(*listedTool).tool != t {
			st.listed.Store(t.Name, &listedTool{tool: t})
		}
	}
}
