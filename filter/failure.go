package filter

import "time"

// Failure is one failure the pipeline handled: what the client receives
// and what the server knows. Pipeline.Handle returns it for the adapter to
// send; every Observer receives a copy of it.
type Failure struct {
	// Call identifies the request, its request id included.
	Call Call
	// Texts are the text blocks the model reads, in order: the message
	// first, then what the Renderer adds (see WithRenderer).
	Texts []string
	// Envelope is the machine-readable form, for programs.
	Envelope Envelope
	// JSONRPCCode is the code of the JSON-RPC error that answers a failed
	// resources/read, prompts/get or completion/complete: -32603 (internal
	// error) for a server error, -32002 for a resource not found on
	// protocol 2025-11-25 and earlier, -32602 (invalid params) otherwise.
	// It is zero for a tool call, whose failure is a result with isError
	// set. An SDK may send another: mcp-go sends every such failure as
	// -32603.
	JSONRPCCode int64
	// Err is the error handled, as the handler returned it, or a
	// *PanicError; joined (errors.Join) with the failure of a filter that
	// panicked or answered badly, which errors.As then finds. A chain that
	// cannot be walked safely is replaced by an opaque error naming its
	// type. It is for the server: never send it to a client. Under
	// WithRedaction, put only ErrorText where people read.
	Err error
	// ErrorText is the error's text as the log record holds it: bounded,
	// and redacted under WithRedaction.
	ErrorText string
	// ReportOnly is set when the request was served in report-only mode
	// (WithReportOnly): the client received what it would have received
	// without mcperr, and Texts and Envelope are what mcperr would have
	// sent instead.
	ReportOnly bool
	// HandBuilt is set when the failure is a tool result with isError set
	// that the handler built itself (see WithHandBuilt): Err holds its
	// text, and the client received the result unchanged unless the policy
	// is MaskHandBuilt.
	HandBuilt bool
	// Retry, when more than zero, is how long the adapter waits before it
	// calls the tool again in the same request (WithRetries): this attempt's
	// failure is not sent.
	Retry time.Duration

	textsBuf [2]string   // holds Texts for the default renderer
	logged   loggedError // the error its record holds
}

// view returns a copy of f that shares nothing mutable with it.
func (f *Failure) view() Failure {
	v := *f
	v.Texts = append([]string(nil), f.Texts...)
	v.Envelope = f.Envelope.clone()
	return v
}
