package mcpgo

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/envelope"
)

// errorResult returns the tool result of a failure: one text block for
// each of its texts, its envelope in _meta under filter.MetaKey, no
// structured content, IsError set.
func errorResult(f *filter.Failure) *mcp.CallToolResult {
	content := make([]mcp.Content, len(f.Texts))
	for i, t := range f.Texts {
		content[i] = mcp.NewTextContent(t)
	}
	return &mcp.CallToolResult{
		Result: mcp.Result{Meta: &mcp.Meta{
			AdditionalFields: map[string]any{filter.MetaKey: f.Envelope},
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
func EnvelopeOf(res *mcp.CallToolResult) (filter.Envelope, bool) {
	if res == nil || res.Meta == nil {
		return filter.Envelope{}, false
	}
	return envelope.Read(res.Meta.AdditionalFields)
}

// isProtocolError reports whether err is a deliberate protocol error, which
// passes through for the SDK to send: a mcp.URLElicitationRequiredError,
// returned as it is, whose elicitations encode. An error that wraps one,
// or one the SDK could not encode (its requested schema or _meta holds a
// value JSON cannot hold), is a tool failure like any other, so that
// neither its text nor a broken answer reaches the client.
func isProtocolError(err error) bool {
	switch e := err.(type) {
	case mcp.URLElicitationRequiredError:
		return encodes(e.Elicitations)
	case *mcp.URLElicitationRequiredError:
		return e != nil && encodes(e.Elicitations)
	}
	return false
}

// encodes reports whether v encodes to JSON, recovering a panic of a
// value's own MarshalJSON.
func encodes(v any) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	_, err := json.Marshal(v)
	return err == nil
}

// callOf describes the call req for the pipeline; the session id is the
// SDK's.
func callOf(ctx context.Context, req *mcp.CallToolRequest) filter.Call {
	c := filter.Call{Tool: req.Params.Name}
	if s := server.ClientSessionFromContext(ctx); s != nil {
		c.SessionID = s.SessionID()
	}
	return c
}
