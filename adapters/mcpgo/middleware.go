package mcpgo

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/internal/inputschema"
)

// Middleware returns a tool handler middleware that runs every tool call of
// a server through the pipeline. Install it once, at start-up, after the
// SDK's own WithLogger and WithRecovery, so that it runs closest to the
// handlers:
//
//	s := server.NewMCPServer("orders", "1.0.0",
//		server.WithLogger(logger),
//		server.WithRecovery(),
//		server.WithToolHandlerMiddleware(mcpgo.Middleware()))
//
// or with s.Use(mcpgo.Middleware()) after the other middleware. The SDK runs
// the first middleware registered outermost. Installed innermost, Middleware
// turns errors into results before the SDK's logging middleware sees them,
// so that middleware logs the outcome without the raw error text, and it
// recovers a panic itself, with the stack where it happened, before
// WithRecovery would turn it into an error without one.
//
// For each call it turns into an error result, mapped and logged once:
//
//   - an error the handler returns, which the SDK alone sends as a JSON-RPC
//     error -32603 with the raw error text;
//   - a panic in the handler, on every transport;
//   - arguments that do not fit the tool's input schema: a
//     VALIDATION_ERROR naming each wrong field and what is wrong with it,
//     never its value, before the handler runs. The schema is the tool's
//     RawInputSchema if set, its InputSchema otherwise, as the server has it
//     registered for the session; each is compiled once, and a tool whose
//     schema is empty or does not compile is not checked. Turn the check
//     off with WithoutArgumentCheck.
//
// Do not combine Middleware with server.WithInputSchemaValidation, which
// answers arguments that do not fit in its own words, before any middleware
// runs.
//
// Results the handler returns, error results included, pass through
// untouched, as does a mcp.URLElicitationRequiredError returned as it is. A
// handler returned by Wrap, WrapStructured or AddTool maps its own errors and
// checks its own arguments, so Middleware does neither twice. An unknown
// tool never reaches Middleware: the SDK answers it. The SDK's
// mcp.NewStructuredToolHandler turns the errors of its handler into results
// with their raw text before Middleware sees them: use WrapStructured.
//
// Given WithFilters, the filters run for every tool. Like
// regexp.MustCompile, Middleware panics with a *toolerr.DefinitionError if
// given a nil filter or WithRequestIDs(nil).
func Middleware(opts ...Option) server.ToolHandlerMiddleware {
	m := &middleware{a: newConfig(opts).mustBuild()}
	return m.wrap
}

// middleware is the state of one Middleware.
type middleware struct {
	a *adapter
}

// wrap implements server.ToolHandlerMiddleware. The SDK calls it for every
// call, to build its chain.
func (m *middleware) wrap(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return m.a.serve(ctx, req, next, m)
	}
}

// inputSchema implements schemaSource: the schema of the tool as registered,
// unless its handler is wrapped and checks the arguments itself.
func (m *middleware) inputSchema(ctx context.Context, tool string) *inputschema.Schema {
	st := registeredTool(ctx, tool)
	if st == nil || isWrapped(st.Handler) {
		return nil
	}
	return m.a.schemas.get(&st.Tool)
}
