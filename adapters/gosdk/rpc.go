package gosdk

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/callctx"
	"github.com/mcperr/mcperr/internal/guard"
)

// serveRPC runs one resources/read, prompts/get or completion/complete on
// the calling goroutine. An error, other than a *jsonrpc.Error returned as
// it is, and a panic, recovered here with defer, become the JSON-RPC error
// of the pipeline's failure, mapped and logged once; in report-only mode
// they are logged and pass on as they came, a panic panicked again.
func (st *serverState) serveRPC(ctx context.Context, next mcp.MethodHandler, method string, req mcp.Request) (res mcp.Result, err error) {
	if method == methodComplete && !wellFormedCompletion(req) {
		// The SDK refuses it with an error of its own, before any handler.
		return next(ctx, method, req)
	}
	d := rpcCallOf(req)
	callctx.From(ctx).Describe(d.Method, "", d.Resource, d.Prompt, d.SessionID)
	returned := false
	defer func() {
		if !returned {
			v := recover()
			if failure := guard.Recovered(ctx, v); failure != nil {
				rpcErr := st.rpcFail(ctx, req, failure)
				if rpcErr == nil && v != nil {
					panic(v) // report-only: as without mcperr
				}
				if rpcErr != nil {
					res, err = nil, rpcErr
				}
			}
		}
	}()
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

// wellFormedCompletion reports whether req has what the SDK requires of a
// completion/complete before it calls the handler: a ref and an argument
// name.
func wellFormedCompletion(req mcp.Request) bool {
	r, ok := req.(*mcp.CompleteRequest)
	return ok && r.Params != nil && r.Params.Ref != nil && r.Params.Argument.Name != ""
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
		data = nil // the envelope is made to encode; never send half of one
	}
	return &jsonrpc.Error{Code: f.JSONRPCCode, Message: f.Envelope.Message, Data: data}
}

// rpcCallOf describes req for the pipeline.
func rpcCallOf(req mcp.Request) filter.Call {
	var c filter.Call
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
// if the request has none or reading it panics, as it does for a request
// without a session.
func protocolVersion(req mcp.Request) (v string) {
	defer func() {
		if recover() != nil {
			v = ""
		}
	}()
	if r, ok := req.(interface{ ProtocolVersion() string }); ok {
		return r.ProtocolVersion()
	}
	// go-sdk before v1.7.0 has no ServerRequest.ProtocolVersion, and
	// speaks no version after 2025-11-25: the session's version is the one
	// its client asked for, or that one.
	if s, ok := req.GetSession().(*mcp.ServerSession); ok && s != nil {
		if p := s.InitializeParams(); p != nil && p.ProtocolVersion != "" {
			return min(p.ProtocolVersion, lastBeforeV17)
		}
	}
	return ""
}

// lastBeforeV17 is the newest protocol version go-sdk spoke before v1.7.0.
const lastBeforeV17 = "2025-11-25"
