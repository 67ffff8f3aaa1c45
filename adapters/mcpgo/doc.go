// Package mcpgo plugs mcperr's error pipeline into servers built on
// github.com/mark3labs/mcp-go, so that a failed tool call reaches the model
// as a tool result it can read, with a secret never in it, and reaches the
// log once.
//
// It offers three ways in, which can be combined:
//
//   - Middleware, a server.ToolHandlerMiddleware installed with
//     server.WithToolHandlerMiddleware or (*server.MCPServer).Use. It runs
//     every tool call of the server through the pipeline.
//   - Wrap and WrapStructured, drop-in wrappers that return the SDK's own
//     server.ToolHandlerFunc, so s.AddTool(tool, mcpgo.Wrap(h)) keeps
//     compiling, with filters bound to one tool.
//   - Tools, made by NewTools, whose AddTool wraps the handler and refuses
//     a bad definition (an invalid tool name, a tool added twice, a nil
//     handler, an unusable input schema) with a *toolerr.DefinitionError
//     instead of registering it.
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
// A failed call becomes a tool result with IsError set, one text block a text
// of the pipeline's filter.Response (its message, then one "Hint: ..." block
// a hint), its machine-readable envelope in _meta under filter.MetaKey, and
// no structured content, so that it passes the output-schema checks of
// standard clients. An error is mapped and logged once, however many of the
// three ways are in place.
//
// Some things pass through exactly as the SDK sends them: a result a handler
// built itself, such as mcp.NewToolResultError, a
// mcp.URLElicitationRequiredError returned as it is (a deliberate protocol
// error), a call to an unknown tool, and every successful result.
//
// The package holds no error policy: what a client reads for an error is the
// pipeline's decision alone, and this package only converts between the
// SDK's shapes and the pipeline's. It must never send a client the text of an
// error the pipeline masked, a panic value, or an argument's value.
package mcpgo
