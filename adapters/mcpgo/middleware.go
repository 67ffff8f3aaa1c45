package mcpgo

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/bind"
	"github.com/mcperr/mcperr/internal/callctx"
	"github.com/mcperr/mcperr/internal/envelope"
	"github.com/mcperr/mcperr/internal/guard"
)

// middleware is the tool handler middleware that Install puts on a server:
// the one place that handles a call's failures. It gives every call a
// context that carries st and the call's request id.
func (st *serverState) middleware(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		outer := ctx
		ctx = callctx.With(ctx, st)
		callctx.From(ctx).Describe("tools/call", req.Params.Name, "", "", callOf(ctx, &req).SessionID)
		if st.checkAll || st.someChecks.Load() {
			res, err = st.checkFirst(ctx, req, next)
		} else {
			res, err = st.serve(ctx, req, next, nil)
		}
		st.ran(outer, &req, res)
		return res, err
	}
}

// options returns own, the options of a handler Wrap runs alone, or else
// those of the tool named name: AddTool's over its Wrap's, AddTool's
// filters, if any, replacing Wrap's.
func (st *serverState) options(name string, own *bind.Config) bind.Config {
	if own != nil {
		return *own
	}
	var o bind.Config
	if w, ok := st.wrapped.Load(name); ok {
		o = w.(*wrapper).own
	}
	if added, ok := st.added.Load(name); ok {
		o = added.(*bind.Config).Over(o)
	}
	return o
}

// checkFirst runs req only if its arguments fit, when the server or the
// tool asks for the check; in report-only mode it runs it anyway, and a
// success logs the refusal mcperr would have sent.
func (st *serverState) checkFirst(ctx context.Context, req mcp.CallToolRequest, next server.ToolHandlerFunc) (*mcp.CallToolResult, error) {
	tool := st.options(req.Params.Name, nil)
	check, reportOnly := callctx.Modes(st.p, tool.Settings)
	if !check {
		return st.serve(ctx, req, next, nil)
	}
	err := func() (err error) {
		defer func() { _ = recover() }() // outside serve's recovery: a check that panics checks nothing
		return st.checkArguments(ctx, &req)
	}()
	if err == nil {
		return st.serve(ctx, req, next, nil)
	}
	refusal := func() *filter.Failure { return st.handle(ctx, &req, err, tool, nil, nil, false) }
	if !reportOnly {
		if f := refusal(); !f.ReportOnly {
			return errorResult(f), nil
		}
	}
	res, rerr := st.serve(ctx, req, next, nil)
	if rerr == nil && res != nil && !res.IsError {
		refusal() // report-only: the record alone
	}
	return res, rerr
}

// serve runs next and turns an error or a panic of it, or an error result
// it built that the hand-built policy masks, into an error result mapped
// with st.options(name, own); in report-only mode it logs it and lets it
// through as it came. A runtime.Goexit is logged once. It calls the tool
// again while the pipeline asks it to (filter.WithRetries).
func (st *serverState) serve(ctx context.Context, req mcp.CallToolRequest, next server.ToolHandlerFunc, own *bind.Config) (res *mcp.CallToolResult, err error) {
	var t callctx.Try
	returned := false
	defer func() {
		if !returned {
			v := recover()
			f := st.handle(ctx, &req, guard.Recovered(v), st.options(req.Params.Name, own), nil, &t, false)
			if f.ReportOnly && v != nil {
				panic(v)
			}
			res, err = errorResult(f), nil
		}
	}()
	for {
		t.Begin(st.retries)
		returned = false
		res, err = next(ctx, req)
		returned = true
		var f *filter.Failure
		switch {
		case err != nil && isProtocolError(err):
			return res, err
		case err != nil:
			if f = st.failChecking(ctx, req, err, st.options(req.Params.Name, own), &t); f.ReportOnly {
				return res, err
			}
		case res == nil || !res.IsError:
			if st.retries {
				callctx.Succeeded(st.p)
			}
			return res, nil
		default:
			f = st.handle(ctx, &req, callctx.From(ctx).HandBuiltError(textOf(res.Content)), st.options(req.Params.Name, own), nil, &t, false)
			if f == nil || f.ReportOnly || f.Envelope.Code != codes.InternalError {
				return res, nil
			}
		}
		if res, err = errorResult(f), nil; !t.Wait(ctx, f.Retry, f.Envelope.Ref) {
			return res, err
		}
	}
}

// handle hands the pipeline err, a failure of the tool call req in its
// attempt t (nil for one that did not run the tool), with the tool's
// options and the check of its arguments, if any. Only a failure the
// handler returned may have taken effect: for it, ran is true and the
// pipeline may ask for the tool's annotations.
func (st *serverState) handle(ctx context.Context, req *mcp.CallToolRequest, err error, tool bind.Config, check func() error, t *callctx.Try, ran bool) *filter.Failure {
	var repeatable func() bool
	if ran {
		name := req.Params.Name
		repeatable = func() bool {
			t := registeredTool(ctx, name)
			return t != nil && (isTrue(t.Tool.Annotations.ReadOnlyHint) || isTrue(t.Tool.Annotations.IdempotentHint))
		}
	}
	in := callctx.Input{Err: err, Settings: tool.Settings, Arguments: check, Repeatable: repeatable}
	t.Into(&in)
	return st.p.Handle(ctx, callOf(ctx, req), callctx.From(ctx).Input(in), tool.Filters...)
}

func isTrue(b *bool) bool { return b != nil && *b }

func textOf(content []mcp.Content) string {
	if len(content) == 1 {
		return textBlock(content[0])
	}
	var b strings.Builder
	for _, c := range content {
		if t := textBlock(c); t != "" {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(t)
		}
	}
	return b.String()
}

func textBlock(c mcp.Content) string {
	if t, ok := c.(*mcp.TextContent); ok && t != nil {
		return t.Text
	}
	t, _ := c.(mcp.TextContent)
	return t.Text
}

// failChecking maps a handler's error in its attempt t; should the
// pipeline mask it, a call whose arguments do not fit the schema is the
// client's failure instead. It is apart from serve so that the success
// path does not copy req.
func (st *serverState) failChecking(ctx context.Context, req mcp.CallToolRequest, err error, tool bind.Config, t *callctx.Try) *filter.Failure {
	return st.handle(ctx, &req, err, tool, func() error { return st.checkArguments(ctx, &req) }, t, true)
}

// errorResult returns the tool result of a failure: a text block for each
// of its texts, its envelope in _meta[filter.MetaKey], IsError set.
func errorResult(f *filter.Failure) *mcp.CallToolResult {
	content := make([]mcp.Content, len(f.Texts))
	for i, t := range f.Texts {
		content[i] = mcp.NewTextContent(t)
	}
	return &mcp.CallToolResult{
		Result:  mcp.Result{Meta: &mcp.Meta{AdditionalFields: map[string]any{filter.MetaKey: f.Envelope}}},
		Content: content,
		IsError: true,
	}
}

// EnvelopeOf returns the mcperr envelope of a tool result, as a client
// received it or as a server built it, and whether it has one. A result
// without one is a success, or a failure mcperr did not handle (such as an
// error result a handler built itself).
//
//	res, err := c.CallTool(ctx, req)
//	if env, ok := mcpgo.EnvelopeOf(res); ok && env.Code == codes.NotFound {
//		...
//	}
func EnvelopeOf(res *mcp.CallToolResult) (filter.Envelope, bool) {
	if res == nil || res.Meta == nil {
		return filter.Envelope{}, false
	}
	return envelope.Read(res.Meta.AdditionalFields)
}

// isProtocolError reports whether err is a mcp.URLElicitationRequiredError,
// not wrapped, whose elicitations encode: a protocol error the SDK sends.
// Any other is a failure, so neither its text nor a broken answer leaks.
func isProtocolError(err error) bool {
	switch e := err.(type) {
	case mcp.URLElicitationRequiredError:
		return encodes(e.Elicitations)
	case *mcp.URLElicitationRequiredError:
		return e != nil && encodes(e.Elicitations)
	}
	return false
}

// encodes reports whether v encodes to JSON; false if a MarshalJSON panics.
func encodes(v any) (ok bool) {
	defer func() { _ = recover() }()
	_, err := json.Marshal(v)
	return err == nil
}

func callOf(ctx context.Context, req *mcp.CallToolRequest) filter.Call {
	c := filter.Call{Tool: req.Params.Name}
	if s := server.ClientSessionFromContext(ctx); s != nil {
		c.SessionID = s.SessionID()
	}
	return c
}
