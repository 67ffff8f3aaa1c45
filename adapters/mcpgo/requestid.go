package mcpgo

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/mark3labs/mcp-go/mcp"
)

// requestIDHeader carries a request's JSON-RPC id from the hook that sees
// it to the handler, which the SDK does not give it. The hook overwrites
// any value a client sent under the same name.
const requestIDHeader = "Mcperr-Request-Id"

// WithRequestIDs is kept for compatibility and changes nothing: request ids
// are always on. Every tools/call, resources/read and prompts/get served by
// mcperr carries its JSON-RPC id, in the handler's context
// (filter.RequestIDFromContext), in the envelope's requestId and in the log
// record's request_id. Given to AddTool, Wrap or WrapStructured it is still
// a definition error, as it was.
//
// Deprecated: request ids are always on; leave the option out.
func WithRequestIDs() Option {
	return func(c *config) { c.requestIDs = true }
}

// stamp stores id in *header under requestIDHeader, making the header if
// there is none, and removes it for a request without an id.
func stamp(header *http.Header, id any) {
	if id == nil {
		if *header != nil {
			header.Del(requestIDHeader)
		}
		return
	}
	if *header == nil {
		*header = make(http.Header, 1)
	}
	header.Set(requestIDHeader, formatID(id))
}

// stampRequestID is the hook Install adds for tools/call.
func stampRequestID(_ context.Context, id any, req *mcp.CallToolRequest) {
	if req != nil {
		stamp(&req.Header, id)
	}
}

// stampReadResource is the hook Install adds for resources/read.
func stampReadResource(_ context.Context, id any, req *mcp.ReadResourceRequest) {
	if req != nil {
		stamp(&req.Header, id)
	}
}

// stampGetPrompt is the hook Install adds for prompts/get.
func stampGetPrompt(_ context.Context, id any, req *mcp.GetPromptRequest) {
	if req != nil {
		stamp(&req.Header, id)
	}
}

// formatID returns a JSON-RPC id as text: a string as it is, a number in
// decimal.
func formatID(id any) string {
	switch v := id.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case int64:
		return strconv.FormatInt(v, 10)
	case int:
		return strconv.Itoa(v)
	case json.Number:
		return v.String()
	case mcp.RequestId:
		return formatID(v.Value())
	}
	return fmt.Sprint(id)
}

// requestIDOf returns the id stamped on req, or "".
func requestIDOf(req *mcp.CallToolRequest) string {
	return headerID(req.Header)
}

// headerID returns the id stamped in header, or "".
func headerID(header http.Header) string {
	if header == nil {
		return ""
	}
	return header.Get(requestIDHeader)
}
