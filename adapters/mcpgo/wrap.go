package mcpgo

import (
	"context"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/bind"
	"github.com/mcperr/mcperr/internal/callctx"
)

// Option configures one tool or completion provider where it is added or
// wrapped: given to AddTool, Wrap, WrapPromptCompletion or
// WrapResourceCompletion. What applies to the whole server is a
// filter.Option of its pipeline.
type Option func(*bind.Config)

// WithFilters binds exception filters to one tool or provider. They run
// before the server's global filters (filter.WithGlobalFilters), the
// first outermost. A nil filter is a definition error.
func WithFilters(filters ...filter.Filter) Option {
	return func(c *bind.Config) { c.AddFilters(filters) }
}

// WithReportOnly sets report-only mode for one tool or provider, over the
// server's (filter.WithReportOnly): on, its failures reach the client
// exactly as without mcperr and are only logged, with what mcperr would
// have sent; off, mcperr handles them. It covers the arguments
// server.WithInputSchemaValidation refuses too, but for a tool wrapped
// with Wrap only from its handler's first run, when the middleware learns
// its options; until then the server's mode holds.
func WithReportOnly(on bool) Option {
	return func(c *bind.Config) { c.ReportOnly(on) }
}

// WithHandBuilt sets, for one tool, the policy for error results its
// handler builds itself, over the server's (filter.WithHandBuilt):
// filter.PassHandBuilt, filter.ReportHandBuilt or filter.MaskHandBuilt.
// Another value is a definition error.
func WithHandBuilt(h filter.HandBuilt) Option {
	return func(c *bind.Config) { c.HandBuilt("mcpgo", h) }
}

// WithArgumentCheck sets, for one tool, over the server's
// (filter.WithArgumentCheck), whether its arguments are checked against
// its input schema before its handler runs: on, arguments that do not fit
// are refused with VALIDATION_ERROR and the handler does not run. It is
// for AddTool: given to Wrap or a completion wrapper, which run after the
// check, it is a definition error.
func WithArgumentCheck(on bool) Option {
	return func(c *bind.Config) { c.ArgumentCheck(on) }
}

// Wrap returns a tool handler that runs the errors and panics of h through
// the mcperr configuration of the server running the call, with opts bound
// to this tool, for tools that something else registers (AddTool does the
// same in one line and checks the definition):
//
//	s.AddTool(tool, mcpgo.Wrap(h, mcpgo.WithFilters(f)))
//
// Failures are answered, and results pass through, as Install describes.
// On a server without mcperr, Wrap uses the default configuration,
// filter.New(): the wrapped handler alone gives the whole contract.
//
// Like regexp.MustCompile, Wrap panics with a *codes.DefinitionError, at
// start-up, if h, an option or a filter is nil, or an option is invalid
// (such as WithArgumentCheck).
func Wrap(h server.ToolHandlerFunc, opts ...Option) server.ToolHandlerFunc {
	w := mustWrapper("Wrap", h == nil, opts)
	w.next = h
	return w.handle
}

// Structured returns a tool handler for a handler written for
// mcp.NewStructuredToolHandler. Like that function, it binds the arguments
// to TArgs and sends a TResult as structured content with its JSON as
// text; unlike it, it returns the errors of h, and arguments it cannot
// bind, as errors for mcperr to map, instead of sending their raw text:
//
//	err := mcpgo.AddTool(s, forecastTool, mcpgo.Structured(forecast))
//
// Structured returns nil for a nil h.
func Structured[TArgs, TResult any](h mcp.StructuredToolHandlerFunc[TArgs, TResult]) server.ToolHandlerFunc {
	if h == nil {
		return nil
	}
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args TArgs
		if err := req.BindArguments(&args); err != nil {
			return nil, err
		}
		out, err := h(ctx, req, args)
		if err != nil {
			return nil, err
		}
		return mcp.NewToolResultStructuredOnly(out), nil
	}
}

// wrapper is a handler or completion provider wrapped by Wrap or a
// completion wrapper, with its own options.
type wrapper struct {
	next    server.ToolHandlerFunc
	own     bind.Config
	once    sync.Once
	unbound *serverState // the default, where mcperr is not installed
}

func mustWrapper(fn string, nilHandler bool, opts []Option) *wrapper {
	if nilHandler {
		panic(&codes.DefinitionError{Mistake: codes.NilValue, Reason: fn + " needs a handler; pass the function to wrap"})
	}
	c, err := bind.NewConfig("mcpgo", fn, opts)
	if err == nil {
		err = bind.CheckNotWrapped("mcpgo", fn, c.Settings)
	}
	if err != nil {
		panic(err)
	}
	return &wrapper{own: c}
}

// handle is the wrapped handler. Under the middleware of Install, which
// handles the call's failures, it declares the tool's options to the
// server and runs the handler; elsewhere it handles them itself.
func (w *wrapper) handle(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if c := callctx.From(ctx); c != nil {
		if st, served := c.State.(*serverState); served {
			// Declare w's options to the middleware, storing them only once.
			if old, ok := st.wrapped.Load(req.Params.Name); !ok || old != w {
				st.wrapped.Store(req.Params.Name, w)
			}
			return w.next(ctx, req)
		}
	}
	ctx, st := w.enter(ctx)
	return st.serve(ctx, req, w.next, &w.own)
}

// enter returns, for one call of the wrapped handler or provider that no
// middleware serves, the context the middleware would give it and the
// state of the server running it, or the default one.
func (w *wrapper) enter(ctx context.Context) (context.Context, *serverState) {
	ctx = callctx.With(ctx, nil) // never nil
	st := servers.Load(server.ServerFromContext(ctx))
	if st == nil {
		w.once.Do(func() {
			p, _ := filter.New() // cannot fail without options
			w.unbound = &serverState{p: p}
		})
		st = w.unbound
	}
	return callctx.With(ctx, st), st
}
