// Package mcpgo plugs mcperr into servers built on
// github.com/mark3labs/mcp-go.
//
// A server has one mcperr configuration, a *filter.Pipeline, given once with
// Install, which installs the server-wide middleware. Call it after the
// SDK's own middleware options, such as server.WithRecovery, and before
// adding tools:
//
//	if err := mcpgo.Install(s, pipeline); err != nil {
//		log.Fatal(err)
//	}
//
// The middleware serves every tool call, resources/read and prompts/get of
// the server, however the handler was added: an error the handler returns,
// which the SDK alone sends as a JSON-RPC error -32603 with the raw text,
// and a panic, which the SDK alone lets reach the caller or drop the
// connection, become failures the pipeline maps and logs once. Then:
//
//   - AddTool, the drop-in replacement for (*server.MCPServer).AddTool,
//     takes per-tool options (WithFilters) and refuses a bad definition
//     with a *codes.DefinitionError at start-up;
//   - Wrap returns the SDK's own server.ToolHandlerFunc, with per-tool
//     options, for tools that something else registers;
//   - Structured is mcp.NewStructuredToolHandler that returns the
//     handler's errors for mcperr to map, a ToolError's words included,
//     where mcp-go's typed helpers build results of their own from them,
//     hand-built results (see filter.WithHandBuilt), passed by default;
//   - WrapPromptCompletion and WrapResourceCompletion cover completions,
//     which mcp-go gives no middleware.
//
// A failed call reaches the client as a tool result with isError set, the
// text blocks the pipeline rendered for the model and its envelope under
// _meta[filter.MetaKey], which EnvelopeOf reads back, and no structured
// content. Arguments are checked against the tool's input schema only when
// the call fails: a call whose arguments do not fit is answered
// VALIDATION_ERROR naming the fields, and a call the handler answers stays
// as it was, whatever its arguments.
//
// Some things pass through exactly as the SDK sends them: a
// mcp.URLElicitationRequiredError returned as it is (a deliberate protocol
// error), a call to an unknown tool, and, unless filter.WithHandBuilt says
// otherwise, an error result a handler built itself, such as
// mcp.NewToolResultError's or those mcp.NewTypedToolHandler and
// mcp.NewStructuredToolHandler build from an error. A successful result is
// never touched.
//
// The SDK's own server.WithLogger writes its own lines; mcperr writes the
// one record of each failure through the pipeline's logger, after it has
// turned the error into a result, so the SDK's lines never hold the raw
// error text.
//
// The package never sends a client the text of an error the pipeline
// masked, a panic value, or an argument's value.
package mcpgo
