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
// known. It is called on the failure path only. The schema of a tool added
// through this package was compiled when it was added; that of any other
// tool is learned from the tools/list results the clients asked for, and,
// for a tool no client listed, by asking the server's own tools/list
// handler, next, the handlers inside the middleware, once a tool for the
// life of the server.
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

// schemaOf returns the compiled input schema of the tool name, if known.
func (st *serverState) schemaOf(name string) *inputschema.Schema {
	if e := st.tool(name); e != nil {
		return e.compiled
	}
	if v, ok := st.listed.Load(name); ok {
		return v.(*listedTool).compile(&st.schemas)
	}
	return nil
}

// maxListPages bounds the pages of tools/list read to find one tool.
const maxListPages = 64

// listFor asks the server's own tools/list handler for the tools of the
// session of req, page by page, until it has seen the tool req calls, and
// reports whether it asked. It asks only for a tool neither added through
// this package nor listed by any client, and once a tool for the life of
// the server, so that a server's failures never cost more of its own
// handlers than that.
func (st *serverState) listFor(ctx context.Context, next mcp.MethodHandler, req *mcp.CallToolRequest) bool {
	if next == nil || req.Session == nil || !st.firstAsk(req.Params.Name) {
		return false
	}
	cursor := ""
	for range maxListPages {
		res, err := next(ctx, methodListTools, &mcp.ListToolsRequest{Session: req.Session, Params: &mcp.ListToolsParams{Cursor: cursor}})
		if err != nil {
			return true
		}
		st.learn(res)
		list, ok := res.(*mcp.ListToolsResult)
		if !ok || list == nil || list.NextCursor == "" {
			return true
		}
		if _, found := st.listed.Load(req.Params.Name); found {
			return true
		}
		cursor = list.NextCursor
	}
	return true
}

// maxAsked bounds the tool names the server's tools/list is asked for, so
// that calls of names made up by a client cannot grow the record of them
// without end.
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
// schema compiled on first use.
type listedTool struct {
	tool   *mcp.Tool
	once   sync.Once
	schema *inputschema.Schema
}

// compile returns the compiled input schema of l, or nil if it has none
// that compiles.
func (l *listedTool) compile(cache *inputschema.Cache) *inputschema.Schema {
	l.once.Do(func() { l.schema = compileSchema(cache, l.tool.InputSchema) })
	return l.schema
}

// compileSchema compiles a schema value of any type through cache; nil if
// it is nil or does not compile.
func compileSchema(cache *inputschema.Cache, schema any) *inputschema.Schema {
	if schema == nil {
		return nil
	}
	doc, err := inputschema.Marshal(schema)
	if err != nil {
		return nil
	}
	s, err := cache.Get(doc)
	if err != nil {
		return nil
	}
	return s
}

// learn records the tools of a tools/list result. The SDK lists the same
// *mcp.Tool until a tool is replaced, so a list already learned costs a
// lookup a tool and allocates nothing.
func (st *serverState) learn(res mcp.Result) {
	list, ok := res.(*mcp.ListToolsResult)
	if !ok || list == nil {
		return
	}
	for _, t := range list.Tools {
		if t == nil {
			continue
		}
		if v, ok := st.listed.Load(t.Name); ok && v.(*listedTool).tool == t {
			continue
		}
		st.listed.Store(t.Name, &listedTool{tool: t})
	}
}
