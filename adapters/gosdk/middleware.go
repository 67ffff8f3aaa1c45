package gosdk

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/callctx"
	"github.com/mcperr/mcperr/internal/guard"
)

// The methods the middleware serves; every other passes through.
const (
	methodCallTool     = "tools/call"
	methodListTools    = "tools/list"
	methodReadResource = "resources/read"
	methodGetPrompt    = "prompts/get"
	methodComplete     = "completion/complete"
)

// middleware is the receiving middleware that Install puts on a server. It
// gives every request it serves a context that carries st and the
// request's id.
func (st *serverState) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case methodCallTool:
			if call, ok := req.(*mcp.CallToolRequest); ok {
				ctx = callctx.With(ctx, st)
				d := callOf(call)
				callctx.From(ctx).Describe(methodCallTool, d.Tool, "", "", d.SessionID)
				if st.checkAll || st.someChecks.Load() {
					return st.checkFirst(ctx, next, call)
				}
				return st.callTool(ctx, next, call)
			}
		case methodReadResource, methodGetPrompt, methodComplete:
			return st.serveRPC(callctx.With(ctx, st), next, method, req)
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

// checkFirst runs req with its arguments checked first, if the server or
// the tool asks for it: VALIDATION_ERROR for arguments that do not fit, the
// tool not run. In report-only mode the call runs, and a success logs the
// refusal mcperr would have sent (a failure is logged once, as ever).
func (st *serverState) checkFirst(ctx context.Context, next mcp.MethodHandler, req *mcp.CallToolRequest) (mcp.Result, error) {
	_, settings := st.options(callOf(req).Tool)
	check, reportOnly := callctx.Modes(st.p, settings)
	if !check {
		return st.callTool(ctx, next, req)
	}
	v := func() *domain.Validation {
		defer func() { _ = recover() }() // outside callTool's recovery: a check that panics checks nothing
		return st.checkArguments(ctx, next, req)
	}()
	if v == nil {
		return st.callTool(ctx, next, req)
	}
	if !reportOnly {
		if m := st.mapError(ctx, nil, req, v, nil, nil); m != nil {
			return answered(mcp.CallToolResult{}, m), nil
		}
	}
	res, err := st.callTool(ctx, next, req)
	if r, ok := res.(*mcp.CallToolResult); err == nil && ok && r != nil && !r.IsError {
		st.mapError(ctx, nil, req, v, nil, nil) // report-only: the record alone
	}
	return res, err
}

// callTool runs one tools/call on the calling goroutine and answers its
// failure, a panic included; it calls the tool again while the pipeline
// asks it to (filter.WithRetries).
func (st *serverState) callTool(ctx context.Context, next mcp.MethodHandler, req *mcp.CallToolRequest) (res mcp.Result, err error) {
	var t callctx.Try
	returned := false
	defer rescue(&returned, func(failure error) bool {
		m := st.mapError(ctx, next, req, failure, nil, &t)
		if m != nil {
			res, err = answered(mcp.CallToolResult{}, m), nil
		}
		return m != nil
	})
	for {
		t.Begin(st.retries)
		returned = false
		res, err = next(ctx, methodCallTool, req)
		returned = true
		var m *mappedError
		if res, m, err = st.answer(ctx, next, req, res, err, &t); m == nil || !t.Wait(ctx, m.f.Retry, m.f.Envelope.Ref) {
			return res, err
		}
	}
}

// answer returns what the client receives for one attempt of the call req,
// which returned res and err, and its failure as the pipeline mapped it,
// if it did.
func (st *serverState) answer(ctx context.Context, next mcp.MethodHandler, req *mcp.CallToolRequest, res mcp.Result, err error, t *callctx.Try) (mcp.Result, *mappedError, error) {
	if err != nil {
		if isProtocolError(err) {
			return res, nil, encodable(err)
		}
		if m := st.mapError(ctx, next, req, err, st.arguments(ctx, next, req, invalidParams(err)), t); m != nil {
			return answered(mcp.CallToolResult{}, m), m, nil
		}
		return res, nil, err
	}
	r, ok := res.(*mcp.CallToolResult)
	if !ok || (r != nil && !r.IsError) {
		if st.retries {
			callctx.Succeeded(st.p)
		}
		return res, nil, nil
	}
	if r == nil {
		return &mcp.CallToolResult{Content: []mcp.Content{}}, nil, nil
	}
	var m *mappedError
	if cause := r.GetError(); cause != nil {
		m = st.mapError(ctx, next, req, cause, st.arguments(ctx, next, req, decodeRefusal(req, cause)), t)
	} else if m = st.mapError(ctx, nil, req, callctx.From(ctx).HandBuiltError(textOf(r.Content)), nil, t); m != nil && m.f.Envelope.Code != codes.InternalError {
		m = nil // a hand-built result is replaced only when the policy masks it
	}
	if m != nil {
		return answered(*r, m), m, nil
	}
	return res, nil, nil
}

// rescue, deferred by callTool and serveRPC, recovers a panic of the rest
// of the chain unless it returned, and hands answer the failure; a panic
// that answer does not answer (report-only mode) goes on, as without
// mcperr. A runtime.Goexit is logged once and leaves the call unanswered,
// as the SDK does.
func rescue(returned *bool, answer func(failure error) bool) {
	if *returned {
		return
	}
	v := recover()
	if failure := guard.Recovered(v); !answer(failure) && v != nil {
		panic(v)
	}
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
// wrong; nil otherwise. No chain of the handler's is walked here.
func invalidParams(err error) error {
	defer func() { _ = recover() }() // nil: an Unwrap that panics is the pipeline's to log
	if u, ok := err.(interface{ Unwrap() error }); ok {
		if rpc, ok := u.Unwrap().(*jsonrpc.Error); ok && rpc != nil && rpc.Code == jsonrpc.CodeInvalidParams {
			return err
		}
	}
	return nil
}

// arguments returns, for the pipeline, the check of how the arguments of
// req do not fit the tool's input schema, or nil. For arguments the SDK
// refused with refused, when the schema finds nothing (a time.Time given
// "yesterday" fits a string schema), it names the field the SDK could not
// decode, never its value.
func (st *serverState) arguments(ctx context.Context, next mcp.MethodHandler, req *mcp.CallToolRequest, refused error) func() error {
	return func() error {
		if v := st.checkArguments(ctx, next, req); v != nil {
			return v
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
}

// serveRPC runs one resources/read, prompts/get or completion/complete on
// the calling goroutine. An error, other than a *jsonrpc.Error returned as
// it is, and a panic become the JSON-RPC error of the pipeline's failure;
// in report-only mode they are logged and pass on as they came.
func (st *serverState) serveRPC(ctx context.Context, next mcp.MethodHandler, method string, req mcp.Request) (res mcp.Result, err error) {
	if r, ok := req.(*mcp.CompleteRequest); method == methodComplete && (!ok || r.Params == nil || r.Params.Ref == nil || r.Params.Argument.Name == "") {
		// Without a ref and an argument name the SDK refuses it, before any handler.
		return next(ctx, method, req)
	}
	d := rpcCallOf(req)
	callctx.From(ctx).Describe(d.Method, "", d.Resource, d.Prompt, d.SessionID)
	returned := false
	defer rescue(&returned, func(failure error) bool {
		rpcErr := st.rpcFail(ctx, req, failure)
		if rpcErr != nil {
			res, err = nil, rpcErr
		}
		return rpcErr != nil
	})
	res, err = next(ctx, method, req)
	returned = true
	if err == nil || isProtocolError(err) {
		return res, encodable(err)
	}
	if rpcErr := st.rpcFail(ctx, req, err); rpcErr != nil {
		return nil, rpcErr
	}
	return res, err
}

// rpcFail hands err, raised by req, to the pipeline of st, and returns the
// JSON-RPC error to send: the failure's message and code, its envelope as
// data; nil in report-only mode, where err passes on as it came.
func (st *serverState) rpcFail(ctx context.Context, req mcp.Request, err error) *jsonrpc.Error {
	f := st.p.Handle(ctx, rpcCallOf(req), err)
	if f.ReportOnly {
		return nil
	}
	data, merr := json.Marshal(f.Envelope)
	if merr != nil {
		data = nil // never send half an envelope
	}
	return &jsonrpc.Error{Code: f.JSONRPCCode, Message: f.Envelope.Message, Data: data}
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
	c.ProtocolVersion = protocolVersion(req)
	return c
}

// protocolVersion reads the request's negotiated protocol version, or ""
// if it has none or reading it panics (a request without a session).
func protocolVersion(req mcp.Request) string {
	defer func() { _ = recover() }()
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
