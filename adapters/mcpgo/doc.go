// Package mcpgo plugs mcperr into servers built on
// github.com/mark3labs/mcp-go.
//
// A server has one mcperr configuration, a *filter.Pipeline, given once with
// Install, which also installs the server-wide middleware. Call it after
// the SDK's own middleware options, such as server.WithRecovery:
//
//	if err := mcpgo.Install(s, pipeline); err != nil {
//		log.Fatal(err)
//	}
//
// Every entry point on that server then uses it:
//
//   - the middleware, for every tool call of the server, whatever added the
//     tool: errors and panics of its handler, and arguments that do not fit
//     the tool's input schema;
//   - AddTool, the drop-in replacement for (*server.MCPServer).AddTool that
//     takes per-tool filters and refuses a bad definition (an invalid tool
//     name, a tool added twice, a nil handler, an unusable input schema)
//     with a *toolerr.DefinitionError at start-up. Used without Install, it
//     installs mcperr with the default configuration;
//   - Wrap and WrapStructured, wrappers that return the SDK's own
//     server.ToolHandlerFunc, so s.AddTool(tool, mcpgo.Wrap(h)) keeps
//     compiling, with filters bound to one tool. On a server without mcperr
//     they use the default configuration.
//
// Whatever the way in, mcperr handles:
//
//   - an error the handler returns, which the SDK alone sends as a JSON-RPC
//     error -32603 whose message is the raw error text;
//   - a panic in the handler, which the SDK alone lets reach the caller,
//     drop the HTTP connection or answer with the panic value;
//   - arguments that do not fit the tool's input schema, checked before the
//     handler runs: a VALIDATION_ERROR naming each wrong field and what is
//     wrong with it, never its value. The SDK checks nothing unless
//     server.WithInputSchemaValidation is set, and then answers in its own
//     words before any middleware runs: do not combine the two.
//
// A failed call reaches the client as a tool result with isError set, the
// text blocks the pipeline rendered for the model (the message, then its
// code, details, retry advice and hints; see filter.WithRenderer), its
// machine-readable envelope under _meta[filter.MetaKey], which EnvelopeOf
// reads back, and no structured content, so that it passes the
// output-schema checks of standard clients. An error is mapped and logged
// once, however the entry points are combined.
//
// Some things pass through exactly as the SDK sends them: a result a handler
// built itself, such as mcp.NewToolResultError, a
// mcp.URLElicitationRequiredError returned as it is (a deliberate protocol
// error), and a call to an unknown tool. A successful result is never
// touched.
//
// Every tools/call, resources/read and prompts/get carries its JSON-RPC id,
// which mcp-go hands to hooks alone: Install adds hooks that stamp it on the
// request, overwriting any header a client sends under the same name.
// Handlers read it with filter.RequestIDFromContext; the envelope and the
// log record of a failure carry it. A completion, which no hook reaches,
// gets a UUID of version 7 instead.
//
// The SDK's own server.WithLogger is the SDK's logger, not mcperr's: it
// writes one line per request and per tool call, with the outcome, and
// mcperr's middleware, installed after it, keeps the raw error text out of
// those lines. mcperr writes the one record of each failure, with the error,
// its ref and request id, through the pipeline's logger, the *slog.Logger of
// filter.WithLogger. Passing the same logger to both puts both in one log;
// neither replaces the other.
//
// The package never sends a client the text of an error the pipeline masked,
// a panic value, or an argument's value.
package mcpgo
