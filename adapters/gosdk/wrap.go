package gosdk

import (
	"context"
	"log/slog"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/bind"
	"github.com/mcperr/mcperr/internal/callctx"
	"github.com/mcperr/mcperr/internal/nilness"
)

// Option configures one tool where it is added or wrapped: given to
// AddTool, AddRawTool, Wrap or WrapRaw. What applies to the whole server
// is a filter.Option of its pipeline.
type Option func(*config)

type config struct {
	filters  []filter.Filter
	settings callctx.Settings
	bad      error // an option given a value it does not accept
}

// WithFilters binds exception filters to one tool. They run before the
// server's global filters (filter.WithGlobalFilters), the first outermost.
// A nil filter is a definition error.
func WithFilters(filters ...filter.Filter) Option {
	return func(c *config) { c.filters = append(c.filters[:len(c.filters):len(c.filters)], filters...) }
}

// WithReportOnly sets report-only mode for one tool, over the server's
// (filter.WithReportOnly): on, its failures reach the client exactly as
// without mcperr and are only logged, with what mcperr would have sent;
// off, mcperr handles them. Switching one tool of a report-only server to
// enforcing is WithReportOnly(false). Arguments the SDK refuses before the
// handler runs follow it too; for a tool wrapped with Wrap, whose options
// the middleware learns when its handler first runs, the server's mode
// holds for them until then.
func WithReportOnly(on bool) Option {
	return func(c *config) { c.settings = c.settings.Merge(bind.ReportOnly(on)) }
}

// WithHandBuilt sets, for one tool, the policy for error results its
// handler builds itself, over the server's (filter.WithHandBuilt):
// filter.PassHandBuilt, filter.ReportHandBuilt or filter.MaskHandBuilt.
// Another value is a definition error.
func WithHandBuilt(h filter.HandBuilt) Option {
	return func(c *config) {
		s, err := bind.HandBuilt("gosdk", h)
		if err != nil {
			c.bad = err
			return
		}
		c.settings = c.settings.Merge(s)
	}
}

// WithArgumentCheck sets, for one tool, over the server's
// (filter.WithArgumentCheck), whether its arguments are checked against
// its input schema before its handler runs: on, arguments that do not fit
// are refused with VALIDATION_ERROR and the handler does not run. It is
// for AddTool and AddRawTool: given to Wrap or WrapRaw, which run after
// the check, it is a definition error.
func WithArgumentCheck(on bool) Option {
	return func(c *config) { c.settings = c.settings.Merge(bind.ArgumentCheck(on)) }
}

// newConfig applies opts in order and checks the filters given to fn.
func newConfig(fn string, opts []Option) (config, error) {
	var c config
	for i, opt := range opts {
		if opt == nil {
			return c, &codes.DefinitionError{Mistake: codes.NilValue,
				Reason: "option " + strconv.Itoa(i) + " given to gosdk." + fn + " is nil; leave it out, or pass the option you meant"}
		}
		opt(&c)
	}
	if c.bad != nil {
		return c, c.bad
	}
	return c, nilness.CheckFilters(fn, c.filters)
}

// Wrap returns a typed tool handler that declares, for each call of h, the
// tool's own options (WithFilters, WithReportOnly, WithHandBuilt) to the
// middleware of Install, which handles the call's failures with them:
//
//	mcp.AddTool(s, tool, gosdk.Wrap(h, gosdk.WithFilters(f)))
//
// It is for tools that something else registers, such as a framework's
// own registration helper; to add a tool yourself, AddTool does the same
// in one line and checks the definition. The configuration is the one
// Install gave the server running the call.
//
// Wrap gives the contract only on a server where Install was called: the
// SDK refuses arguments and fails to send an output before and after the
// handler, where only the middleware of Install sees it. On a server
// without mcperr installed, the wrapped handler is h, unchanged: its
// failures and panics reach the SDK as they came, and its first call
// writes one ERROR record to slog.Default saying that mcperr is not
// installed and what to do. Never half the contract.
//
// A *jsonrpc.Error that h returns as it is passes through, as do results
// that h built itself with IsError set but without SetError, and successful
// results. Like regexp.MustCompile, Wrap panics with a
// *codes.DefinitionError, at start-up, if h or a filter is nil.
func Wrap[In, Out any](h mcp.ToolHandlerFor[In, Out], opts ...Option) mcp.ToolHandlerFor[In, Out] {
	b := mustBinding("Wrap", h == nil, opts)
	return wrap(h, b)
}

// WrapRaw is Wrap for a raw tool handler:
//
//	s.AddTool(tool, gosdk.WrapRaw(h))
//
// Like regexp.MustCompile, WrapRaw panics with a *codes.DefinitionError, at
// start-up, if h or a filter is nil.
func WrapRaw(h mcp.ToolHandler, opts ...Option) mcp.ToolHandler {
	b := mustBinding("WrapRaw", h == nil, opts)
	return wrapRaw(h, b)
}

// mustBinding checks what Wrap or WrapRaw was given and returns the
// binding of the wrapped handler; like regexp.MustCompile, it panics with
// the definition error, at start-up.
func mustBinding(fn string, nilHandler bool, opts []Option) *binding {
	if nilHandler {
		panic(&codes.DefinitionError{Mistake: codes.NilValue, Reason: fn + " needs a handler; pass the function that implements the tool"})
	}
	c, err := newConfig(fn, opts)
	if err == nil {
		err = bind.CheckNotWrapped("gosdk", fn, c.settings)
	}
	if err != nil {
		panic(err)
	}
	return &binding{fn: fn, filters: c.filters, settings: c.settings}
}

// binding is what Wrap or WrapRaw was given; the configuration is that of
// the server running the call, found in the context the middleware made.
type binding struct {
	fn       string // the function that wrapped the handler
	filters  []filter.Filter
	settings callctx.Settings // the tool's own, from its options

	warned sync.Once // the record of a call on a server without mcperr
}

// state returns the configuration of the call in ctx, or nil on a server
// without mcperr installed, where the first call writes one ERROR record
// saying so.
func (b *binding) state(ctx context.Context, req *mcp.CallToolRequest) *serverState {
	if c := callctx.From(ctx); c != nil {
		if st, ok := c.State.(*serverState); ok {
			return st
		}
	}
	b.warned.Do(func() {
		warn(ctx, "mcperr: gosdk."+b.fn+" runs on a server without mcperr installed",
			slog.String("tool", callOf(req).Tool),
			slog.String("consequence", "the tool's failures and panics reach the SDK unhandled, exactly as without mcperr: their text is sent to the client, a panic ends the process"),
			slog.String("fix", "call gosdk.Install(s, pipeline) at start-up, before the server runs"))
	})
	return nil
}

// wrap returns h bound to b: under the middleware it declares the tool's
// options for the call and runs h, whose failures the middleware handles;
// without mcperr it is h.
func wrap[In, Out any](h mcp.ToolHandlerFor[In, Out], b *binding) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		b.declare(ctx, req)
		return h(ctx, req, in)
	}
}

// wrapRaw is wrap for a raw handler.
func wrapRaw(h mcp.ToolHandler, b *binding) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		b.declare(ctx, req)
		return h(ctx, req)
	}
}

// declare records, in the state of the server running the call in ctx,
// that the tool req calls runs through b, where the middleware finds the
// tool's options for every failure that follows, this call's included.
func (b *binding) declare(ctx context.Context, req *mcp.CallToolRequest) {
	if st := b.state(ctx, req); st != nil {
		st.declare(callOf(req).Tool, b)
	}
}

// warn writes one ERROR record to slog.Default; a default handler that
// panics is ignored, so that a warning about how a server is put together
// can never take a call down with it.
func warn(ctx context.Context, msg string, attrs ...slog.Attr) {
	defer func() { _ = recover() }()
	slog.Default().LogAttrs(ctx, slog.LevelError, msg, attrs...)
}
