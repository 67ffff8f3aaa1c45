package otelmcp

import (
	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
)

// ErrorTypeToolError is the value of error.type for a tools/call answered
// with a result whose isError is true, as the MCP semantic conventions name
// it.
const ErrorTypeToolError = "tool_error"

// The attributes mcperr adds to a failed call's span, besides the semantic
// conventions' own. They are namespaced "mcperr.", as attributes outside
// the conventions should be.
const (
	// CodeKey is mcperr's code of the failure, such as "INTERNAL_ERROR" or
	// "NOT_FOUND": the envelope's code.
	CodeKey = attribute.Key("mcperr.code")
	// CategoryKey is the failure's category: "client", "business" or
	// "server", the one its code is registered with, but "server" for a
	// ToolError over a cause nothing classifies (see toolerr.WithCause).
	CategoryKey = attribute.Key("mcperr.category")
	// RefKey is the ref of a server error, the one the client read and the
	// one log record holds; absent for other failures.
	RefKey = attribute.Key("mcperr.ref")
	// RequestIDKey is mcperr's request id of the call: the envelope's
	// requestId and the log record's request_id, a UUID of version 7 that
	// mcperr mints for the request (filter.RequestIDFromContext), on both
	// SDKs. It is not the JSON-RPC id, and so not jsonrpc.request.id.
	RequestIDKey = attribute.Key("mcperr.request_id")
	// ReportOnlyKey is true on a failure of a call served in report-only
	// mode (filter.WithReportOnly): the client received what it would have
	// received without mcperr, and the other mcperr attributes say what
	// mcperr would have sent. Absent otherwise.
	ReportOnlyKey = attribute.Key("mcperr.report_only")
	// HandBuiltKey is true on the failure of a tool result with isError
	// set that the handler built itself (filter.WithHandBuilt). Absent
	// otherwise.
	HandBuiltKey = attribute.Key("mcperr.hand_built")
	// RetryAttemptsKey is how many times the server has called the tool in
	// the call (filter.WithRetries), once it called it again: after a
	// success on a later attempt, the number of attempts made. Absent for a
	// call made once.
	RetryAttemptsKey = attribute.Key("mcperr.retry.attempts")
	// RetryAttemptKey is the attempt, from 1, that failed, on each
	// RetryEvent.
	RetryAttemptKey = attribute.Key("mcperr.retry.attempt")
)

// RetryEvent is the name of the span event the Observer adds for each
// attempt of a tool call that failed and was retried
// (filter.WithRetries), with mcperr.retry.attempt, mcperr.code and
// exception.type.
const RetryEvent = "mcperr.retry"

// The semantic conventions' keys used here, from semconv v1.41.0.
var (
	keyMethod      = semconv.McpMethodNameKey         // mcp.method.name
	keyProtocol    = semconv.McpProtocolVersionKey    // mcp.protocol.version
	keySession     = semconv.McpSessionIDKey          // mcp.session.id
	keyResourceURI = semconv.McpResourceURIKey        // mcp.resource.uri
	keyToolName    = semconv.GenAIToolNameKey         // gen_ai.tool.name
	keyPromptName  = semconv.GenAIPromptNameKey       // gen_ai.prompt.name
	keyStatusCode  = semconv.RPCResponseStatusCodeKey // rpc.response.status_code
	keyErrorType   = semconv.ErrorTypeKey             // error.type
	keyTransport   = semconv.NetworkTransportKey      // network.transport

	executeTool = semconv.GenAIOperationNameExecuteTool // gen_ai.operation.name=execute_tool
)

// durationBuckets are the explicit bucket boundaries, in seconds, the
// conventions give for mcp.server.operation.duration.
var durationBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}
