package gosdk

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/domain"
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
// gives every request it serves a context that carries the state of st and
// the request's id.
func (st *serverState) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case methodCallTool:
			if call, ok := req.(*mcp.CallToolRequest); ok {
				ctx = callctx.With(ctx, st)
				c := callctx.From(ctx)
				d := callOf(call)
				c.Describe(methodCallTool, d.Tool, "", "", d.SessionID)
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
	if req.Params == nil {
		return st.callTool(ctx, next, req)
	}
	_, settings := st.options(req.Params.Name)
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
		if m := st.mapError(ctx, req, v, nil); m != nil {
			return errorResult(m), nil
		}
	}
	res, err := st.callTool(ctx, next, req)
	if r, ok := res.(*mcp.CallToolResult); err == nil && ok && r != nil && !r.IsError {
		st.mapError(ctx, req, v, nil) // report-only: the record alone
	}
	return res, err
}

// callTool runs one tools/call on the calling goroutine. A panic in the
// rest of the chain is recovered here with defer and answered; a
// runtime.Goexit is logged once and leaves the call unanswered, as the
// SDK does.
func (st *serverState) callTool(ctx context.Context, next mcp.MethodHandler, req *mcp.CallToolRequest) (res mcp.Result, err error) {
	returned := false
	defer func() {
		if !returned {
			v := recover()
			if failure := guard.Recovered(ctx, v); failure != nil {
				m := st.mapError(ctx, req, failure, nil)
				if m == nil && v != nil {
					panic(v) // report-only: as without mcperr
				}
				if m != nil {
					res, err = errorResult(m), nil
				}
			}
		}
	}()
	res, err = next(ctx, methodCallTool, req)
	returned = true
	if err != nil {
		if isProtocolError(err) {
			return res, encodable(err)
		}
		check := st.arguments(ctx, next, req)
		if invalidParams(err) {
			// go-sdk before v1.5.0 refuses arguments with a Go error that
			// wraps its invalid-params *jsonrpc.Error.
			check = st.refusal(ctx, next, req, err)
		}
		if m := st.mapError(ctx, req, err, check); m != nil {
			return errorResult(m), nil
		}
		return res, err
	}
	r, ok := res.(*mcp.CallToolResult)
	if !ok {
		return res, nil
	}
	if r == nil {
		return &mcp.CallToolResult{Content: []mcp.Content{}}, nil
	}
	if !r.IsError {
		return res, nil
	}
	cause := r.GetError()
	var m *mappedError
	switch {
	case cause == nil:
		m = st.handBuilt(ctx, req, r)
	case decodeRefusal(req, cause):
		m = st.mapError(ctx, req, cause, st.refusal(ctx, next, req, cause))
	default:
		m = st.mapError(ctx, req, cause, st.arguments(ctx, next, req))
	}
	if m != nil {
		return answered(r, m), nil
	}
	return res, nil
}

// decodeRefusal reports whether err, with which a tools/call failed, is
// the SDK's refusal to decode one of the
// arguments the client sent into the tool's typed input: go-sdk sends the
// decoder's *json.UnmarshalTypeError as it is, naming the field, and that
// field is one the call's arguments hold. Arguments over 64 KiB are not
// read.
func decodeRefusal(req *mcp.CallToolRequest, err error) bool {
	ute, ok := err.(*json.UnmarshalTypeError)
	if !ok || ute == nil || ute.Field == "" || req.Params == nil || len(req.Params.Arguments) > 64<<10 {
		return false
	}
	var args map[string]json.RawMessage
	if json.Unmarshal(req.Params.Arguments, &args) != nil {
		return false
	}
	_, ok = args[strings.SplitN(ute.Field, ".", 2)[0]]
	return ok
}

// invalidParams reports whether err, which a tools/call failed with, is not
// itself a protocol error but wraps one with the JSON-RPC code for invalid
// params: how go-sdk before v1.5.0 refuses arguments it cannot validate or
// decode, for any tool, and how a raw handler says the arguments are
// wrong. Either way the arguments are the client's to correct.
// Only the SDK's shape is read, one Unwrap deep, so that no chain of the
// handler's is walked here.
func invalidParams(err error) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false // an Unwrap that panics is the pipeline's to log
		}
	}()
	u, isWrapper := err.(interface{ Unwrap() error })
	if !isWrapper {
		return false
	}
	rpc, isRPC := u.Unwrap().(*jsonrpc.Error)
	return isRPC && rpc != nil && rpc.Code == jsonrpc.CodeInvalidParams
}

// refusal returns the check of the arguments of req, which the SDK
// refused with err: the fields the schema check finds, or else the field
// the SDK could not decode (a time.Time given "yesterday" fits a string
// schema), never its value.
func (st *serverState) refusal(ctx context.Context, next mcp.MethodHandler, req *mcp.CallToolRequest, err error) func() error {
	return func() error {
		if v := st.checkArguments(ctx, next, req); v != nil {
			return v
		}
		field := ""
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			field = ute.Field
		}
		return domain.NewValidation(field, nil, "cannot be read as the tool expects; check its form against the input schema")
	}
}

// arguments returns the check of the arguments of req, for a failure of
// the handler: how they do not fit the tool's input schema, or nil.
func (st *serverState) arguments(ctx context.Context, next mcp.MethodHandler, req *mcp.CallToolRequest) func() error {
	return func() error {
		if v := st.checkArguments(ctx, next, req); v != nil {
			return v
		}
		return nil
	}
}
