// Package gosdk plugs mcperr's error pipeline into servers built on the
// official Go MCP SDK, github.com/modelcontextprotocol/go-sdk.
//
// It offers three ways in, which can be combined:
//
//   - Middleware, a server-wide mcp.Middleware installed with
//     (*mcp.Server).AddReceivingMiddleware. It runs every tools/call through
//     the pipeline: errors of typed and raw handlers, panics, and arguments
//     the SDK refused because they do not fit the tool's input schema.
//   - Wrap and WrapRaw, drop-in wrappers that return the SDK's own handler
//     types, so mcp.AddTool(s, tool, gosdk.Wrap(h)) keeps compiling, with
//     filters bound to one tool.
//   - Tools, made by NewTools, which installs the middleware once and adds
//     tools through AddTool and (*Tools).AddRawTool, refusing a bad tool
//     name, a tool added twice or a nil handler with a
//     *toolerr.DefinitionError.
//
// Whatever the way in, a failed call reaches the client as a tool result
// with isError set, the text of the pipeline's filter.Response (its message,
// then one "Hint: ..." block a hint) and its machine-readable envelope under
// _meta[filter.MetaKey]. An error result never carries structuredContent, so
// it passes the output-schema checks of standard clients. An error is mapped
// and logged once, however many of the three are in place.
//
// Some things pass through exactly as the SDK sends them: a *jsonrpc.Error
// that a handler returns as it is (a deliberate protocol error), a call to
// an unknown tool, every method other than tools/call, and a result that a
// handler built itself with IsError set but without SetError. A successful
// result is never touched.
//
// The package holds no error policy: what a client reads for an error is the
// pipeline's decision alone, and this package only converts between the
// SDK's shapes and the pipeline's. It must never send a client the text of
// an error the pipeline masked, a panic value, or an argument's value.
package gosdk
