// Package mcperr is error handling you can trust for Go MCP servers built on
// github.com/modelcontextprotocol/go-sdk or github.com/mark3labs/mcp-go.
//
// A tool that fails should tell the model what it can act on, and nothing
// else. With mcperr, a toolerr.ToolError reaches the model exactly as
// written; a domain error reaches it with its code and public details; any
// other failure, panics included, is logged once with a reference id while
// the client reads only `Internal error in tool "x" (ref: R).`. Successful
// calls are never touched.
//
// This package holds no code. Start with the adapter of your SDK:
//
//   - mcperr/adapters/gosdk for the official SDK: gosdk.Install(s, pipeline)
//     once per server, then gosdk.AddTool in place of mcp.AddTool;
//   - mcperr/adapters/mcpgo for mark3labs/mcp-go: mcpgo.Install(s, pipeline)
//     once per server, then mcpgo.AddTool in place of s.AddTool.
//
// The other packages, from the leaves up:
//
//   - mcperr/codes: the Code type, the built-in codes, the Registry of an
//     application's own, and the definition errors of start-up;
//   - mcperr/domain: errors a service layer returns without knowing about
//     MCP (NotFound, Validation, Authorization, BusinessRule, ...);
//   - mcperr/toolerr: ToolError, the message meant for the model, and the
//     interfaces that classify any error;
//   - mcperr/filter: the pipeline, a server's one error-handling
//     configuration: exception filters, observers, refs, logging through
//     log/slog, and the rendering of failures for the model.
//
// For tests: mcperr/mcperrtest holds assertions on what a client received
// and what the server logged; mcperr/adapters/gosdk/gosdktest and
// mcperr/adapters/mcpgo/mcpgotest connect an in-memory client to a server
// of each SDK in one call.
package mcperr
