package gosdk

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/internal/inputschema"
)

// methodListTools is the method Middleware uses to find a tool's schema.
const methodListTools = "tools/list"

// checkArguments reports how the arguments of req do not fit the input
// schema of the tool it calls, or nil if they fit or the schema cannot be
// found or compiled. It is called on the error path only. The schema of a
// tool added through this package is known; for any other tool, the
// server's tools are listed through next, following cursors, so that each
// is seen as the SDK serves it.
func (st *serverState) checkArguments(ctx context.Context, next mcp.MethodHandler, req *mcp.CallToolRequest) *domain.Validation {
	if req.Params == nil {
		return nil
	}
	var schema any
	if e := st.tool(req.Params.Name); e != nil {
		schema = e.schema
	} else if req.Session != nil {
		if tool := findTool(ctx, next, req.Session, req.Params.Name); tool != nil {
			schema = tool.InputSchema
		}
	}
	if schema == nil {
		return nil
	}
	return checkAgainst(&st.schemas, schema, req.Params.Arguments)
}

// checkAgainst checks the raw arguments args against schema, compiled
// through cache. It returns nil if they fit, or if the schema does not
// compile.
func checkAgainst(cache *inputschema.Cache, schema any, args []byte) *domain.Validation {
	doc, err := inputschema.Marshal(schema)
	if err != nil {
		return nil
	}
	s, err := cache.Get(doc)
	if err != nil {
		return nil
	}
	return s.CheckJSON(args)
}

// findTool returns the tool named name as tools/list serves it, or nil.
func findTool(ctx context.Context, next mcp.MethodHandler, session *mcp.ServerSession, name string) *mcp.Tool {
	params := &mcp.ListToolsParams{}
	for range maxListPages {
		res, err := next(ctx, methodListTools, &mcp.ListToolsRequest{Session: session, Params: params})
		if err != nil {
			return nil
		}
		list, ok := res.(*mcp.ListToolsResult)
		if !ok || list == nil {
			return nil
		}
		for _, t := range list.Tools {
			if t != nil && t.Name == name {
				return t
			}
		}
		if list.NextCursor == "" {
			return nil
		}
		params = &mcp.ListToolsParams{Cursor: list.NextCursor}
	}
	return nil
}

// maxListPages bounds the pages findTool reads, against a cursor that never
// ends.
const maxListPages = 1000
