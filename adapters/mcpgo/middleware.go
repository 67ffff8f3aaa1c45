package mcpgo

import (
	"context"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/callctx"
	"github.com/mcperr/mcperr/internal/guard"
)

// middleware is the tool handler middleware that Install puts on a server.
// It is the one place that handles a call's failures, with the options the
// tool declared where it was added or wrapped; it gives every call a
// context that carries the state of st and the call's request id.
func (st *serverState) middleware(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		outer := ctx
		ctx = callctx.With(ctx, st)
		c := callctx.From(ctx)
		d := callOf(ctx, &req)
		c.Describe("tools/call", d.Tool, "", "", d.SessionID)
		if st.checkAll || st.someChecks.Load() {
			res, err = st.checkFirst(ctx, req, next)
		} else {
			res, err = st.serve(ctx, req, next, nil)
		}
		st.ran(outer, &req, res)
		return res, err
	}
}

// options returns the filters and settings that the tool named name
// declared: where it was added with AddTool, over those of the Wrap its
// handler runs through, which it declares on its first call. AddTool's
// filters, if it was given any, replace Wrap's.
func (st *serverState) options(name string) config {
	var o config
	if w, ok := st.wrapped.Load(name); ok {
		o.filters, o.settings = w.(*wrapper).filters, w.(*wrapper).settings
	}
	if added, ok := st.added.Load(name); ok {
		a := added.(*config)
		if len(a.filters) > 0 {
			o.filters = a.filters
		}
		o.settings = o.settings.Merge(a.settings)
	}
	return o
}

// optionsOf returns own, the options of a handler that Wrap ran where no
// middleware did, or else those the tool of req declared.
func (st *serverState) optionsOf(req *mcp.CallToolRequest, own *config) config {
	if own != nil {
		return *own
	}
	return st.options(req.Params.Name)
}

// checkFirst runs req with its arguments checked first, if the server or
// the tool asks for it: VALIDATION_ERROR for arguments that do not fit, the
// tool not run. In report-only mode the call runs, and a success logs the
// refusal mcperr would have sent (a failure is logged once, as ever).
func (st *serverState) checkFirst(ctx context.Context, req mcp.CallToolRequest, next server.ToolHandlerFunc) (*mcp.CallToolResult, error) {
	tool := st.options(req.Params.Name)
	check, reportOnly := callctx.Modes(st.p, tool.settings)
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
	refusal := func() *filter.Failure {
		return st.p.Handle(ctx, callOf(ctx, &req), callctx.From(ctx).Input(err, tool.settings, nil), tool.filters...)
	}
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

// serve runs one call of next on the calling goroutine and turns an error
// it returns, or a panic, recovered here with defer, into an error result,
// mapped with the tool's options: own, for a handler Wrap runs where no
// middleware does, or else those the tool declared. A handler's error,
// should the pipeline mask it, is answered VALIDATION_ERROR when the
// arguments do not fit the schema. Successful results pass through; so do
// error results the handler built itself, unless the hand-built policy
// masks them, and a runtime.Goexit, logged once and left unanswered. In
// report-only mode every failure is reported and passes through as it
// came, a panic panicked again.
func (st *serverState) serve(ctx context.Context, req mcp.CallToolRequest, next server.ToolHandlerFunc, own *config) (res *mcp.CallToolResult, err error) {
	returned := false
	defer func() {
		if !returned {
			v := recover()
			if failure := guard.Recovered(ctx, v); failure != nil {
				tool := st.optionsOf(&req, own)
				f := st.p.Handle(ctx, callOf(ctx, &req), callctx.From(ctx).Input(failure, tool.settings, nil), tool.filters...)
				if f.ReportOnly && v != nil {
					panic(v)
				}
				res, err = errorResult(f), nil
			}
		}
	}()
	res, err = next(ctx, req)
	returned = true
	switch {
	case err != nil:
		if isProtocolError(err) {
			return res, err
		}
		return st.failChecking(ctx, req, res, err, st.optionsOf(&req, own))
	case res == nil || !res.IsError:
		return res, nil
	}
	return st.handBuilt(ctx, &req, res, st.optionsOf(&req, own)), nil
}

// handBuilt applies the hand-built policy to res, an error result the
// handler built itself, and returns what to send: res, or the masked
// failure that replaces it.
func (st *serverState) handBuilt(ctx context.Context, req *mcp.CallToolRequest, res *mcp.CallToolResult, tool config) *mcp.CallToolResult {
	c := callctx.From(ctx)
	f := st.p.Handle(ctx, callOf(ctx, req), c.Input(c.HandBuiltError(textOf(res.Content)), tool.settings, nil), tool.filters...)
	if f == nil || f.ReportOnly || f.Envelope.Code != codes.InternalError {
		return res
	}
	return errorResult(f)
}

// textOf returns the text blocks of content, one a line.
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

// textBlock returns the text of c, a text block as a value or a pointer;
// "" for another kind of content.
func textBlock(c mcp.Content) string {
	switch t := c.(type) {
	case mcp.TextContent:
		return t.Text
	case *mcp.TextContent:
		if t != nil {
			return t.Text
		}
	}
	return ""
}

// failChecking is fail for a handler's error: should the pipeline mask
// err, a call whose arguments do not fit the tool's schema is the client's
// failure instead. It is a function of its own so that the copy of req its
// check keeps costs nothing on the success path.
func (st *serverState) failChecking(ctx context.Context, req mcp.CallToolRequest, res *mcp.CallToolResult, err error, tool config) (*mcp.CallToolResult, error) {
	check := func() error { return st.checkArguments(ctx, &req) }
	f := st.p.Handle(ctx, callOf(ctx, &req), callctx.From(ctx).Input(err, tool.settings, check), tool.filters...)
	if f.ReportOnly {
		return res, err
	}
	return errorResult(f), nil
}
