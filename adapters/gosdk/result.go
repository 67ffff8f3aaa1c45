package gosdk

import (
	"context"
	"encoding/json"
	"maps"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/callctx"
	"github.com/mcperr/mcperr/internal/envelope"
)

// mappedError is an error the pipeline has handled: the error of the error
// result the middleware answers with (CallToolResult.GetError), so that
// middleware further out can read the failure's message and, with
// errors.Is and errors.As, the error the handler returned.
type mappedError struct {
	f   *filter.Failure
	err error // as the handler returned it; for the server only
}

// Error returns the message the client reads, exactly.
func (e *mappedError) Error() string { return e.f.Envelope.Message }

// Unwrap returns the error as the handler returned it, so that other
// middleware can inspect it with errors.Is and errors.As.
func (e *mappedError) Unwrap() error { return e.err }

// mapError hands err, raised by the call req, to the pipeline of st, with
// the options the tool declared and check, which says how the call's
// arguments do not fit the tool's input schema (nil where that cannot
// explain the failure); nil in report-only mode, where err passes on as it
// came.
func (st *serverState) mapError(ctx context.Context, req *mcp.CallToolRequest, err error, check func() error) *mappedError {
	call := callOf(req)
	filters, settings := st.options(call.Tool)
	f := st.p.Handle(ctx, call, callctx.From(ctx).Input(err, settings, check), filters...)
	if f.ReportOnly {
		return nil
	}
	return &mappedError{f: f, err: err}
}

// handBuilt applies the hand-built policy to res, an error result the
// handler built itself: the failure that replaces it, or nil to send res as
// it is.
func (st *serverState) handBuilt(ctx context.Context, req *mcp.CallToolRequest, res *mcp.CallToolResult) *mappedError {
	c := callctx.From(ctx)
	hb := c.HandBuiltError(textOf(res.Content))
	call := callOf(req)
	filters, settings := st.options(call.Tool)
	f := st.p.Handle(ctx, call, c.Input(hb, settings, nil), filters...)
	if f == nil || f.ReportOnly || f.Envelope.Code != codes.InternalError {
		return nil
	}
	return &mappedError{f: f, err: hb}
}

// textOf returns the text blocks of content, one a line.
func textOf(content []mcp.Content) string {
	if len(content) == 1 {
		if t, ok := content[0].(*mcp.TextContent); ok {
			return t.Text
		}
	}
	var b strings.Builder
	for _, c := range content {
		if t, ok := c.(*mcp.TextContent); ok {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// isProtocolError reports whether err is a deliberate JSON-RPC error, which
// passes through as the SDK sends it. As in the SDK's own handling of typed
// tools, only a *jsonrpc.Error returned as it is counts: an error that wraps
// one is a tool failure like any other, so its text never reaches the client
// unmapped.
func isProtocolError(err error) bool {
	_, ok := err.(*jsonrpc.Error)
	return ok
}

// encodable returns the protocol error err as the SDK can send it: a
// *jsonrpc.Error whose data is not valid JSON, which would break the
// connection, loses its data and keeps its code and message.
func encodable(err error) error {
	e, ok := err.(*jsonrpc.Error)
	if !ok || e == nil || len(e.Data) == 0 || json.Valid(e.Data) {
		return err
	}
	return &jsonrpc.Error{Code: e.Code, Message: e.Message}
}

// callOf describes the call req for the pipeline.
func callOf(req *mcp.CallToolRequest) filter.Call {
	var c filter.Call
	if req == nil {
		return c
	}
	if req.Params != nil {
		c.Tool = req.Params.Name
	}
	if req.Session != nil {
		c.SessionID = req.Session.ID()
	}
	return c
}

// fill makes r the error result of m, in place: one text block for each
// text of the failure, its envelope in _meta beside any other keys, no
// structured content, IsError set, and m kept for GetError. Filling a
// result twice with the same m gives the same result.
func fill(r *mcp.CallToolResult, m *mappedError) {
	texts := m.f.Texts
	parts := &resultParts{env: m.f.Envelope}
	var content []mcp.Content
	if len(texts) <= len(parts.text) {
		content = parts.content[:len(texts)]
	} else {
		content = make([]mcp.Content, len(texts))
	}
	for i, t := range texts {
		if i < len(parts.text) {
			parts.text[i].Text = t
			content[i] = &parts.text[i]
		} else {
			content[i] = &mcp.TextContent{Text: t}
		}
	}
	r.Content = content
	meta := make(mcp.Meta, len(r.Meta)+1)
	maps.Copy(meta, r.Meta)
	meta[filter.MetaKey] = &parts.env
	r.Meta = meta
	r.StructuredContent = nil
	r.SetError(m)
	r.Content = content // SetError replaces the content before go-sdk v1.6.0
}

// resultParts are the parts of an error result that fill allocates at
// once: the text blocks and content list of a failure of at most two
// blocks, as the default renderer makes, and the envelope.
type resultParts struct {
	text    [2]mcp.TextContent
	content [2]mcp.Content
	env     filter.Envelope
}

// answered returns a copy of r, a result the handler or the SDK built, made
// the error result of m: r itself is never written into, so that a
// handler that returns one shared value gets a ref, a record and an answer
// of its own for each failure. The copy keeps what the SDK set in r that
// is not the failure's.
func answered(r *mcp.CallToolResult, m *mappedError) *mcp.CallToolResult {
	cp := *r
	fill(&cp, m)
	return &cp
}

// errorResult returns a new error result for m.
func errorResult(m *mappedError) *mcp.CallToolResult {
	r := &mcp.CallToolResult{}
	fill(r, m)
	return r
}

// EnvelopeOf returns the mcperr envelope of a tool result, as a client
// received it or as a server built it, and whether it has one. A result
// without one is a success, or a failure mcperr did not handle (such as an
// error result a handler built itself).
//
//	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "get_order", Arguments: args})
//	if env, ok := gosdk.EnvelopeOf(res); ok && env.Code == codes.NotFound {
//		...
//	}
func EnvelopeOf(res *mcp.CallToolResult) (filter.Envelope, bool) {
	if res == nil {
		return filter.Envelope{}, false
	}
	return envelope.Read(res.Meta)
}
