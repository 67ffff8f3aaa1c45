// Package gosdk plugs mcperr into servers built on the official Go MCP SDK,
// github.com/modelcontextprotocol/go-sdk.
//
// A server has one mcperr configuration, a *filter.Pipeline, given once with
// Install, which also installs the server-wide middleware:
//
//	if err := gosdk.Install(s, pipeline); err != nil {
//		log.Fatal(err)
//	}
//
// Every entry point on that server then uses it:
//
//   - the middleware, for every tools/call of the server, whatever added
//     the tool: errors of typed and raw handlers, panics, and arguments the
//     SDK refused because they do not fit the tool's input schema;
//   - AddTool and AddRawTool, drop-in replacements for mcp.AddTool and
//     (*mcp.Server).AddTool that take per-tool filters and refuse a bad
//     definition with a *toolerr.DefinitionError at start-up. Used without
//     Install, they install mcperr with the default configuration;
//   - Wrap and WrapRaw, wrappers that return the SDK's own handler types,
//     for handlers registered by other means.
//
// Whatever the way in, a failed call reaches the client as a tool result
// with isError set, the text blocks the pipeline rendered for the model
// (the message, then its code, details, retry advice and hints; see
// filter.WithRenderer) and its machine-readable envelope under
// _meta[filter.MetaKey], which EnvelopeOf reads back. An error result never
// carries structuredContent, so it passes the output-schema checks of
// standard clients. An error is mapped and logged once, however the entry
// points are combined. Resources, prompts and completions fail as JSON-RPC
// errors, with the envelope as data: see AddResource.
//
// go-sdk does not expose a request's JSON-RPC id, so every tools/call,
// resources/read, prompts/get and completion/complete gets an id of its own,
// a UUID of version 7, minted the first time it is asked for: handlers read
// it with filter.RequestIDFromContext, and the envelope and the log record
// of a failure carry it.
//
// Some things pass through exactly as the SDK sends them: a *jsonrpc.Error
// that a handler returns as it is (a deliberate protocol error), a call to
// an unknown tool, every other method, and a result that a handler built
// itself with IsError set but without SetError. A successful result is
// never touched.
//
// The package never sends a client the text of an error the pipeline masked,
// a panic value, or an argument's value.
package gosdk
