// Package gosdk plugs mcperr into servers built on the official Go MCP SDK,
// github.com/modelcontextprotocol/go-sdk.
//
// A server has one mcperr configuration, a *filter.Pipeline, given once with
// Install, which installs the server-wide middleware. Call it first:
//
//	if err := gosdk.Install(s, pipeline); err != nil {
//		log.Fatal(err)
//	}
//
// The middleware serves every tools/call, resources/read, prompts/get and
// completion/complete of the server, however the handler was added: errors
// and panics become failures the pipeline maps and logs once. Then:
//
//   - AddTool and AddRawTool, drop-in replacements for mcp.AddTool and
//     (*mcp.Server).AddTool, take per-tool options (WithFilters) and refuse
//     a bad definition with a *codes.DefinitionError at start-up;
//   - Wrap and WrapRaw return the SDK's own handler types, with per-tool
//     options, for tools that something else registers; without Install
//     they are the handler unchanged, and say so once in the log.
//
// A failed call reaches the client as a tool result with isError set, the
// text blocks the pipeline rendered for the model and its envelope under
// _meta[filter.MetaKey], which EnvelopeOf reads back; an error result never
// carries structuredContent, so it passes the output-schema checks of
// standard clients. A failed resources/read, prompts/get or
// completion/complete is a JSON-RPC error with the envelope as its data.
//
// Some things pass through exactly as the SDK sends them: a *jsonrpc.Error
// that a handler returns as it is (a deliberate protocol error), a call to
// an unknown tool, every other method, and a result that a handler built
// itself with IsError set but without SetError. A successful result is
// never touched.
//
// Handlers run on the SDK's goroutine; mcperr adds none. The request id
// (filter.RequestIDFromContext) is minted for each request on first use:
// go-sdk does not expose the JSON-RPC id to handlers.
//
// The package never sends a client the text of an error the pipeline
// masked, a panic value, or an argument's value.
package gosdk
