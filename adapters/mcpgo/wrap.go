package mcpgo

import (
	"context"
	"reflect"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/inputschema"
)

// Wrap returns a tool handler that runs the errors and panics of h through
// the mcperr configuration of the server it runs on, with the filters given
// by WithFilters bound to this tool. It keeps s.AddTool compiling:
//
//	s.AddTool(tool, mcpgo.Wrap(h, mcpgo.WithFilters(f)))
//
// It works as well around what mcp.NewTypedToolHandler returns:
//
//	s.AddTool(tool, mcpgo.Wrap(mcp.NewTypedToolHandler(h)))
//
// but not around mcp.NewStructuredToolHandler, which turns the errors of its
// handler into results with their raw text before Wrap sees them: use
// WrapStructured instead.
//
// The configuration is the one Install, or AddTool for any tool, gave the
// server that runs the call. On a server without mcperr, Wrap uses the
// default configuration, filter.New(); on this SDK the wrapped handler alone
// gives the whole contract, so nothing is missing there but the choice of
// logger, filters and reporter.
//
// Before h runs, the wrapped handler checks the call's arguments against the
// input schema of the tool as the server has it registered, unless
// WithoutArgumentCheck is given here or to Install; arguments that do not
// fit get a VALIDATION_ERROR and h does not run. Each schema is compiled
// once. Do not combine the check with server.WithInputSchemaValidation,
// which answers first, in its own words.
//
// When h returns an error or panics, the wrapped handler returns an error
// result: the text blocks of the pipeline's Response (the message, then
// what the model needs to act on it), its envelope in _meta[filter.MetaKey], no structured
// content. Results of h, error results included, pass through untouched, as
// does a mcp.URLElicitationRequiredError returned as it is. The middleware
// of Install neither maps these errors again nor checks the arguments a
// second time.
//
// Like regexp.MustCompile, Wrap panics with a *toolerr.DefinitionError, at
// start-up, if h or a filter is nil, or if given WithRequestIDs, which
// applies to the whole server and goes to Install.
func Wrap(h server.ToolHandlerFunc, opts ...Option) server.ToolHandlerFunc {
	return newWrapper("Wrap", h, opts).handle
}

// WrapStructured returns a tool handler for a handler written for
// mcp.NewStructuredToolHandler. Like that function, it binds the arguments
// to TArgs and, on success, sends the TResult as structured content with its
// JSON as text. Unlike it, which sends the raw text of every error to the
// client, WrapStructured runs the errors and panics of h through the mcperr
// configuration of the server, as Wrap does:
//
//	s.AddTool(tool, mcpgo.WrapStructured(h))
//
// It is Wrap(Structured(h), opts...). To add such a handler with AddTool,
// pass Structured(h). Like regexp.MustCompile, WrapStructured panics with a
// *toolerr.DefinitionError, at start-up, if h or a filter is nil, or if
// given WithRequestIDs.
func WrapStructured[TArgs, TResult any](h mcp.StructuredToolHandlerFunc[TArgs, TResult], opts ...Option) server.ToolHandlerFunc {
	if h == nil {
		panic(nilHandler("WrapStructured"))
	}
	return newWrapper("WrapStructured", Structured(h), opts).handle
}

// Structured returns a tool handler for a handler written for
// mcp.NewStructuredToolHandler. Like that function, it binds the arguments
// to TArgs and, on success, sends the TResult as structured content with its
// JSON as text; unlike it, it returns the errors of h as they are, for Wrap,
// AddTool or the middleware of Install to map, instead of sending their raw
// text to the client. On a server without mcperr it handles no error: give
// it to AddTool or Wrap.
//
//	err := mcpgo.AddTool(s, forecastTool, mcpgo.Structured(forecast))
func Structured[TArgs, TResult any](h mcp.StructuredToolHandlerFunc[TArgs, TResult]) server.ToolHandlerFunc {
	if h == nil {
		return nil
	}
	return mcp.NewTypedToolHandler(func(ctx context.Context, req mcp.CallToolRequest, args TArgs) (*mcp.CallToolResult, error) {
		out, err := h(ctx, req, args)
		if err != nil {
			return nil, err
		}
		return mcp.NewToolResultStructuredOnly(out), nil
	})
}

// wrapper is a handler wrapped by Wrap, WrapStructured or AddTool.
type wrapper struct {
	// st is the state of the server the tool was added to by AddTool; for
	// Wrap it is nil, and the state is that of the server running the call.
	st      *serverState
	next    server.ToolHandlerFunc
	filters []filter.Filter
	noCheck bool
	unbound unbound
	// fixed is set by AddTool, which compiles the tool's own input schema
	// into schema; otherwise the schema is looked up at each call.
	fixed  bool
	schema atomic.Pointer[inputschema.Schema]
}

// newWrapper wraps h for fn, or panics with the definition error.
func newWrapper(fn string, h server.ToolHandlerFunc, opts []Option) *wrapper {
	if h == nil {
		panic(nilHandler(fn))
	}
	c := mustToolConfig(fn, opts)
	return &wrapper{next: h, filters: c.filters, noCheck: c.noCheck}
}

// handle is the wrapped handler.
func (w *wrapper) handle(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	st, served := w.state(ctx)
	var src schemaSource
	if !w.noCheck && !st.noCheck {
		src = w
	}
	return st.serve(ctx, req, w.next, src, w.filters, !served)
}

// state returns the configuration of the call in ctx: the state AddTool
// bound w to, or that of the server running the call, or the default one.
func (w *wrapper) state(ctx context.Context) (st *serverState, served bool) {
	if w.st != nil {
		return w.st, true
	}
	if st := stateOf(ctx); st != nil {
		return st, true
	}
	return w.unbound.state(), false
}

// inputSchema implements schemaSource.
func (w *wrapper) inputSchema(ctx context.Context, tool string) *inputschema.Schema {
	if w.fixed {
		return w.schema.Load()
	}
	t := registeredTool(ctx, tool)
	if t == nil {
		return nil
	}
	st, _ := w.state(ctx)
	return st.schemas.get(&t.Tool)
}

// wrappedCode is the code address shared by every handler that Wrap,
// WrapStructured and AddTool return: the method value of (*wrapper).handle.
var wrappedCode = reflect.ValueOf((*wrapper)(nil).handle).Pointer()

// isWrapped reports whether h was returned by Wrap, WrapStructured or
// AddTool, so that the middleware leaves the argument check to it. It
// allocates nothing.
func isWrapped(h server.ToolHandlerFunc) bool {
	return h != nil && reflect.ValueOf(h).Pointer() == wrappedCode
}

// nilHandler is the definition error of a nil handler given to fn.
func nilHandler(fn string) *codes.DefinitionError {
	return &codes.DefinitionError{Code: codes.NilHandler, Reason: fn + " needs a handler; pass the function that implements the tool"}
}
