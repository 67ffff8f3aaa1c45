package mcpgo

import "github.com/mark3labs/mcp-go/server"

// MiddlewareOf returns the middleware mcperr installed on s, or nil, for the
// tests that measure it apart from the SDK.
func MiddlewareOf(s *server.MCPServer) server.ToolHandlerMiddleware {
	if st := servers.Load(s); st != nil {
		return st.middleware
	}
	return nil
}

// CloneArguments is the copy of a call's arguments that a retried attempt gets.
func CloneArguments(args any) any { return cloneJSON(args, 0) }
