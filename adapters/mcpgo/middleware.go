package mcpgo

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/inputschema"
	"github.com/mcperr/mcperr/internal/isolate"
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
		return st.serve(ctx, req, next, src, nil, true)
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
// tool's filters. If isolated, next runs on a goroutine of its own, so that
// a handler that panics with nil or calls runtime.Goexit is still answered;
// the middleware isolates every call, and a wrapper only where no
// middleware runs. A panic is mapped after next has ended, never in a
// deferred function. Results next returns, error results included, pass
// through. With the argument check off, a successful call allocates nothing
// here; with it on, it costs what finding the schema and the validator
// allocate.
func (st *serverState) serve(ctx context.Context, req mcp.CallToolRequest, next server.ToolHandlerFunc, src schemaSource, filters []filter.Filter, isolated bool) (*mcp.CallToolResult, error) {
	ctx = filter.ContextWithRequestID(ctx, requestIDOf(&req))
	if src != nil {
		if s, failure := schemaOf(ctx, src, req.Params.Name); failure != nil {
			return st.fail(ctx, &req, failure, filters), nil
		} else if s != nil {
			if v := checkArguments(s, &req); v != nil {
				return st.fail(ctx, &req, v, filters), nil
			}
		}
	}
	c := handlerCall{next: next, ctx: ctx, req: req}
	var r handlerResult
	var ended isolate.Outcome
	if isolated {
		r, ended = st.runner.Run(c)
	} else {
		r, ended = st.runner.Call(c)
	}
	switch failure := panics.Err(ended); {
	case failure != nil:
		return st.fail(ctx, &req, failure, filters), nil
	case r.err == nil || isProtocolError(r.err):
		return r.res, r.err
	}
	return st.fail(ctx, &req, r.err, filters), nil
}

// schemaOf finds the input schema of tool, turning a panic of the lookup
// into the error to answer.
func schemaOf(ctx context.Context, src schemaSource, tool string) (s *inputschema.Schema, failure error) {
	defer func() {
		if v := recover(); v != nil {
			failure = panics.Recovered(v)
		}
	}()
	return src.inputSchema(ctx, tool), nil
}

// handlerCall is one call of the rest of the chain or of a wrapped handler.
type handlerCall struct {
	next server.ToolHandlerFunc
	ctx  context.Context
	req  mcp.CallToolRequest
}

// handlerResult is what it returned.
type handlerResult struct {
	res *mcp.CallToolResult
	err error
}

func callHandler(c handlerCall) handlerResult {
	res, err := c.next(c.ctx, c.req)
	return handlerResult{res, err}
}

// fail hands err, raised by the call req, to the pipeline of st with the
// tool's filters, and returns the error result of its Response.
func (st *serverState) fail(ctx context.Context, req *mcp.CallToolRequest, err error, filters []filter.Filter) *mcp.CallToolResult {
	return errorResult(st.p.Handle(ctx, st.callOf(ctx, req), err, filters...))
}
