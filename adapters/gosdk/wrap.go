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
	"github.com/mcperr/mcperr/internal/guard"
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
// handler runs follow the tool's setting only for a tool added with AddTool
// or AddRawTool; for one wrapped with Wrap, the server's.
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

// Wrap returns a typed tool handler that runs the errors and panics of h
// through the mcperr configuration of the server it runs on, with the
// filters given by WithFilters bound to this tool:
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

// WrapRaw returns a raw tool handler that runs the errors and panics of h
// through the mcperr configuration of the server it runs on, as Wrap does
// for typed handlers:
//
//	s.AddTool(tool, gosdk.WrapRaw(h))
//
// When h fails, the wrapped handler returns a complete error result: the
// text blocks the pipeline rendered, the envelope in _meta[filter.MetaKey],
// no structured content. Like regexp.MustCompile, WrapRaw panics with a
// *codes.DefinitionError, at start-up, if h or a filter is nil.
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

// fail maps err, raised by the call req, with st, the configuration of the
// call, and the filters of b. A raw handler's error is answered
// VALIDATION_ERROR if it would be masked and the arguments do not fit,
// unless checked says there is nothing to check: a panic, or a typed
// handler's error, whose arguments the SDK checked. In report-only mode,
// or for an error an inner layer reported already, it returns nil: the
// error passes on as it came.
func (b *binding) fail(ctx context.Context, st *serverState, req *mcp.CallToolRequest, err error, checked bool) *mappedError {
	if m, ok := err.(*mappedError); ok {
		return m
	}
	if callctx.From(ctx).Passes(err) {
		return nil
	}
	st.argumentsOf(ctx, req, checked)
	return st.mapWith(ctx, req, err, b.filters)
}

// wrap wraps h with b. h runs on the calling goroutine; a panic is
// recovered there with defer.
func wrap[In, Out any](h mcp.ToolHandlerFor[In, Out], b *binding) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (res *mcp.CallToolResult, out Out, err error) {
		st := b.state(ctx, req)
		if st == nil {
			return h(ctx, req, in)
		}
		ctx = b.enter(ctx)
		returned := false
		defer func() {
			if !returned {
				v := recover()
				if m := b.recovered(ctx, st, req, v); m != nil {
					var zero Out
					res, out, err = nil, zero, m
				}
			}
		}()
		res, out, err = h(ctx, req, in)
		returned = true
		var m *mappedError
		switch {
		case err != nil && isProtocolError(err):
			return res, out, encodable(err)
		case err != nil:
			// The SDK checked the arguments before h ran: nothing to classify.
			m = b.fail(ctx, st, req, err, true)
		case res == nil || !res.IsError:
			return res, out, nil
		case res.GetError() != nil:
			// An error result marked with SetError: return its error, so that
			// the SDK builds the error result and attaches no output.
			m = b.fail(ctx, st, req, res.GetError(), true)
		default:
			m = st.handBuilt(ctx, req, res, b.filters)
		}
		if m == nil {
			return res, out, err // reported, or a result the policy passes
		}
		var zero Out
		return nil, zero, m
	}
}

// wrapRaw wraps h with b. h runs on the calling goroutine; a panic is
// recovered there with defer.
func wrapRaw(h mcp.ToolHandler, b *binding) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		st := b.state(ctx, req)
		if st == nil {
			return h(ctx, req)
		}
		ctx = b.enter(ctx)
		returned := false
		defer func() {
			if !returned {
				if m := b.recovered(ctx, st, req, recover()); m != nil {
					res, err = errorResult(m), nil
				}
			}
		}()
		res, err = h(ctx, req)
		returned = true
		switch {
		case err != nil && isProtocolError(err):
			return res, encodable(err)
		case err != nil:
			if m := b.fail(ctx, st, req, err, false); m != nil {
				return errorResult(m), nil
			}
			return res, err
		case res == nil || !res.IsError:
			return res, nil
		case res.GetError() != nil:
			if m := b.fail(ctx, st, req, res.GetError(), false); m != nil {
				return answered(res, m), nil
			}
		default:
			if m := st.handBuilt(ctx, req, res, b.filters); m != nil {
				return answered(res, m), nil
			}
		}
		return res, nil
	}
}

// enter returns the context of one call of the wrapped handler, as it is
// under the middleware, with the tool's own settings.
func (b *binding) enter(ctx context.Context) context.Context {
	ctx = callctx.With(ctx, nil)
	c := callctx.From(ctx)
	if b.settings != (callctx.Settings{}) {
		c.Settings = c.Settings.Merge(b.settings)
	}
	return ctx
}

// recovered handles v, the value of recover() where the handler did not
// return, and returns its failure; in report-only mode, where the layer is
// to panic again, it does so itself after the record is written.
func (b *binding) recovered(ctx context.Context, st *serverState, req *mcp.CallToolRequest, v any) *mappedError {
	c := callctx.From(ctx)
	if c.Passes(v) {
		panic(v)
	}
	failure := guard.Recovered(ctx, v)
	if failure == nil {
		return nil
	}
	m := b.fail(ctx, st, req, failure, true)
	if m == nil && v != nil {
		c.Pass(v)
		panic(v) // report-only: as without mcperr
	}
	return m
}

// warn writes one ERROR record to slog.Default; a default handler that
// panics is ignored, so that a warning about how a server is put together
// can never take a call down with it.
func warn(ctx context.Context, msg string, attrs ...slog.Attr) {
	defer func() { _ = recover() }()
	slog.Default().LogAttrs(ctx, slog.LevelError, msg, attrs...)
}
