package filter

import (
	"encoding/json"
	"math"
	"time"

	"github.com/mcperr/mcperr/codes"
)

// MetaKey is the key under which adapters put a Response's envelope in a
// tool result's _meta. _meta is accepted by every client, whatever output
// schema the tool declares.
const MetaKey = "io.github.mcperr/error"

// Response is the standard answer to a failed tool call: what the client,
// and so the model, receives. Filters build one to handle an error; the
// pipeline fills in what they leave out.
//
// Everything in a Response is sent to the client. Put nothing secret in it.
type Response struct {
	// Code classifies the failure, such as NOT_FOUND. An unset code becomes
	// INTERNAL_ERROR.
	Code codes.Code
	// Message is the text the model reads, exactly as it is here.
	Message string
	// Details holds public facts about the failure, such as which fields
	// were invalid.
	Details map[string]any
	// Hints are advice for the model: what it could do differently.
	Hints []string
	// Retryable says whether the same call may succeed later. A filter may
	// leave it nil: the pipeline then takes it from the code's registration,
	// so every Response it returns has it set. A pointer to false is an
	// explicit "do not retry".
	Retryable *bool
	// RetryAfter is how long the caller should wait before it retries. A
	// filter may leave it zero: for a retryable Response the pipeline takes
	// it from the error (toolerr.RetryAfterOf), or else from the code's
	// registration. It is zero in every Response that is not retryable.
	RetryAfter time.Duration
	// Ref identifies the one log record of this failure. The pipeline sets
	// it for server errors.
	Ref string
	// RequestID is the JSON-RPC id of the request. Set by the pipeline.
	RequestID string
	// Timestamp is when the failure was handled. Set by the pipeline.
	Timestamp time.Time

	retry       bool           // what Retryable points to when the pipeline sets it
	category    codes.Category // of Code, as registered; set by the pipeline
	docURL      string         // of Code, as registered; set by the pipeline
	detailsJSON []byte         // Details as JSON, when the pipeline encoded them
	texts       []string       // as the pipeline rendered them
	textsBuf    [2]string      // holds texts for the default renderer
}

// Texts returns the text blocks of the tool result, as the pipeline's
// Renderer made them when it completed r (see WithRenderer); for a Response
// the pipeline did not complete, those of RenderForModel. The first block
// of the built-in renderers is the message, exactly. The slice belongs to
// r: do not change it.
func (r *Response) Texts() []string {
	if r.texts != nil {
		return r.texts
	}
	return RenderForModel(r)
}

// EnvelopeVersion is the version of the envelope's form, sent in its
// "version" field. It changes only when a field changes meaning or goes
// away; new optional fields may be added within a version.
const EnvelopeVersion = 1

// Envelope is the machine-readable form of a Response, as sent in the tool
// result's _meta under MetaKey. Its JSON form is described by the JSON
// Schema that EnvelopeSchema returns. Read one back from a result with
// ReadEnvelope, or the adapters' EnvelopeOf.
type Envelope struct {
	// Version is EnvelopeVersion.
	Version int `json:"version"`
	// Error is always true: the result is a failure.
	Error bool `json:"error"`
	// Code classifies the failure, such as NOT_FOUND.
	Code codes.Code `json:"code"`
	// Category is the code's category as registered: client, business or
	// server.
	Category codes.Category `json:"category,omitempty"`
	// Message is the text the model read, exactly.
	Message string `json:"message"`
	// Details are the public details, if any.
	Details map[string]any `json:"details,omitempty"`
	// Hints are the advice given to the model, if any.
	Hints []string `json:"hints,omitempty"`
	// Retryable says whether the same call may succeed later; false is "do
	// not retry".
	Retryable bool `json:"retryable"`
	// RetryAfterSeconds, when more than zero, is how long to wait before
	// retrying, in seconds with millisecond precision. Only a retryable
	// envelope has it.
	RetryAfterSeconds float64 `json:"retryAfterSeconds,omitempty"`
	// DocURL is where the code is documented, if its registration says.
	DocURL string `json:"docUrl,omitempty"`
	// Timestamp is when the failure was handled, in RFC 3339 form, UTC.
	Timestamp string `json:"timestamp"`
	// RequestID is the JSON-RPC id of the request, where known.
	RequestID string `json:"requestId,omitempty"`
	// Ref names the one log record of a server error.
	Ref string `json:"ref,omitempty"`
}

// RetryAfter returns RetryAfterSeconds as a time.Duration.
func (e *Envelope) RetryAfter() time.Duration {
	if e == nil || !(e.RetryAfterSeconds > 0) || math.IsInf(e.RetryAfterSeconds, 0) {
		return 0
	}
	if e.RetryAfterSeconds >= math.MaxInt64/float64(time.Second) {
		return math.MaxInt64
	}
	return time.Duration(math.Round(e.RetryAfterSeconds * float64(time.Second)))
}

// Envelope returns the machine-readable form of r.
func (r *Response) Envelope() Envelope {
	retryable := r.Retryable != nil && *r.Retryable
	var after float64
	if retryable && r.RetryAfter > 0 {
		// Whole milliseconds, rounded up, so a delay is never shortened.
		after = float64((r.RetryAfter+time.Millisecond-1)/time.Millisecond) / 1000
	}
	return Envelope{
		Version:           EnvelopeVersion,
		Error:             true,
		Code:              r.Code,
		Category:          r.category,
		Message:           r.Message,
		Details:           r.Details,
		Hints:             r.Hints,
		Retryable:         retryable,
		RetryAfterSeconds: after,
		DocURL:            r.docURL,
		Timestamp:         r.Timestamp.UTC().Format(time.RFC3339Nano),
		RequestID:         r.RequestID,
		Ref:               r.Ref,
	}
}

// MarshalJSON encodes r as its Envelope.
func (r *Response) MarshalJSON() ([]byte, error) { return json.Marshal(r.Envelope()) }
