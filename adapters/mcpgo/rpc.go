package mcpgo

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/bind"
)

// rpcFailure is the error of a failed resource, prompt or completion: the
// SDK sends its text as the message of a -32603. It does not unwrap, so
// that nothing in the handler's error chain can make the SDK send more.
type rpcFailure struct{ f *filter.Failure }

func (e *rpcFailure) Error() string { return e.f.Envelope.Message }

// serveRPC runs next, the handler of a resources/read, prompts/get or
// completion/complete, through p: a failure becomes an *rpcFailure.
func serveRPC[Res any](ctx context.Context, p *filter.Pipeline, call filter.Call, opts []filter.ToolOption, next func(context.Context) (Res, error)) (Res, error) {
	res, f, err := filter.Serve(ctx, p, call, opts, filter.Handler[Res]{Run: next, Passes: isProtocolError})
	if f != nil {
		var zero Res
		return zero, &rpcFailure{f}
	}
	return res, err
}

func rpcCallOf(ctx context.Context, method, resource, prompt string) filter.Call {
	c := filter.Call{Method: method, Resource: resource, Prompt: prompt, ProtocolVersion: server.RequestProtocolVersion(ctx)}
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
		return serveRPC(ctx, st.p, rpcCallOf(ctx, "resources/read", req.Params.URI, ""), nil,
			func(ctx context.Context) ([]mcp.ResourceContents, error) { return next(ctx, req) })
	}
}

// promptMiddleware is the prompt handler middleware that Install puts on a
// server: it serves every prompts/get, however the prompt was added.
func (st *serverState) promptMiddleware(next server.PromptHandlerFunc) server.PromptHandlerFunc {
	return func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return serveRPC(ctx, st.p, rpcCallOf(ctx, "prompts/get", "", req.Params.Name), nil,
			func(ctx context.Context) (*mcp.GetPromptResult, error) { return next(ctx, req) })
	}
}

// WrapPromptCompletion returns a prompt completion provider that runs the
// errors and panics of p through the mcperr configuration of the server
// running the completion, with filters of its own, which run before the
// server's: mcp-go has no middleware that sees a completion/complete, so
// Install cannot cover it, and this wrapper, where the provider is given
// to the server, is the one place that does.
//
//	server.WithPromptCompletionProvider(mcpgo.WrapPromptCompletion(p))
//
// A failure is answered as a resources/read's is (see Install), with
// `Internal error in completion for prompt "name" (ref: R).` for a masked
// error. On a server without mcperr, its first call writes one ERROR record
// to slog.Default, and p's failures reach the SDK as they came. Like Wrap,
// it panics with a *codes.DefinitionError, at start-up, if p or a filter is
// nil.
func WrapPromptCompletion(p server.PromptCompletionProvider, filters ...filter.Filter) server.PromptCompletionProvider {
	return &promptCompletion{next: p, w: mustCompletion("WrapPromptCompletion", p == nil, filters)}
}

// WrapResourceCompletion is WrapPromptCompletion for the completion of a
// resource template's arguments:
//
//	server.WithResourceCompletionProvider(mcpgo.WrapResourceCompletion(p))
func WrapResourceCompletion(p server.ResourceCompletionProvider, filters ...filter.Filter) server.ResourceCompletionProvider {
	return &resourceCompletion{next: p, w: mustCompletion("WrapResourceCompletion", p == nil, filters)}
}

func mustCompletion(fn string, nilProvider bool, filters []filter.Filter) *wrapper {
	w := mustWrapper(fn, nilProvider)
	if len(filters) > 0 {
		w.opts = []filter.ToolOption{filter.WithFilters(filters...)}
		if err := bind.CheckOptions("mcpgo", fn, w.opts); err != nil {
			panic(err)
		}
	}
	return w
}

// complete runs next, one completion of a wrapped provider, through the
// configuration of the server running it, unless a provider of this
// package around it does so already.
func (w *wrapper) complete(ctx context.Context, call filter.Call, next func(context.Context) (*mcp.Completion, error)) (*mcp.Completion, error) {
	if filter.RequestIDFromContext(ctx) != "" {
		return next(ctx)
	}
	st := servers.Load(server.ServerFromContext(ctx))
	if st == nil {
		_ = w.served(ctx, call.Prompt+call.Resource) // the record
		return next(ctx)
	}
	return serveRPC(ctx, st.p, call, w.opts, next)
}

type promptCompletion struct {
	next server.PromptCompletionProvider
	w    *wrapper
}

// CompletePromptArgument implements server.PromptCompletionProvider.
func (c *promptCompletion) CompletePromptArgument(ctx context.Context, prompt string, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	return c.w.complete(ctx, rpcCallOf(ctx, "completion/complete", "", prompt), func(ctx context.Context) (*mcp.Completion, error) {
		return c.next.CompletePromptArgument(ctx, prompt, arg, cc)
	})
}

type resourceCompletion struct {
	next server.ResourceCompletionProvider
	w    *wrapper
}

// CompleteResourceArgument implements server.ResourceCompletionProvider.
func (c *resourceCompletion) CompleteResourceArgument(ctx context.Context, uri string, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	return c.w.complete(ctx, rpcCallOf(ctx, "completion/complete", uri, ""), func(ctx context.Context) (*mcp.Completion, error) {
		return c.next.CompleteResourceArgument(ctx, uri, arg, cc)
	})
}
