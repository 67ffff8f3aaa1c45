package filter

import (
	"encoding/json"
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
	// Hints are advice for the model: what it could do differently. They
	// are sent after the message, each as "Hint: ...".
	Hints []string
	// Retryable says whether the same call may succeed later. A filter may
	// leave it nil: the pipeline then takes it from the code's registration,
	// so every Response it returns has it set.
	Retryable *bool
	// Ref identifies the one log record of this failure. The pipeline sets
	// it for server errors.
	Ref string
	// RequestID is the JSON-RPC id of the request. Set by the pipeline.
	RequestID string
	// Timestamp is when the failure was handled. Set by the pipeline.
	Timestamp time.Time

	retry bool // what Retryable points to when the pipeline sets it
}

// Texts returns the text blocks of the tool result: the message, then one
// "Hint: ..." block for each hint.
func (r *Response) Texts() []string {
	out := make([]string, 0, 1+len(r.Hints))
	out = append(out, r.Message)
	for _, h := range r.Hints {
		out = append(out, "Hint: "+h)
	}
	return out
}

// Envelope is the machine-readable form of a Response, as sent in the tool
// result's _meta under MetaKey.
type Envelope struct {
	Error     bool           `json:"error"`
	Code      codes.Code     `json:"code"`
	Message   string         `json:"message"`
	Details   map[string]any `json:"details,omitempty"`
	Hints     []string       `json:"hints,omitempty"`
	Timestamp string         `json:"timestamp"`
	RequestID string         `json:"requestId,omitempty"`
	Ref       string         `json:"ref,omitempty"`
	Retryable bool           `json:"retryable"`
}

// Envelope returns the machine-readable form of r.
func (r *Response) Envelope() Envelope {
	return Envelope{
		Error:     true,
		Code:      r.Code,
		Message:   r.Message,
		Details:   r.Details,
		Hints:     r.Hints,
		Timestamp: r.Timestamp.UTC().Format(time.RFC3339Nano),
		RequestID: r.RequestID,
		Ref:       r.Ref,
		Retryable: r.Retryable != nil && *r.Retryable,
	}
}

// MarshalJSON encodes r as its Envelope.
func (r *Response) MarshalJSON() ([]byte, error) { return json.Marshal(r.Envelope()) }
