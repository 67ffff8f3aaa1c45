package mcpgo

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/mark3labs/mcp-go/mcp"
)

// requestIDHeader carries a call's JSON-RPC id from the hook that sees it to
// the handler, which the SDK does not give it. The hook overwrites any value
// a client sent under the same name.
const requestIDHeader = "Mcperr-Request-Id"

// WithRequestIDs puts the JSON-RPC id of each failed call in its log record
// and in its envelope's requestId, for every tool of the server: given to
// Install only. The SDK hands the id to hooks alone, so Install adds a
// before-call-tool hook to the server's Hooks, those given with
// server.WithHooks, or to new Hooks it gives the server if it has none:
//
//	if err := mcpgo.Install(s, p, mcpgo.WithRequestIDs()); err != nil {
//		log.Fatal(err)
//	}
//
// The hook stores the id in the request's Header, under a name of its own
// that it overwrites whatever a client sent, and costs two small
// allocations a call; without the option, request ids stay empty and a call
// costs nothing more. Given to AddTool, Wrap or WrapStructured it is a
// definition error.
func WithRequestIDs() Option {
	return func(c *config) { c.requestIDs = true }
}

// stampRequestID is the hook Install adds for WithRequestIDs.
func stampRequestID(_ context.Context, id any, req *mcp.CallToolRequest) {
	if req == nil {
		return
	}
	if req.Header == nil {
		req.Header = make(http.Header)
	}
	if id == nil {
		req.Header.Del(requestIDHeader)
		return
	}
	req.Header.Set(requestIDHeader, formatID(id))
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
	if req.Header == nil {
		return ""
	}
	return req.Header.Get(requestIDHeader)
}
