package mcpgo

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/callctx"
	"github.com/mcperr/mcperr/internal/guard"
)

// rpcFailure is what a resource, prompt or completion handler served by
// mcperr returns when it fails. The SDK sends its Error text, the message
// the client reads, exactly, as the error's message, always under the code
// -32603 and without data: mcp-go offers no way to choose either for a
// handler's error. It does not unwrap to the handler's error, so that
// nothing in that chain can make the SDK send more.
type rpcFailure struct{ f *filter.Failure }

func (e *rpcFailure) Error() string { return e.f.Envelope.Message }

// serveRPC runs next, the handler of a resources/read, prompts/get or
// completion/complete, on the calling goroutine: a panic, recovered here
// with defer, or an error other than a deliberate protocol error or one
// mapped already, becomes an *rpcFailure, mapped with the options of the
// handler (own: those of a wrapped completion provider) and logged once;
// in report-only mode it is logged and passes on as it came, a panic
// panicked again.
func serveRPC[Res any](ctx context.Context, st *serverState, call filter.Call, next func(context.Context) (Res, error), own config) (res Res, err error) {
	ctx = callctx.With(ctx, st)
	c := callctx.From(ctx)
	c.Describe(call.Method, "", call.Resource, call.Prompt, call.SessionID)
	var zero Res
	returned := false
	defer func() {
		if !returned {
			v := recover()
			if failure := guard.Recovered(ctx, v); failure != nil {
				f := st.p.Handle(ctx, call, c.Input(failure, own.settings, nil), own.filters...)
				if f.ReportOnly && v != nil {
					panic(v)
				}
				res, err = zero, &rpcFailure{f}
			}
		}
	}()
	res, err = next(ctx)
	returned = true
	if err == nil || isProtocolError(err) {
		return res, err
	}
	if f, ok := err.(*rpcFailure); ok {
		return zero, f
	}
	f := st.p.Handle(ctx, call, c.Input(err, own.settings, nil), own.filters...)
	if f.ReportOnly {
		return res, err
	}
	return zero, &rpcFailure{f}
}

func rpcCallOf(ctx context.Context, method string) filter.Call {
	c := filter.Call{Method: method, ProtocolVersion: server.RequestProtocolVersion(ctx)}
	if s := server.ClientSessionFromContext(ctx); s != nil {
		c.SessionID = s.SessionID()
	}
	return c
}

// resourceMiddleware is the resource handler middleware that Install puts
// on a server: it serves every resources/read, of resources and templates,
// however they were added.
func (st *serverState) resourceMiddleware(next server.ResourceHandlerFunc) server.ResourceHandlerFunc {
	return func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		call := rpcCallOf(ctx, "resources/read")
		call.Resource = req.Params.URI
		return serveRPC(ctx, st, call, func(ctx context.Context) ([]mcp.ResourceContents, error) { return next(ctx, req) }, config{})
	}
}

// promptMiddleware is the prompt handler middleware that Install puts on a
// server: it serves every prompts/get, however the prompt was added.
func (st *serverState) promptMiddleware(next server.PromptHandlerFunc) server.PromptHandlerFunc {
	return func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		call := rpcCallOf(ctx, "prompts/get")
		call.Prompt = req.Params.Name
		return serveRPC(ctx, st, call, func(ctx context.Context) (*mcp.GetPromptResult, error) { return next(ctx, req) }, config{})
	}
}

// WrapPromptCompletion returns a prompt completion provider that runs the
// errors and panics of p through the mcperr configuration of the server it
// runs on, with the filters given by WithFilters before the global ones:
//
//	server.WithPromptCompletionProvider(mcpgo.WrapPromptCompletion(p))
//
// mcp-go has no middleware that sees a completion/complete before its
// provider runs, so Install cannot cover completions: wrap the provider
// instead. A failure is answered as a resources/read's is (see Install),
// with `Internal error in completion for prompt "name" (ref: R).` for an
// error that is masked. On a server without mcperr it uses the default
// configuration. Like regexp.MustCompile, it panics with a
// *codes.DefinitionError, at start-up, if p or a filter is nil.
func WrapPromptCompletion(p server.PromptCompletionProvider, opts ...Option) server.PromptCompletionProvider {
	return &promptCompletion{next: p, w: mustWrapper("WrapPromptCompletion", p == nil, opts)}
}

// WrapResourceCompletion is WrapPromptCompletion for the completion of a
// resource template's arguments:
//
//	server.WithResourceCompletionProvider(mcpgo.WrapResourceCompletion(p))
func WrapResourceCompletion(p server.ResourceCompletionProvider, opts ...Option) server.ResourceCompletionProvider {
	return &resourceCompletion{next: p, w: mustWrapper("WrapResourceCompletion", p == nil, opts)}
}

// handled reports whether a layer of mcperr handles the failures of the
// request in ctx already, as a wrapped provider's that another wraps: the
// outermost layer is the one that handles them, once.
func handled(ctx context.Context) bool {
	c := callctx.From(ctx)
	return c != nil && c.State != nil
}

// promptCompletion is a provider wrapped by WrapPromptCompletion.
type promptCompletion struct {
	next server.PromptCompletionProvider
	w    *wrapper // its filters and state
}

// CompletePromptArgument implements server.PromptCompletionProvider.
func (c *promptCompletion) CompletePromptArgument(ctx context.Context, prompt string, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	if handled(ctx) {
		return c.next.CompletePromptArgument(ctx, prompt, arg, cc)
	}
	call := rpcCallOf(ctx, "completion/complete")
	call.Prompt = prompt
	ctx, st := c.w.enter(ctx)
	return serveRPC(ctx, st, call, func(ctx context.Context) (*mcp.Completion, error) {
		return c.next.CompletePromptArgument(ctx, prompt, arg, cc)
	}, config{filters: c.w.filters, settings: c.w.settings})
}

// resourceCompletion is a provider wrapped by WrapResourceCompletion.
type resourceCompletion struct {
	next server.ResourceCompletionProvider
	w    *wrapper
}

// CompleteResourceArgument implements server.ResourceCompletionProvider.
func (c *resourceCompletion) CompleteResourceArgument(ctx context.Context, uri string, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	if handled(ctx) {
		return c.next.CompleteResourceArgument(ctx, uri, arg, cc)
	}
	call := rpcCallOf(ctx, "completion/complete")
	call.Resource = uri
	ctx, st := c.w.enter(ctx)
	return serveRPC(ctx, st, call, func(ctx context.Context) (*mcp.Completion, error) {
		return c.next.CompleteResourceArgument(ctx, uri, arg, cc)
	}, config{filters: c.w.filters, settings: c.w.settings})
}
