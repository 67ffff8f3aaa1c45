package gosdk

import (
	"context"
	"encoding/json"
	"maps"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/callctx"
	"github.com/mcperr/mcperr/internal/envelope"
)

// mappedError is a failure the pipeline handled, as the error of the error
// result (CallToolResult.GetError): middleware further out reads the
// client's message, and with errors.Is and errors.As the handler's error.
type mappedError struct {
	f   *filter.Failure
	err error // as the handler returned it; for the server only
}

// Error returns the message the client reads, exactly.
func (e *mappedError) Error() string { return e.f.Envelope.Message }

// Unwrap returns the error as the handler returned it.
func (e *mappedError) Unwrap() error { return e.err }

// mapError hands err, raised by the call req in its attempt t (nil for
// one that did not run the tool), to the pipeline of st, with the options
// the tool declared, check, which says how the call's
// arguments do not fit the tool's input schema (nil where that cannot
// explain the failure), and next, the handlers inside the middleware,
// through which the tool's annotations are found (nil for a failure that
// did not run the tool); nil where err passes on as it came (report-only
// mode, or a hand-built result the policy passes).
func (st *serverState) mapError(ctx context.Context, next mcp.MethodHandler, req *mcp.CallToolRequest, err error, check func() error, t *callctx.Try) *mappedError {
	call := callOf(req)
	filters, settings := st.options(call.Tool)
	var repeatable func() bool
	if next != nil {
		repeatable = func() bool { return st.repeatable(ctx, next, req) }
	}
	in := callctx.Input{Err: err, Settings: settings, Arguments: check, Repeatable: repeatable}
	t.Into(&in)
	f := st.p.Handle(ctx, call, callctx.From(ctx).Input(in), filters...)
	if f == nil || f.ReportOnly {
		return nil
	}
	return &mappedError{f: f, err: err}
}

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
// passes through: as in the SDK, only a *jsonrpc.Error returned as it is,
// so that the text of an error that wraps one never reaches the client
// unmapped.
func isProtocolError(err error) bool {
	_, ok := err.(*jsonrpc.Error)
	return ok
}

// encodable returns the protocol error err as the SDK can send it: a
// *jsonrpc.Error whose data is not valid JSON, which would break the
// connection, loses its data.
func encodable(err error) error {
	e, ok := err.(*jsonrpc.Error)
	if !ok || e == nil || len(e.Data) == 0 || json.Valid(e.Data) {
		return err
	}
	return &jsonrpc.Error{Code: e.Code, Message: e.Message}
}

func callOf(req *mcp.CallToolRequest) (c filter.Call) {
	if req != nil && req.Params != nil {
		c.Tool = req.Params.Name
	}
	if req != nil && req.Session != nil {
		c.SessionID = req.Session.ID()
	}
	return c
}

// answered returns r made the error result of m: one text block a text of
// the failure, its envelope in _meta beside the other keys, no structured
// content, IsError set and m kept for GetError. r is a zero result or a
// copy of the one the handler or the SDK built, which is never written
// into, so that a handler that returns one shared value gets an answer of
// its own for each failure.
func answered(r mcp.CallToolResult, m *mappedError) *mcp.CallToolResult {
	// One allocation for the envelope and the usual text blocks, at most
	// two as the default renderer makes.
	parts := &struct {
		text    [2]mcp.TextContent
		content [2]mcp.Content
		env     filter.Envelope
	}{env: m.f.Envelope}
	content := parts.content[:0]
	for i, t := range m.f.Texts {
		if i < len(parts.text) {
			parts.text[i].Text = t
			content = append(content, &parts.text[i])
		} else {
			content = append(content, &mcp.TextContent{Text: t})
		}
	}
	r.Content = content
	meta := make(mcp.Meta, len(r.Meta)+1)
	maps.Copy(meta, r.Meta)
	meta[filter.MetaKey] = &parts.env
	r.Meta = meta
	r.StructuredContent = nil
	r.SetError(m)
	r.Content = content // after SetError, which replaces it before go-sdk v1.6.0
	return &r
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
