package mcpgo

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/toolerr"
)

// AddResource adds a resource to s, like (*server.MCPServer).AddResource,
// with the mcperr contract: it is the drop-in replacement for that line.
//
//	if err := mcpgo.AddResource(s, res, h, mcpgo.WithFilters(f)); err != nil {
//		log.Fatal(err) // a definition error: what to fix
//	}
//
// A resources/read has no isError result: its failure is a JSON-RPC error.
// When h returns an error or panics, the client receives the error of
// filter.Pipeline.HandleRPC: the public message of a ToolError or domain
// error, or `Internal error in resource "uri" (ref: R).` for anything else,
// logged once with R; a code the MCP specification names (-32603 internal,
// -32602 invalid params, and for NOT_FOUND the resource-not-found code of
// the negotiated protocol); the envelope as its data (see Install for how
// the code and data reach the SDK's answer). The filters given by
// WithFilters run before the global ones. A mcp.URLElicitationRequiredError
// returned as it is passes through, as do successful results.
//
// Resources added with s.AddResource are served by the middleware of
// Install as well, with the global filters only. AddResource installs
// mcperr on s with the default configuration if Install was not called. It
// returns a *toolerr.DefinitionError, and adds nothing, if s or h is nil,
// the URI is empty (codes.InvalidResource), a filter is nil, or
// WithoutArgumentCheck or WithRequestIDs is given. Like the SDK, it
// replaces a resource of the same URI.
func AddResource(s *server.MCPServer, r mcp.Resource, h server.ResourceHandlerFunc, opts ...Option) error {
	var bad error
	if r.URI == "" {
		bad = &toolerr.DefinitionError{Code: codes.InvalidResource, Reason: "the resource has no URI; pass an mcp.Resource with an absolute URI"}
	}
	c, err := checkRPC("AddResource", s, r.URI, bad, h == nil, opts)
	if err != nil {
		return err
	}
	st, err := ensure(s)
	if err != nil {
		return err
	}
	wrapped := func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		call := rpcCallOf(ctx, filter.KindResource)
		call.Resource = req.Params.URI
		call.RequestID = headerID(req.Header)
		return serveRPC(ctx, st, call, func(ctx context.Context) ([]mcp.ResourceContents, error) { return h(ctx, req) }, c.filters, false)
	}
	return added(r.URI, codes.InvalidResource, func() { s.AddResource(r, wrapped) })
}

// AddResourceTemplate adds a resource template to s, like
// (*server.MCPServer).AddResourceTemplate, with the mcperr contract of
// AddResource: a failure of h while reading any URI of the template is
// answered and logged as AddResource says, its masked text naming the URI
// read. It returns a *toolerr.DefinitionError, and adds nothing, for the
// mistakes AddResource refuses, and if the template has no URI template
// (codes.InvalidResource).
func AddResourceTemplate(s *server.MCPServer, t mcp.ResourceTemplate, h server.ResourceTemplateHandlerFunc, opts ...Option) error {
	var bad error
	subject := ""
	if t.URITemplate == nil || t.URITemplate.Template == nil {
		bad = &toolerr.DefinitionError{Code: codes.InvalidResource, Reason: "the template has no URI template; build it with mcp.NewResourceTemplate"}
	} else {
		subject = t.URITemplate.Raw()
	}
	c, err := checkRPC("AddResourceTemplate", s, subject, bad, h == nil, opts)
	if err != nil {
		return err
	}
	st, err := ensure(s)
	if err != nil {
		return err
	}
	wrapped := func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		call := rpcCallOf(ctx, filter.KindResource)
		call.Resource = req.Params.URI
		call.RequestID = headerID(req.Header)
		return serveRPC(ctx, st, call, func(ctx context.Context) ([]mcp.ResourceContents, error) { return h(ctx, req) }, c.filters, false)
	}
	return added(subject, codes.InvalidResource, func() { s.AddResourceTemplate(t, wrapped) })
}

// AddPrompt adds a prompt to s, like (*server.MCPServer).AddPrompt, with
// the mcperr contract: a prompts/get that fails is answered and logged as
// AddResource says, with `Internal error in prompt "name" (ref: R).` for an
// error that is masked, and -32602 for a domain error or ToolError. The
// filters given by WithFilters run before the global ones; prompts added
// with s.AddPrompt are served by the middleware of Install, with the global
// filters only. It returns a *toolerr.DefinitionError, and adds nothing, if
// s or h is nil, the prompt has no name (codes.InvalidPrompt), a filter is
// nil, or WithoutArgumentCheck or WithRequestIDs is given.
func AddPrompt(s *server.MCPServer, p mcp.Prompt, h server.PromptHandlerFunc, opts ...Option) error {
	var bad error
	if p.Name == "" {
		bad = &toolerr.DefinitionError{Code: codes.InvalidPrompt, Reason: "the prompt has no name; pass an mcp.Prompt with a name"}
	}
	c, err := checkRPC("AddPrompt", s, p.Name, bad, h == nil, opts)
	if err != nil {
		return err
	}
	st, err := ensure(s)
	if err != nil {
		return err
	}
	wrapped := func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		call := rpcCallOf(ctx, filter.KindPrompt)
		call.Prompt = req.Params.Name
		call.RequestID = headerID(req.Header)
		return serveRPC(ctx, st, call, func(ctx context.Context) (*mcp.GetPromptResult, error) { return h(ctx, req) }, c.filters, false)
	}
	return added(p.Name, codes.InvalidPrompt, func() { s.AddPrompt(p, wrapped) })
}

// WrapPromptCompletion returns a prompt completion provider that runs the
// errors and panics of p through the mcperr configuration of the server it
// runs on, with the filters given by WithFilters before the global ones:
//
//	server.WithPromptCompletionProvider(mcpgo.WrapPromptCompletion(p))
//
// mcp-go has no middleware or hook that sees a completion/complete before
// its provider runs, so Install cannot cover completions: wrap the provider
// instead. A failure is answered as AddResource says, with `Internal error
// in completion for prompt "name" (ref: R).` for an error that is masked.
// On a server without mcperr it uses the default configuration. Like
// regexp.MustCompile, it panics with a *toolerr.DefinitionError, at
// start-up, if p or a filter is nil, or if given WithoutArgumentCheck or
// WithRequestIDs.
func WrapPromptCompletion(p server.PromptCompletionProvider, opts ...Option) server.PromptCompletionProvider {
	c := mustCompletionConfig("WrapPromptCompletion", p == nil, opts)
	return &promptCompletion{next: p, filters: c.filters}
}

// WrapResourceCompletion is WrapPromptCompletion for the completion of a
// resource template's arguments:
//
//	server.WithResourceCompletionProvider(mcpgo.WrapResourceCompletion(p))
func WrapResourceCompletion(p server.ResourceCompletionProvider, opts ...Option) server.ResourceCompletionProvider {
	c := mustCompletionConfig("WrapResourceCompletion", p == nil, opts)
	return &resourceCompletion{next: p, filters: c.filters}
}

// promptCompletion is a provider wrapped by WrapPromptCompletion.
type promptCompletion struct {
	next    server.PromptCompletionProvider
	filters []filter.Filter
	unbound unbound
}

// CompletePromptArgument implements server.PromptCompletionProvider.
func (w *promptCompletion) CompletePromptArgument(ctx context.Context, prompt string, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	call := rpcCallOf(ctx, filter.KindCompletion)
	call.Prompt = prompt
	return serveRPC(ctx, completionState(ctx, &w.unbound), call, func(ctx context.Context) (*mcp.Completion, error) {
		return w.next.CompletePromptArgument(ctx, prompt, arg, cc)
	}, w.filters, true)
}

// resourceCompletion is a provider wrapped by WrapResourceCompletion.
type resourceCompletion struct {
	next    server.ResourceCompletionProvider
	filters []filter.Filter
	unbound unbound
}

// CompleteResourceArgument implements server.ResourceCompletionProvider.
func (w *resourceCompletion) CompleteResourceArgument(ctx context.Context, uri string, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	call := rpcCallOf(ctx, filter.KindCompletion)
	call.Resource = uri
	return serveRPC(ctx, completionState(ctx, &w.unbound), call, func(ctx context.Context) (*mcp.Completion, error) {
		return w.next.CompleteResourceArgument(ctx, uri, arg, cc)
	}, w.filters, true)
}

// completionState returns the state of the server running the completion
// in ctx, or the default one.
func completionState(ctx context.Context, u *unbound) *serverState {
	if st := stateOf(ctx); st != nil {
		return st
	}
	return u.state()
}

// mustCompletionConfig checks what the completion wrappers are given, and
// panics with the definition error.
func mustCompletionConfig(fn string, nilProvider bool, opts []Option) config {
	if nilProvider {
		panic(&codes.DefinitionError{Code: codes.NilHandler, Reason: fn + " needs a provider; pass the completion provider to wrap"})
	}
	c, err := rpcConfig(fn, opts)
	if err != nil {
		panic(err)
	}
	return c
}

// checkRPC refuses a nil server, the definition error bad, a nil handler
// and bad options for fn, in that order, and returns the configuration of
// the resource or prompt named subject.
func checkRPC(fn string, s *server.MCPServer, subject string, bad error, nilHandler bool, opts []Option) (config, error) {
	switch {
	case s == nil:
		return config{}, invalidOption(fn + " needs the *server.MCPServer to add to")
	case bad != nil:
		return config{}, bad
	case nilHandler:
		return config{}, &toolerr.DefinitionError{Code: codes.NilHandler, Subject: subject, Reason: "no handler; pass the function that implements it"}
	}
	return rpcConfig(fn, opts)
}

// rpcConfig is toolConfig for resources, prompts and completions, which
// have no input schema to check either.
func rpcConfig(fn string, opts []Option) (config, error) {
	c, err := toolConfig(fn, opts)
	if err != nil {
		return config{}, err
	}
	if c.noCheck {
		return config{}, invalidOption("WithoutArgumentCheck given to " + fn + ": it applies to tools' input schemas only")
	}
	return c, nil
}

// added runs add, turning a panic of the SDK into a definition error with
// code.
func added(subject string, code codes.Code, add func()) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &toolerr.DefinitionError{Code: code, Subject: subject, Reason: fmt.Sprint(v)}
		}
	}()
	add()
	return nil
}
