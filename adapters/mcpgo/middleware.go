package mcpgo

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/callctx"
	"github.com/mcperr/mcperr/internal/guard"
)

// middleware is the tool handler middleware that Install puts on a server.
// It gives every call a context that carries the state of st and the
// call's request id.
func (st *serverState) middleware(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return st.serve(callctx.With(ctx, st), req, next, nil)
	}
}

// serve runs one call of next on the calling goroutine and turns an error
// it returns, or a panic, recovered here with defer, into an error result,
// mapped with filters. A handler's error, should the pipeline mask it, is
// answered VALIDATION_ERROR when the arguments do not fit the schema. Results next returns, error results included, pass through; so
// does a runtime.Goexit, logged once and left unanswered.
func (st *serverState) serve(ctx context.Context, req mcp.CallToolRequest, next server.ToolHandlerFunc, filters []filter.Filter) (res *mcp.CallToolResult, err error) {
	returned := false
	defer func() {
		if !returned {
			if failure := guard.Recovered(ctx, recover()); failure != nil {
				res, err = st.fail(ctx, &req, failure, filters), nil
			}
		}
	}()
	res, err = next(ctx, req)
	returned = true
	if err == nil || isProtocolError(err) {
		return res, err
	}
	return st.failChecking(ctx, req, err, filters), nil
}

// failChecking is fail for a handler's error: should the pipeline mask
// err, a call whose arguments do not fit the tool's schema is the client's
// failure instead. It is a function of its own so that the copy of req its
// check keeps costs nothing on the success path.
func (st *serverState) failChecking(ctx context.Context, req mcp.CallToolRequest, err error, filters []filter.Filter) *mcp.CallToolResult {
	if c := callctx.From(ctx); c != nil {
		c.Arguments = func() error { return st.checkArguments(ctx, &req) }
		defer func() { c.Arguments = nil }()
	}
	return st.fail(ctx, &req, err, filters)
}

// fail hands err, raised by the call req, to the pipeline of st with the
// tool's filters, and returns the error result of the failure.
func (st *serverState) fail(ctx context.Context, req *mcp.CallToolRequest, err error, filters []filter.Filter) *mcp.CallToolResult {
	return errorResult(st.p.Handle(ctx, callOf(ctx, req), err, filters...))
}
