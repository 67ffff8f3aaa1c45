package mcpgo

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/inputschema"
)

// adapter is what Middleware, Wrap and AddTool share once configured: the
// pipeline, whether to check arguments, and the input schemas compiled so
// far. It is safe for concurrent use.
type adapter struct {
	pipeline   *filter.Pipeline
	check      bool
	requestIDs bool
	schemas    schemaCache
}

// schemaSource finds the compiled input schema that the arguments of a call
// to tool are checked against; nil means there is nothing to check.
type schemaSource interface {
	inputSchema(ctx context.Context, tool string) *inputschema.Schema
}

// serve runs one call: it checks the arguments against the schema src finds,
// calls next, and turns an error next returns or a panic into an error
// result. Results next returns, error results included, pass through. With
// the argument check off, a successful call allocates nothing here; with it
// on, it costs what finding the schema and the validator allocate.
func (a *adapter) serve(ctx context.Context, req mcp.CallToolRequest, next server.ToolHandlerFunc, src schemaSource) (res *mcp.CallToolResult, err error) {
	defer func() {
		if v := recover(); v != nil {
			res, err = a.fail(ctx, &req, filter.Recovered(v)), nil
		}
	}()
	if a.check {
		if s := src.inputSchema(ctx, req.Params.Name); s != nil {
			if v := checkArguments(s, &req); v != nil {
				return a.fail(ctx, &req, v), nil
			}
		}
	}
	res, err = next(ctx, req)
	if err == nil || isProtocolError(err) {
		return res, err
	}
	return a.fail(ctx, &req, err), nil
}

// fail hands err, raised by the call req, to the pipeline and returns the
// error result of its Response.
func (a *adapter) fail(ctx context.Context, req *mcp.CallToolRequest, err error) *mcp.CallToolResult {
	return errorResult(a.pipeline.Handle(ctx, a.callOf(ctx, req), err))
}
