// Package mcpgo plugs mcperr into servers built on
// github.com/mark3labs/mcp-go. Install gives a server its one mcperr
// configuration, a *filter.Pipeline, and the middleware that turns an error
// or a panic of any tool call, resources/read or prompts/get, however its
// handler was added, into a failure the pipeline maps and logs once
// (Install says how each is answered, and what passes through as the SDK
// sends it). Without it, the SDK sends a handler's error as a JSON-RPC
// error -32603 with the raw text, and lets a panic reach the caller or drop
// the connection.
//
// AddTool, the drop-in replacement for (*server.MCPServer).AddTool, takes
// per-tool options and refuses a bad definition with a
// *codes.DefinitionError at start-up; Wrap marks a handler that something
// else registers; Structured is mcp.NewStructuredToolHandler returning the
// handler's errors, a ToolError's words included, for mcperr to map;
// WrapPromptCompletion and WrapResourceCompletion cover completions, which
// mcp-go gives no middleware. The package never sends a client the text of
// an error the pipeline masked, a panic value, or an argument's value.
package mcpgo
