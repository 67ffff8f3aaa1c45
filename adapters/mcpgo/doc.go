// Package mcpgo plugs mcperr into servers built on
// github.com/mark3labs/mcp-go.
//
// A server has one mcperr configuration, a *filter.Pipeline, given once with
// Install, which installs the server-wide middleware: the one place that
// turns an error or a panic of any tool call, resources/read or
// prompts/get, however its handler was added, into a failure the pipeline
// maps and logs once. Without it, the SDK sends a handler's error as a
// JSON-RPC error -32603 with the raw text, and lets a panic reach the
// caller or drop the connection. Then:
//
//   - AddTool, the drop-in replacement for (*server.MCPServer).AddTool,
//     takes per-tool options (WithFilters) and refuses a bad definition
//     with a *codes.DefinitionError at start-up;
//   - Wrap returns the SDK's own server.ToolHandlerFunc, with per-tool
//     options, for tools that something else registers;
//   - Structured is mcp.NewStructuredToolHandler that returns the
//     handler's errors for mcperr to map, a ToolError's words included;
//   - WrapPromptCompletion and WrapResourceCompletion cover completions,
//     which mcp-go gives no middleware.
//
// A failed call reaches the client as a tool result with isError set, the
// text blocks the pipeline rendered for the model and its envelope under
// _meta[filter.MetaKey], which EnvelopeOf reads back, and no structured
// content. A successful result is never touched. Install says how
// arguments that do not fit a tool's input schema are answered, and which
// failures pass through exactly as the SDK sends them.
//
// The package never sends a client the text of an error the pipeline
// masked, a panic value, or an argument's value.
package mcpgo
