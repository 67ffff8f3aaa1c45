package mcpgo

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/filter"
)

// errorResult returns the tool result of a pipeline Response: one text block
// for each of its texts, as the pipeline rendered them, its envelope in
// _meta under filter.MetaKey, no structured content, IsError set.
func errorResult(r *filter.Response) *mcp.CallToolResult {
	texts := r.Texts()
	content := make([]mcp.Content, len(texts))
	for i, t := range texts {
		content[i] = mcp.NewTextContent(t)
	}
	return &mcp.CallToolResult{
		Result: mcp.Result{Meta: &mcp.Meta{
			AdditionalFields: map[string]any{filter.MetaKey: r.Envelope()},
		}},
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
func EnvelopeOf(res *mcp.CallToolResult) (*filter.Envelope, bool) {
	if res == nil || res.Meta == nil {
		return nil, false
	}
	env, err := filter.ReadEnvelope(res.Meta.AdditionalFields)
	return env, err == nil
}

// isProtocolError reports whether err is a deliberate protocol error, which
// passes through for the SDK to send: a mcp.URLElicitationRequiredError,
// returned as it is. As for the other SDK's *jsonrpc.Error, an error that
// wraps one is a tool failure like any other, so that its text never reaches
// the client unmapped.
func isProtocolError(err error) bool {
	switch err.(type) {
	case mcp.URLElicitationRequiredError, *mcp.URLElicitationRequiredError:
		return true
	}
	return false
}

// callOf describes the call req for the pipeline. The session id is the
// SDK's; the request id is the JSON-RPC id that Install's hook stamped, or,
// where no hook saw the call, the one minted for it in ctx.
func (st *serverState) callOf(ctx context.Context, req *mcp.CallToolRequest) filter.Call {
	c := filter.Call{Tool: req.Params.Name, RequestID: requestIDOf(req)}
	if s := server.ClientSessionFromContext(ctx); s != nil {
		c.SessionID = s.SessionID()
	}
	return c
}
