// Package gosdk plugs mcperr into servers built on the official Go MCP SDK,
// github.com/modelcontextprotocol/go-sdk. Install gives a server its one
// mcperr configuration, a *filter.Pipeline, and says how the errors and
// panics of its tool calls, resources/read, prompts/get and
// completion/complete are answered, and what passes through. AddTool and
// AddRawTool, drop-in replacements for mcp.AddTool and
// (*mcp.Server).AddTool, take per-tool options and refuse a bad definition
// with a *codes.DefinitionError at start-up; Wrap and WrapRaw mark a
// handler that something else registers.
//
// Handlers run on the SDK's goroutine; mcperr adds none. go-sdk does not
// expose the JSON-RPC id to handlers, so the request id
// (filter.RequestIDFromContext) is minted for each request on first use.
// The package never sends a client the text of an error the pipeline
// masked, a panic value, or an argument's value.
package gosdk
