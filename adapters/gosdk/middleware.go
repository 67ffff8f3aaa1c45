package gosdk

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/envelope"
)

// The methods the middleware serves; every other passes through.
const (
	methodCallTool     = "tools/call"
	methodListTools    = "tools/list"
	methodReadResource = "resources/read"
	methodGetPrompt    = "prompts/get"
	methodComplete     = "completion/complete"
)

// middleware is the receiving middleware that Install puts on a server: the
// one place where a request's failures are handled, by filter.Serve.
func (st *serverState) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case methodCallTool:
			if call, ok := req.(*mcp.CallToolRequest); ok {
				return st.callTool(ctx, next, call)
			}
		case methodReadResource, methodGetPrompt, methodComplete:
			if r, ok := req.(*mcp.CompleteRequest); ok && (r.Params == nil || r.Params.Ref == nil || r.Params.Argument.Name == "") {
				break // the SDK refuses it, before any handler
			}
			return st.serveRPC(ctx, next, method, req)
		case methodListTools:
			res, err := next(ctx, method, req)
			if err == nil {
				st.learn(res)
			}
			return res, err
		}
		return next(ctx, method, req)
	}
}

// callTool serves one tools/call: a failure becomes an error result, the
// SDK's own if it built one (so that its other fields stay), with the
// pipeline's text blocks and envelope.
func (st *serverState) callTool(ctx context.Context, next mcp.MethodHandler, req *mcp.CallToolRequest) (mcp.Result, error) {
	call := callOf(req)
	var opts []filter.ToolOption
	if e, ok := st.tools.Load(call.Tool); ok {
		opts = e.(*toolEntry).opts
	}
	h := filter.Handler[mcp.Result]{
		Run: func(ctx context.Context) (mcp.Result, error) {
			res, err := next(ctx, methodCallTool, req)
			if r, ok := res.(*mcp.CallToolResult); ok && r != nil && err == nil {
				err = r.GetError() // a typed handler's error, or one a raw handler set
			}
			return res, err
		},
		HandBuilt: func(res mcp.Result) (string, bool) {
			r, ok := res.(*mcp.CallToolResult)
			if !ok || r == nil || !r.IsError {
				return "", false
			}
			return textOf(r.Content), true
		},
		Passes:     isProtocolError,
		Arguments:  func(err error) *domain.Validation { return st.arguments(ctx, next, req, err) },
		Repeatable: func() bool { return st.repeatable(ctx, next, req) },
	}
	h.Tools, h.Problems = st.firstCall(ctx, next, req)
	res, f, err := filter.Serve(ctx, st.p, call, opts, h)
	r, _ := res.(*mcp.CallToolResult)
	switch {
	case f == nil && r != nil && r.GetError() != nil:
		return res, nil // as the SDK built it
	case f == nil && r == nil && res != nil && err == nil:
		return &mcp.CallToolResult{Content: []mcp.Content{}}, nil // a nil *CallToolResult
	case f == nil:
		return res, encodable(err)
	case r != nil:
		return answered(*r, f), nil // a copy: the handler's own value is never written into
	}
	return answered(mcp.CallToolResult{}, f), nil
}

// serveRPC serves one resources/read, prompts/get or completion/complete:
// a failure becomes the JSON-RPC error of the pipeline's answer.
func (st *serverState) serveRPC(ctx context.Context, next mcp.MethodHandler, method string, req mcp.Request) (mcp.Result, error) {
	res, f, err := filter.Serve(ctx, st.p, rpcCallOf(req), nil, filter.Handler[mcp.Result]{
		Run:    func(ctx context.Context) (mcp.Result, error) { return next(ctx, method, req) },
		Passes: isProtocolError,
	})
	if f == nil {
		return res, encodable(err)
	}
	data, merr := json.Marshal(f.Envelope)
	if merr != nil {
		data = nil // never send half an envelope
	}
	return nil, &jsonrpc.Error{Code: f.JSONRPCCode, Message: f.Envelope.Message, Data: data}
}

// decodeRefusal returns err, with which a tools/call failed, if it is the
// SDK's refusal to decode an argument into the tool's typed input: the
// decoder's *json.UnmarshalTypeError, naming a field the call's arguments
// hold (arguments over 64 KiB are not read); nil otherwise.
func decodeRefusal(req *mcp.CallToolRequest, err error) error {
	ute, ok := err.(*json.UnmarshalTypeError)
	if !ok || ute == nil || ute.Field == "" || req.Params == nil || len(req.Params.Arguments) > 64<<10 {
		return nil
	}
	var args map[string]json.RawMessage
	if json.Unmarshal(req.Params.Arguments, &args) == nil {
		if _, ok = args[strings.SplitN(ute.Field, ".", 2)[0]]; ok {
			return err
		}
	}
	return nil
}

// invalidParams returns err, with which a tools/call failed, if it wraps,
// one Unwrap deep, a *jsonrpc.Error with the invalid-params code: how go-sdk
// before v1.5.0 refuses arguments, and how a raw handler says they are
// wrong; nil otherwise. No chain of the handler's is walked here, and an
// Unwrap that panics is the pipeline's to log.
func invalidParams(err error) error {
	u, ok := err.(interface{ Unwrap() error })
	if !ok {
		return nil
	}
	if rpc, ok := noPanic(u.Unwrap).(*jsonrpc.Error); ok && rpc != nil && rpc.Code == jsonrpc.CodeInvalidParams {
		return err
	}
	return nil
}

// arguments says how the arguments of req do not fit the tool's input
// schema, or nil. For arguments the SDK refused with err (a refusal to
// decode them into a typed tool's input, or an invalid-params error), when
// the schema finds nothing (a time.Time given "yesterday" fits a string
// schema), it names the field the SDK could not decode, never its value.
func (st *serverState) arguments(ctx context.Context, next mcp.MethodHandler, req *mcp.CallToolRequest, err error) *domain.Validation {
	if v := st.checkArguments(ctx, next, req); v != nil {
		return v
	}
	refused := invalidParams(err)
	if refused == nil {
		refused = decodeRefusal(req, err)
	}
	if refused == nil {
		return nil
	}
	field := ""
	var ute *json.UnmarshalTypeError
	if errors.As(refused, &ute) {
		field = ute.Field
	}
	return domain.NewValidation(field, nil, "cannot be read as the tool expects; check its form against the input schema")
}

func rpcCallOf(req mcp.Request) (c filter.Call) {
	switch r := req.(type) {
	case *mcp.ReadResourceRequest:
		c.Method = methodReadResource
		if r != nil && r.Params != nil {
			c.Resource = r.Params.URI
		}
	case *mcp.GetPromptRequest:
		c.Method = methodGetPrompt
		if r != nil && r.Params != nil {
			c.Prompt = r.Params.Name
		}
	case *mcp.CompleteRequest:
		c.Method = methodComplete
		if r != nil && r.Params != nil && r.Params.Ref != nil {
			if r.Params.Ref.Type == "ref/prompt" {
				c.Prompt = r.Params.Ref.Name
			} else {
				c.Resource = r.Params.Ref.URI
			}
		}
	}
	if s, ok := req.GetSession().(*mcp.ServerSession); ok && s != nil {
		c.SessionID = s.ID()
	}
	c.ProtocolVersion = noPanic(func() string { return protocolVersion(req) })
	return c
}

// protocolVersion reads the request's negotiated protocol version, or ""
// if it has none.
func protocolVersion(req mcp.Request) string {
	if r, ok := req.(interface{ ProtocolVersion() string }); ok {
		return r.ProtocolVersion()
	}
	// go-sdk before v1.7.0 has no ServerRequest.ProtocolVersion and speaks
	// no version after 2025-11-25: the session's is the one its client
	// asked for, or that one.
	if s, ok := req.GetSession().(*mcp.ServerSession); ok && s != nil {
		if p := s.InitializeParams(); p != nil && p.ProtocolVersion != "" {
			return min(p.ProtocolVersion, "2025-11-25")
		}
	}
	return ""
}

// noPanic returns what fn returns, or the zero value if it panics: for the
// SDK's accessors, which a request without a session can make panic.
func noPanic[T any](fn func() T) (v T) {
	defer func() { _ = recover() }()
	return fn()
}

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

// answered returns r made the error result of f: one text block a text of
// the failure, its envelope in _meta beside the other keys, no structured
// content, IsError set and the failure kept for GetError. r is a zero result
// or a copy of the one the handler or the SDK built, so that a handler that
// returns one shared value gets an answer of its own for each failure.
func answered(r mcp.CallToolResult, f *filter.Failure) *mcp.CallToolResult {
	// One allocation for the result, the envelope and the usual text
	// blocks, at most two as the default renderer makes.
	parts := &struct {
		res     mcp.CallToolResult
		text    [2]mcp.TextContent
		content [2]mcp.Content
		env     filter.Envelope
		err     mappedError
	}{res: r, env: f.Envelope, err: mappedError{f: f, err: f.Err}}
	content := parts.content[:0]
	for i, t := range f.Texts {
		if i < len(parts.text) {
			parts.text[i].Text = t
			content = append(content, &parts.text[i])
		} else {
			content = append(content, &mcp.TextContent{Text: t})
		}
	}
	res := &parts.res
	meta := make(mcp.Meta, len(res.Meta)+1)
	maps.Copy(meta, res.Meta)
	meta[filter.MetaKey] = &parts.env
	res.Meta = meta
	res.StructuredContent = nil
	res.SetError(&parts.err)
	res.Content = content // after SetError, which replaces it before go-sdk v1.6.0
	return res
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
