package mcpgo

import (
	"context"
	"reflect"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/internal/inputschema"
	"github.com/mcperr/mcperr/toolerr"
)

// Wrap returns a tool handler that runs the errors and panics of h through
// the pipeline, with the filters given by WithFilters bound to this tool. It
// is a drop-in replacement:
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
// Before h runs, the wrapped handler checks the call's arguments against the
// input schema of the tool as the server has it registered, unless
// WithoutArgumentCheck is given; arguments that do not fit get a
// VALIDATION_ERROR and h does not run. Each schema is compiled once. Do not
// combine the check with server.WithInputSchemaValidation, which answers
// first, in its own words.
//
// When h returns an error or panics, the wrapped handler returns an error
// result: one text block a text of the pipeline's Response, its envelope in
// _meta[filter.MetaKey], no structured content. Results of h, error results
// included, pass through untouched, as does a
// mcp.URLElicitationRequiredError returned as it is. Middleware, if
// installed too, neither maps these errors again nor checks the arguments a
// second time.
//
// Like regexp.MustCompile, Wrap panics with a *toolerr.DefinitionError if h
// or a filter is nil, or if given WithRequestIDs(nil).
func Wrap(h server.ToolHandlerFunc, opts ...Option) server.ToolHandlerFunc {
	if h == nil {
		panic(nilHandler("Wrap"))
	}
	w := &wrapper{a: newConfig(opts).mustBuild(), next: h}
	return w.handle
}

// WrapStructured returns a tool handler for a handler written for
// mcp.NewStructuredToolHandler. Like that function, it binds the arguments
// to TArgs and, on success, sends the TResult as structured content with its
// JSON as text. Unlike it, which sends the raw text of every error to the
// client, WrapStructured runs the errors and panics of h through the
// pipeline, as Wrap does:
//
//	s.AddTool(tool, mcpgo.WrapStructured(h))
//
// It is Wrap(Structured(h), opts...). To add such a handler through Tools,
// pass Structured(h) to AddTool. Like regexp.MustCompile, WrapStructured panics with a
// *toolerr.DefinitionError if h or a filter is nil.
func WrapStructured[TArgs, TResult any](h mcp.StructuredToolHandlerFunc[TArgs, TResult], opts ...Option) server.ToolHandlerFunc {
	if h == nil {
		panic(nilHandler("WrapStructured"))
	}
	return Wrap(Structured(h), opts...)
}

// Structured returns a tool handler for a handler written for
// mcp.NewStructuredToolHandler. Like that function, it binds the arguments
// to TArgs and, on success, sends the TResult as structured content with its
// JSON as text; unlike it, it returns the errors of h as they are, for Wrap,
// Middleware or (*Tools).AddTool to map, instead of sending their raw text
// to the client. On its own it handles no error: give it to one of those.
//
//	err := tools.AddTool(forecastTool, mcpgo.Structured(forecast))
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
	a    *adapter
	next server.ToolHandlerFunc
	// fixed is set by AddTool, which compiles the tool's own input schema
	// into schema; otherwise the schema is looked up at each call.
	fixed  bool
	schema atomic.Pointer[inputschema.Schema]
}

// handle is the wrapped handler.
func (w *wrapper) handle(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return w.a.serve(ctx, req, w.next, w)
}

// inputSchema implements schemaSource.
func (w *wrapper) inputSchema(ctx context.Context, tool string) *inputschema.Schema {
	if w.fixed {
		return w.schema.Load()
	}
	st := registeredTool(ctx, tool)
	if st == nil {
		return nil
	}
	return w.a.schemas.get(&st.Tool)
}

// wrappedCode is the code address shared by every handler that Wrap,
// WrapStructured and AddTool return: the method value of (*wrapper).handle.
var wrappedCode = reflect.ValueOf((*wrapper)(nil).handle).Pointer()

// isWrapped reports whether h was returned by Wrap, WrapStructured or
// AddTool, so that Middleware leaves the argument check to it. It
// allocates nothing.
func isWrapped(h server.ToolHandlerFunc) bool {
	return h != nil && reflect.ValueOf(h).Pointer() == wrappedCode
}

// nilHandler is the definition error of a nil handler given to fn.
func nilHandler(fn string) *toolerr.DefinitionError {
	return &toolerr.DefinitionError{Code: codes.NilHandler, Reason: fn + " needs a handler; pass the function that implements the tool"}
}
