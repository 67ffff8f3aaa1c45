package mcpgo

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/bind"
	"github.com/mcperr/mcperr/internal/callctx"
	"github.com/mcperr/mcperr/internal/guard"
)

// rpcFailure is the error of a failed resource, prompt or completion: the
// SDK sends its text as the message of a -32603. It does not unwrap, so
// that nothing in the handler's error chain can make the SDK send more.
type rpcFailure struct{ f *filter.Failure }

func (e *rpcFailure) Error() string { return e.f.Envelope.Message }

// serveRPC runs the handler of a resources/read, prompts/get or
// completion/complete as serve runs a tool's: a failure, unless mapped
// already, becomes an *rpcFailure.
func serveRPC[Res any](ctx context.Context, st *serverState, call filter.Call, next func(context.Context) (Res, error), own bind.Config) (res Res, err error) {
	ctx = callctx.With(ctx, st)
	c := callctx.From(ctx)
	c.Describe(call.Method, "", call.Resource, call.Prompt, call.SessionID)
	var zero Res
	returned := false
	defer func() {
		if !returned {
			v := recover()
			f := st.p.Handle(ctx, call, c.Input(callctx.Input{Err: guard.Recovered(v), Settings: own.Settings}), own.Filters...)
			if f.ReportOnly && v != nil {
				panic(v)
			}
			res, err = zero, &rpcFailure{f}
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
	f := st.p.Handle(ctx, call, c.Input(callctx.Input{Err: err, Settings: own.Settings}), own.Filters...)
	if f.ReportOnly {
		return res, err
	}
	return zero, &rpcFailure{f}
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
		call := rpcCallOf(ctx, "resources/read", req.Params.URI, "")
		return serveRPC(ctx, st, call, func(ctx context.Context) ([]mcp.ResourceContents, error) { return next(ctx, req) }, bind.Config{})
	}
}

// promptMiddleware is the prompt handler middleware that Install puts on a
// server: it serves every prompts/get, however the prompt was added.
func (st *serverState) promptMiddleware(next server.PromptHandlerFunc) server.PromptHandlerFunc {
	return func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		call := rpcCallOf(ctx, "prompts/get", "", req.Params.Name)
		return serveRPC(ctx, st, call, func(ctx context.Context) (*mcp.GetPromptResult, error) { return next(ctx, req) }, bind.Config{})
	}
}

// WrapPromptCompletion returns a prompt completion provider that runs the
// errors and panics of p through mcperr, with opts bound to it, as Wrap
// does for a tool handler: mcp-go has no middleware that sees a
// completion/complete, so Install cannot cover it.
//
//	server.WithPromptCompletionProvider(mcpgo.WrapPromptCompletion(p))
//
// A failure is answered as a resources/read's is (see Install), with
// `Internal error in completion for prompt "name" (ref: R).` for a masked
// error. It panics as Wrap does, at start-up, if p is nil or an option is bad.
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

// complete runs next, one completion of a wrapped provider, through the
// configuration of the server running it, unless a layer of mcperr around
// it (a provider that wraps this one) handles its failures already.
func (w *wrapper) complete(ctx context.Context, call filter.Call, next func(context.Context) (*mcp.Completion, error)) (*mcp.Completion, error) {
	if c := callctx.From(ctx); c != nil && c.State != nil {
		return next(ctx)
	}
	ctx, st := w.enter(ctx)
	return serveRPC(ctx, st, call, next, w.own)
}

type promptCompletion struct {
	next server.PromptCompletionProvider
	w    *wrapper
}

// CompletePromptArgument implements server.PromptCompletionProvider.
func (c *promptCompletion) CompletePromptArgument(ctx context.Context, prompt string, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	call := rpcCallOf(ctx, "completion/complete", "", prompt)
	return c.w.complete(ctx, call, func(ctx context.Context) (*mcp.Completion, error) {
		return c.next.CompletePromptArgument(ctx, prompt, arg, cc)
	})
}

type resourceCompletion struct {
	next server.ResourceCompletionProvider
	w    *wrapper
}

// CompleteResourceArgument implements server.ResourceCompletionProvider.
func (c *resourceCompletion) CompleteResourceArgument(ctx context.Context, uri string, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	call := rpcCallOf(ctx, "completion/complete", uri, "")
	return c.w.complete(ctx, call, func(ctx context.Context) (*mcp.Completion, error) {
		return c.next.CompleteResourceArgument(ctx, uri, arg, cc)
	})
}
