package mcpgo

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/toolerr"
)

// requestIDHeader carries a call's JSON-RPC id from the hook that sees it to
// the handler, which the SDK does not give it. The hook overwrites any value
// a client sent under the same name.
const requestIDHeader = "Mcperr-Request-Id"

// WithRequestIDs puts the JSON-RPC id of each failed call in its log record
// and in its envelope's requestId. The SDK hands the id to hooks only, so
// WithRequestIDs adds a before-call-tool hook to hooks, which must be the
// Hooks the server was given with server.WithHooks:
//
//	hooks := &server.Hooks{}
//	ids := mcpgo.WithRequestIDs(hooks)
//	s := server.NewMCPServer("orders", "1.0.0", server.WithHooks(hooks),
//		server.WithToolHandlerMiddleware(mcpgo.Middleware(ids)))
//
// It adds the hook when it is called, so call it once per server, before the
// server serves, and pass the Option it returns wherever mcperr is set up.
// The hook stores the id in the request's Header, under a name of its own
// that it overwrites, and costs two small allocations a call; without the
// Option, request ids stay empty and a call costs nothing more. A nil hooks
// is a definition error.
func WithRequestIDs(hooks *server.Hooks) Option {
	if hooks == nil {
		err := &toolerr.DefinitionError{Code: codes.InvalidOption,
			Reason: "WithRequestIDs needs the *server.Hooks given to the server with server.WithHooks"}
		return func(c *config) { c.idsErr = err }
	}
	hooks.AddBeforeCallTool(stampRequestID)
	return func(c *config) { c.requestIDs = true }
}

// stampRequestID is the hook of WithRequestIDs.
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
