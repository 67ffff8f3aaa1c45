package gosdk

import (
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/internal/inputschema"
)

// checkArguments reports how the arguments of req do not fit the input
// schema of the tool it calls, or nil if they fit or the schema is not
// known. It is called on the failure path only, and sends no request: the
// schema of a tool added through this package was compiled when it was
// added; that of any other tool is learned from the tools/list results the
// clients asked for, as every client lists the tools before it calls them.
func (st *serverState) checkArguments(req *mcp.CallToolRequest) *domain.Validation {
	if req.Params == nil {
		return nil
	}
	var s *inputschema.Schema
	if e := st.tool(req.Params.Name); e != nil {
		s = e.compiled
	} else if v, ok := st.listed.Load(req.Params.Name); ok {
		s = v.(*listedTool).compile(&st.schemas)
	}
	if s == nil {
		return nil
	}
	return s.CheckJSON(req.Params.Arguments)
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
