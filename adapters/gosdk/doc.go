// Package gosdk plugs mcperr into servers built on the official Go MCP SDK,
// github.com/modelcontextprotocol/go-sdk.
//
// A server has one mcperr configuration, a *filter.Pipeline, given once with
// Install. Its middleware serves every tools/call, resources/read,
// prompts/get and completion/complete of the server, however the handler
// was added: errors and panics become failures the pipeline maps and logs
// once (Install says which, and what passes through). Call it first:
//
//	if err := gosdk.Install(s, pipeline); err != nil {
//		log.Fatal(err)
//	}
//
// Then AddTool and AddRawTool, drop-in replacements for mcp.AddTool and
// (*mcp.Server).AddTool, take per-tool options (WithFilters) and refuse a
// bad definition with a *codes.DefinitionError at start-up; Wrap and
// WrapRaw give per-tool options to tools that something else registers.
//
// A failed tool call reaches the client as a tool result with isError set:
// the text blocks the pipeline rendered for the model and its envelope
// under _meta[filter.MetaKey], which EnvelopeOf reads back, and never
// structuredContent, so it passes the output-schema checks of standard
// clients. A failed resources/read, prompts/get or completion/complete is a
// JSON-RPC error with the envelope as its data. A successful result is
// never touched.
//
// Handlers run on the SDK's goroutine; mcperr adds none. The request id
// (filter.RequestIDFromContext) is minted for each request on first use:
// go-sdk does not expose the JSON-RPC id to handlers.
//
// The package never sends a client the text of an error the pipeline
// masked, a panic value, or an argument's value.
package gosdk
