package gosdk

import (
	"context"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/bind"
	"github.com/mcperr/mcperr/internal/callctx"
)

// Option configures one tool where it is added or wrapped: given to
// AddTool, AddRawTool, Wrap or WrapRaw. What applies to the whole server
// is a filter.Option of its pipeline.
type Option func(*bind.Config)

// WithFilters binds exception filters to one tool. They run before the
// server's global filters (filter.WithGlobalFilters), the first outermost.
// A nil filter is a definition error.
func WithFilters(filters ...filter.Filter) Option {
	return func(c *bind.Config) { c.AddFilters(filters) }
}

// WithReportOnly sets report-only mode for one tool, over the server's
// (filter.WithReportOnly): on, its failures reach the client exactly as
// without mcperr and are only logged, with what mcperr would have sent;
// off, mcperr handles them. Arguments the SDK refuses before the handler
// runs follow it too; for a tool wrapped with Wrap, the server's mode holds
// for them until its handler first runs.
func WithReportOnly(on bool) Option {
	return func(c *bind.Config) { c.ReportOnly(on) }
}

// WithHandBuilt sets, for one tool, the policy for error results its
// handler builds itself, over the server's (filter.WithHandBuilt):
// filter.PassHandBuilt, filter.ReportHandBuilt or filter.MaskHandBuilt.
// Another value is a definition error.
func WithHandBuilt(h filter.HandBuilt) Option {
	return func(c *bind.Config) { c.HandBuilt("gosdk", h) }
}

// WithArgumentCheck sets, for one tool, over the server's
// (filter.WithArgumentCheck), whether its arguments are checked against
// its input schema before its handler runs: on, arguments that do not fit
// are refused with VALIDATION_ERROR and the handler does not run. It is
// for AddTool and AddRawTool: given to Wrap or WrapRaw, which run after
// the check, it is a definition error.
func WithArgumentCheck(on bool) Option {
	return func(c *bind.Config) { c.ArgumentCheck(on) }
}

// Wrap returns a typed tool handler that declares the tool's own options
// (WithFilters, WithReportOnly, WithHandBuilt) to the middleware of
// Install, which handles the failures of each call of h with them, as
// Install says, in the configuration of the server running the call. It is
// for tools that something else registers, such as a framework's helper;
// to add a tool yourself, AddTool does the same and checks the definition.
//
//	mcp.AddTool(s, tool, gosdk.Wrap(h, gosdk.WithFilters(f)))
//
// Only the middleware sees the SDK refuse arguments or fail to send an
// output, so Wrap never gives half the contract: on a server without
// mcperr installed, the wrapped handler is h unchanged, whose failures and
// panics reach the SDK as they came, and its first call writes one ERROR
// record to slog.Default saying that mcperr is not installed and what to
// do.
//
// Like regexp.MustCompile, Wrap panics with a *codes.DefinitionError, at
// start-up, if h, an option or a filter is nil, or an option is invalid.
func Wrap[In, Out any](h mcp.ToolHandlerFor[In, Out], opts ...Option) mcp.ToolHandlerFor[In, Out] {
	b := mustBinding("Wrap", h == nil, opts)
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		b.declare(ctx, req)
		return h(ctx, req, in)
	}
}

// WrapRaw is Wrap for a raw tool handler:
//
//	s.AddTool(tool, gosdk.WrapRaw(h))
//
// Like Wrap, it panics with a *codes.DefinitionError for a nil h or a bad
// option.
func WrapRaw(h mcp.ToolHandler, opts ...Option) mcp.ToolHandler {
	b := mustBinding("WrapRaw", h == nil, opts)
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		b.declare(ctx, req)
		return h(ctx, req)
	}
}

func mustBinding(fn string, nilHandler bool, opts []Option) *binding {
	if nilHandler {
		panic(&codes.DefinitionError{Mistake: codes.NilValue, Reason: fn + " needs a handler; pass the function that implements the tool"})
	}
	c, err := bind.NewConfig("gosdk", fn, opts)
	if err == nil {
		err = bind.CheckNotWrapped("gosdk", fn, c.Settings)
	}
	if err != nil {
		panic(err)
	}
	return &binding{fn: fn, Config: c}
}

// binding is what Wrap or WrapRaw was given.
type binding struct {
	fn string // the function that wrapped the handler
	bind.Config

	warned sync.Once // the record of a call on a server without mcperr
}

// declare records, in the state of the server running the call in ctx,
// that the tool req calls runs through b, where the middleware finds its
// options for every failure that follows, this call's included. On a
// server without mcperr the first call writes one ERROR record saying so.
func (b *binding) declare(ctx context.Context, req *mcp.CallToolRequest) {
	name := callOf(req).Tool
	if c := callctx.From(ctx); c != nil {
		if st, ok := c.State.(*serverState); ok && st != nil {
			// Stored once: every later call costs only a lookup.
			if v, ok := st.wrapped.Load(name); !ok || v != b {
				st.wrapped.Store(name, b)
			}
			return
		}
	}
	b.warned.Do(func() {
		defer func() { _ = recover() }() // a log handler that panics never takes the call down
		slog.Default().LogAttrs(ctx, slog.LevelError, "mcperr: gosdk."+b.fn+" runs on a server without mcperr installed",
			slog.String("tool", name),
			slog.String("consequence", "the tool's failures and panics reach the SDK unhandled, exactly as without mcperr: their text is sent to the client, a panic ends the process"),
			slog.String("fix", "call gosdk.Install(s, pipeline) at start-up, before the server runs"))
	})
}
