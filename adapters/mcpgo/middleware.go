package mcpgo

import (
	"context"
	"errors"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/callctx"
	"github.com/mcperr/mcperr/internal/guard"
)

// middleware is the tool handler middleware that Install puts on a server.
// It gives every call a context that carries the state of st, the call's
// request id and the options of a tool added with AddTool.
func (st *serverState) middleware(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		outer := ctx
		ctx = callctx.With(ctx, st)
		c := callctx.From(ctx)
		d := callOf(ctx, &req)
		c.Describe("tools/call", d.Tool, "", "", d.SessionID)
		var tool config
		if added, ok := st.added.Load(req.Params.Name); ok {
			tool = *added.(*config)
			c.Settings = c.Settings.Merge(tool.settings)
		}
		if st.checkAll || st.someChecks.Load() {
			res, err = st.checkFirst(ctx, req, next, tool)
		} else {
			res, err = st.serve(ctx, req, next, tool.filters)
		}
		st.ran(outer, &req, res)
		return res, err
	}
}

// checkFirst runs req with its arguments checked first, if the server or
// the tool asks for it: VALIDATION_ERROR for arguments that do not fit, the
// tool not run. In report-only mode the call runs, and a success logs the
// refusal mcperr would have sent (a failure is logged once, as ever).
func (st *serverState) checkFirst(ctx context.Context, req mcp.CallToolRequest, next server.ToolHandlerFunc, tool config) (*mcp.CallToolResult, error) {
	check, reportOnly := callctx.Modes(st.p, tool.settings)
	if !check {
		return st.serve(ctx, req, next, tool.filters)
	}
	err := func() (err error) {
		defer func() { _ = recover() }() // outside serve's recovery: a check that panics checks nothing
		return st.checkArguments(ctx, &req)
	}()
	if err == nil {
		return st.serve(ctx, req, next, tool.filters)
	}
	refusal := func() *filter.Failure { return st.p.Handle(ctx, callOf(ctx, &req), err, tool.filters...) }
	if !reportOnly {
		if f := refusal(); !f.ReportOnly {
			return errorResult(f), nil
		}
	}
	res, rerr := st.serve(ctx, req, next, tool.filters)
	if rerr == nil && res != nil && !res.IsError {
		refusal() // report-only: the record alone
	}
	return res, rerr
}

// serve runs one call of next on the calling goroutine and turns an error
// it returns, or a panic, recovered here with defer, into an error result,
// mapped with filters. A handler's error, should the pipeline mask it, is
// answered VALIDATION_ERROR when the arguments do not fit the schema.
// Successful results pass through; so do error results the handler built
// itself, unless the hand-built policy masks them, and a runtime.Goexit,
// logged once and left unanswered. In report-only mode every failure is
// reported and passes through as it came, a panic panicked again.
func (st *serverState) serve(ctx context.Context, req mcp.CallToolRequest, next server.ToolHandlerFunc, filters []filter.Filter) (res *mcp.CallToolResult, err error) {
	returned := false
	defer func() {
		if !returned {
			v := recover()
			c := callctx.From(ctx)
			if c.Passes(v) {
				panic(v) // reported by an inner layer: on to the SDK's recovery
			}
			if failure := guard.Recovered(ctx, v); failure != nil {
				f := st.p.Handle(ctx, callOf(ctx, &req), failure, declared(ctx, filters)...)
				if f.ReportOnly && v != nil {
					c.Pass(v)
					panic(v)
				}
				res, err = st.answer(ctx, f), nil
			}
		}
	}()
	res, err = next(ctx, req)
	returned = true
	filters = declared(ctx, filters)
	switch {
	case err != nil:
		if isProtocolError(err) || callctx.From(ctx).Passes(err) {
			return res, err
		}
		return st.failChecking(ctx, req, res, err, filters)
	case res == nil || !res.IsError || callctx.From(ctx).Passes(res):
		return res, nil // a success, or what an inner layer answered or passed on
	}
	if refusal, text, ok := helperResult(res); ok {
		return st.helperFailure(ctx, req, res, refusal, text, filters), nil
	}
	return st.handBuilt(ctx, &req, res, filters), nil
}

// declared returns filters, or, if there are none, those a wrapped handler
// declared for the call in ctx.
func declared(ctx context.Context, filters []filter.Filter) []filter.Filter {
	if c := callctx.From(ctx); len(filters) == 0 && c != nil {
		filters, _ = c.Filters.([]filter.Filter)
	}
	return filters
}

// handBuilt applies the hand-built policy to res, an error result the
// handler built itself, and returns what to send: res, or the masked
// failure that replaces it.
func (st *serverState) handBuilt(ctx context.Context, req *mcp.CallToolRequest, res *mcp.CallToolResult, filters []filter.Filter) *mcp.CallToolResult {
	f := st.p.Handle(ctx, callOf(ctx, req), callctx.From(ctx).HandBuiltError(textOf(res.Content)), filters...)
	if f == nil || f.ReportOnly || f.Envelope.Code != codes.InternalError {
		if f != nil {
			callctx.From(ctx).Pass(res)
		}
		return res
	}
	return st.answer(ctx, f)
}

// answer returns the error result of f, and records it as the call's
// answer, so that the outer layers of the same call send it as it is. An
// answer is known by its identity, never by its envelope, which a result
// a handler built can carry too (a proxy's).
func (st *serverState) answer(ctx context.Context, f *filter.Failure) *mcp.CallToolResult {
	res := errorResult(f)
	callctx.From(ctx).Pass(res)
	return res
}

// The texts with which mcp-go's typed tool helpers (mcp.NewTypedToolHandler,
// mcp.NewStructuredToolHandler) turn an error into an error result, the
// same from v1.0.0 to v1.2.1: the arguments could not be bound to the
// handler's type, or the handler returned an error.
const (
	helperBindText = "failed to bind arguments: "
	helperExecText = "tool execution failed: "
)

// helperResult reports whether res is an error result one of mcp-go's typed
// tool helpers built from an error: one text block that starts with one of
// their texts, and no structured content; refusal says the arguments
// could not be bound. Such a result is no answer of the handler's own: it
// carries the error's text, which mcperr handles as the error.
func helperResult(res *mcp.CallToolResult) (refusal bool, text string, ok bool) {
	if len(res.Content) != 1 || res.StructuredContent != nil {
		return false, "", false
	}
	text = textBlock(res.Content[0])
	switch {
	case strings.HasPrefix(text, helperBindText):
		return true, text, true
	case strings.HasPrefix(text, helperExecText):
		return false, text, true
	}
	return false, "", false
}

// helperFailure handles res, an error result one of mcp-go's typed tool
// helpers built from an error whose text is text, as that error: a
// failure to bind the arguments is the client's (VALIDATION_ERROR naming
// the fields the schema check finds, or the arguments as a whole), any
// other is masked. In report-only mode res passes as it came.
func (st *serverState) helperFailure(ctx context.Context, req mcp.CallToolRequest, res *mcp.CallToolResult, refusal bool, text string, filters []filter.Filter) *mcp.CallToolResult {
	err := errors.New("the result mcp-go's typed tool helper built from an error: " + text)
	if c := callctx.From(ctx); c != nil {
		c.Arguments = func() error {
			if v := st.checkArguments(ctx, &req); v != nil {
				return v
			}
			if refusal {
				return domain.NewValidation("", nil, "The arguments cannot be read as the tool expects; check them against its input schema.")
			}
			return nil
		}
		defer func() { c.Arguments = nil }()
	}
	f := st.p.Handle(ctx, callOf(ctx, &req), err, filters...)
	if f.ReportOnly {
		callctx.From(ctx).Pass(res)
		return res
	}
	return st.answer(ctx, f)
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
func (st *serverState) failChecking(ctx context.Context, req mcp.CallToolRequest, res *mcp.CallToolResult, err error, filters []filter.Filter) (*mcp.CallToolResult, error) {
	c := callctx.From(ctx)
	if c != nil {
		c.Arguments = func() error { return st.checkArguments(ctx, &req) }
		defer func() { c.Arguments = nil }()
	}
	f := st.p.Handle(ctx, callOf(ctx, &req), err, filters...)
	if f.ReportOnly {
		c.Pass(err)
		return res, err
	}
	return st.answer(ctx, f), nil
}
