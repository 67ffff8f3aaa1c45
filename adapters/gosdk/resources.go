package gosdk

import (
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/toolerr"
)

// AddResource adds a resource to s, like (*mcp.Server).AddResource, with
// the mcperr contract: it is the drop-in replacement for that one line.
//
//	if err := gosdk.AddResource(s, res, h, gosdk.WithFilters(f)); err != nil {
//		log.Fatal(err) // a definition error: what to fix
//	}
//
// A resources/read has no isError result: its failure is a JSON-RPC error.
// When h returns an error or panics, the client receives the error of
// filter.Pipeline.HandleRPC: the public message of a ToolError or domain
// error, or `Internal error in resource "uri" (ref: R).` for anything else,
// logged once with R; a code the MCP specification names (-32603 internal,
// -32602 invalid params, and for NOT_FOUND the resource-not-found code of
// the negotiated protocol); the envelope as its data. The filters given by
// WithFilters run before the global ones. A *jsonrpc.Error that h returns
// as it is, such as mcp.ResourceNotFoundError(uri), passes through, as do
// successful results.
//
// The resource runs with the configuration Install gave s; if Install was
// not called, AddResource installs mcperr on s with the default one. It
// returns a *toolerr.DefinitionError, and adds nothing, if s, the resource
// or h is nil, a filter is nil, WithoutArgumentCheck is given, or the URI
// is empty or one the SDK refuses (codes.InvalidResource). Like the SDK, it
// replaces a resource of the same URI.
func AddResource(s *mcp.Server, r *mcp.Resource, h mcp.ResourceHandler, opts ...Option) error {
	if r == nil || r.URI == "" {
		_, err := checkRPC("AddResource", s, "", invalidResource("", "the resource is nil or has no URI; pass a *mcp.Resource with an absolute URI"), h == nil, opts)
		return err
	}
	c, err := checkRPC("AddResource", s, r.URI, nil, h == nil, opts)
	if err != nil {
		return err
	}
	st, err := ensure(s)
	if err != nil {
		return err
	}
	wrapped := wrapRPC(st, filter.KindResource, h, c.filters)
	return added(r.URI, codes.InvalidResource, func() { s.AddResource(r, wrapped) })
}

// AddResourceTemplate adds a resource template to s, like
// (*mcp.Server).AddResourceTemplate, with the mcperr contract of
// AddResource: a failure of h while reading any URI of the template is
// answered and logged as AddResource says, its masked text naming the URI
// read. It returns a *toolerr.DefinitionError, and adds nothing, for the
// mistakes AddResource refuses, and if the URI template is empty or one the
// SDK refuses (codes.InvalidResource).
func AddResourceTemplate(s *mcp.Server, t *mcp.ResourceTemplate, h mcp.ResourceHandler, opts ...Option) error {
	if t == nil || t.URITemplate == "" {
		_, err := checkRPC("AddResourceTemplate", s, "", invalidResource("", "the resource template is nil or has no URI template; pass a *mcp.ResourceTemplate with one"), h == nil, opts)
		return err
	}
	c, err := checkRPC("AddResourceTemplate", s, t.URITemplate, nil, h == nil, opts)
	if err != nil {
		return err
	}
	st, err := ensure(s)
	if err != nil {
		return err
	}
	wrapped := wrapRPC(st, filter.KindResource, h, c.filters)
	return added(t.URITemplate, codes.InvalidResource, func() { s.AddResourceTemplate(t, wrapped) })
}

// AddPrompt adds a prompt to s, like (*mcp.Server).AddPrompt, with the
// mcperr contract: a prompts/get that fails is answered and logged as
// AddResource says, with `Internal error in prompt "name" (ref: R).` for
// an error that is masked, and -32602 for a domain error or ToolError. The
// filters given by WithFilters run before the global ones. It returns a
// *toolerr.DefinitionError, and adds nothing, if s, the prompt or h is nil,
// the prompt has no name (codes.InvalidPrompt), a filter is nil or
// WithoutArgumentCheck is given. Like the SDK, it replaces a prompt of the
// same name.
func AddPrompt(s *mcp.Server, p *mcp.Prompt, h mcp.PromptHandler, opts ...Option) error {
	if p == nil || p.Name == "" {
		_, err := checkRPC("AddPrompt", s, "", &toolerr.DefinitionError{Code: codes.InvalidPrompt,
			Reason: "the prompt is nil or has no name; pass a *mcp.Prompt with a name"}, h == nil, opts)
		return err
	}
	c, err := checkRPC("AddPrompt", s, p.Name, nil, h == nil, opts)
	if err != nil {
		return err
	}
	st, err := ensure(s)
	if err != nil {
		return err
	}
	wrapped := wrapRPC(st, filter.KindPrompt, h, c.filters)
	return added(p.Name, codes.InvalidPrompt, func() { s.AddPrompt(p, wrapped) })
}

// checkRPC refuses a nil server, the definition error bad, a nil handler
// and bad options for fn, in that order, and returns the configuration of
// the resource or prompt named subject. It returns bad, if no earlier
// mistake is found, as the error.
func checkRPC(fn string, s *mcp.Server, subject string, bad error, nilHandler bool, opts []Option) (config, error) {
	switch {
	case s == nil:
		return config{}, invalidOption(fn + " needs the *mcp.Server to add to")
	case bad != nil:
		return config{}, bad
	case nilHandler:
		return config{}, &toolerr.DefinitionError{Code: codes.NilHandler, Subject: subject, Reason: "no handler; pass the function that implements it"}
	}
	c, err := newConfig(fn, opts)
	if err != nil {
		return config{}, err
	}
	if c.noCheck {
		return config{}, invalidOption("WithoutArgumentCheck given to " + fn + ": it applies to tools' input schemas only")
	}
	return c, nil
}

// invalidResource is the definition error of a resource the SDK cannot use.
func invalidResource(subject, reason string) error {
	return &toolerr.DefinitionError{Code: codes.InvalidResource, Subject: subject, Reason: reason}
}

// added runs add, turning the SDK's panic for a definition it refuses into
// a definition error with code. The SDK panics before it registers
// anything, and releases its lock as it does.
func added(subject string, code codes.Code, add func()) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &toolerr.DefinitionError{Code: code, Subject: subject, Reason: fmt.Sprint(v)}
		}
	}()
	add()
	return nil
}
