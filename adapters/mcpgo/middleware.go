package mcpgo

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/inputschema"
	"github.com/mcperr/mcperr/internal/panics"
)

// middleware is the tool handler middleware that Install puts on a server.
// The SDK calls it for every call, to build its chain.
func (st *serverState) middleware(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var src schemaSource
		if !st.noCheck {
			src = st
		}
		return st.serve(ctx, req, next, src, nil)
	}
}

// inputSchema implements schemaSource for the middleware: the schema of the
// tool as registered, unless its handler is wrapped and checks the
// arguments itself.
func (st *serverState) inputSchema(ctx context.Context, tool string) *inputschema.Schema {
	t := registeredTool(ctx, tool)
	if t == nil || isWrapped(t.Handler) {
		return nil
	}
	return st.schemas.get(&t.Tool)
}

// schemaSource finds the compiled input schema that the arguments of a call
// to tool are checked against; nil means there is nothing to check.
type schemaSource interface {
	inputSchema(ctx context.Context, tool string) *inputschema.Schema
}

// serve runs one call with the configuration of st: it checks the arguments
// against the schema src finds, unless src is nil, calls next, and turns an
// error next returns or a panic into an error result, mapped with the
// tool's filters. Results next returns, error results included, pass
// through. With the argument check off, a successful call allocates nothing
// here; with it on, it costs what finding the schema and the validator
// allocate.
func (st *serverState) serve(ctx context.Context, req mcp.CallToolRequest, next server.ToolHandlerFunc, src schemaSource, filters []filter.Filter) (res *mcp.CallToolResult, err error) {
	defer func() {
		if v := recover(); v != nil {
			res, err = st.fail(ctx, &req, panics.Recovered(v), filters), nil
		}
	}()
	if src != nil {
		if s := src.inputSchema(ctx, req.Params.Name); s != nil {
			if v := checkArguments(s, &req); v != nil {
				return st.fail(ctx, &req, v, filters), nil
			}
		}
	}
	res, err = next(ctx, req)
	if err == nil || isProtocolError(err) {
		return res, err
	}
	return st.fail(ctx, &req, err, filters), nil
}

// fail hands err, raised by the call req, to the pipeline of st with the
// tool's filters, and returns the error result of its Response.
func (st *serverState) fail(ctx context.Context, req *mcp.CallToolRequest, err error, filters []filter.Filter) *mcp.CallToolResult {
	return errorResult(st.p.Handle(ctx, st.callOf(ctx, req), err, filters...))
}
