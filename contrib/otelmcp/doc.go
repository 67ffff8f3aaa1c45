// Package otelmcp puts the failures of an MCP server into OpenTelemetry
// traces and metrics, following the OpenTelemetry semantic conventions for
// the Model Context Protocol (docs/gen-ai/mcp.md, development status, as
// generated into go.opentelemetry.io/otel/semconv/v1.41.0 and its mcpconv
// package).
//
// It has two parts, which work alone and better together:
//
//   - Observer, an observer given to the mcperr pipeline with
//     filter.WithObserver. For every failure mcperr handles, it marks the
//     span active around the call: status Error, error.type (tool_error for
//     a tool, the JSON-RPC code for a resource, prompt or completion),
//     mcperr's code, category, ref and request id as attributes, and an
//     "exception" event.
//   - a server span and the mcp.server.operation.duration histogram for
//     every tools/call, resources/read and prompts/get, for the SDKs, which
//     record none themselves: GoSDKMiddleware for go-sdk, InstrumentMCPGo
//     for mcp-go. The span's parent is the trace context a client put in
//     the request's params._meta (traceparent, tracestate), where there is
//     one.
//
// The spans have no jsonrpc.request.id, which the conventions list as
// conditionally required for a request: neither SDK gives a middleware the
// request's JSON-RPC id (mcp-go gives it to its hooks only), and this
// package does not smuggle it through the request. mcperr's own request id,
// a UUID that the envelope and the log record carry too, is on a failed
// call's span as mcperr.request_id.
//
// What this package must never do: put the error value, or any text of it
// that the log would not hold, on a span or a metric. The exception event
// holds the Go type of the error (filter.Failure.Err) and
// filter.Failure.ErrorText, which is what mcperr's log record holds:
// redacted when the pipeline is built with filter.WithRedaction(true).
// The status description is the message the client received. Nothing in
// this package calls span.RecordError, which would record err.Error() as
// it is.
//
// Order matters: the span must be active when mcperr maps the error, so its
// middleware must run outside mcperr's. On go-sdk, add GoSDKMiddleware after
// gosdk.Install (the SDK runs the middleware added last first); on mcp-go,
// call InstrumentMCPGo before mcpgo.Install (the SDK runs the middleware
// added first first). Installed the wrong way round, the middleware reports
// it once through otel.Handle.
package otelmcp
