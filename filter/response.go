package filter

import (
	_ "embed" // the envelope's JSON Schema
	"encoding/json"
	"math"
	"slices"
	"time"

	"github.com/mcperr/mcperr/codes"
)

// Response is a filter's answer to an error: what the client, and so the
// model, should receive. The pipeline completes it (the code's category and
// retry advice, the ref of a server error, the request id, the time) and
// sends it as the Envelope and text blocks of a Failure.
//
// Everything in a Response is sent to the client. Put nothing secret in it.
type Response struct {
	// Code classifies the failure, such as NOT_FOUND. An unset code becomes
	// INTERNAL_ERROR.
	Code codes.Code
	// Message is the text the model reads, exactly as it is here. It must
	// not be empty.
	Message string
	// Details holds public facts about the failure, such as which fields
	// were invalid. They are encoded to JSON once, and sent as encoded.
	Details map[string]any
	// Hints are advice for the model: what it could do differently.
	Hints []string
	// Retryable says whether the same call may succeed later. Leave it nil
	// to take the code's registration; a pointer to false is an explicit
	// "do not retry".
	Retryable *bool
	// RetryAfter is how long the caller should wait before it retries a
	// retryable failure. Zero takes the error's delay (toolerr.RetryAdvice)
	// or else the code's registration.
	RetryAfter time.Duration
	// MayHaveTakenEffect says the operation may have been carried out, in
	// part or whole, before it failed: a timeout or a broken connection
	// after the request was sent, an upstream 5xx to a POST. On a tool not
	// annotated read-only or idempotent, the failure is then not retryable:
	// the model reads that the outcome is unknown and to check before
	// calling again, and the Envelope's Outcome is "unknown". Leave it false
	// for a failure known not to have taken effect, such as a refused
	// connection or a 429.
	MayHaveTakenEffect bool
}

// MetaKey is the key under which adapters put a failure's Envelope in a
// tool result's _meta. _meta is accepted by every client, whatever output
// schema the tool declares.
const MetaKey = "io.github.mcperr/error"

const envelopeVersion = 1

// Envelope is the machine-readable form of a failure, for programs: sent
// in a tool result's _meta under MetaKey, and as the data of the JSON-RPC
// error of a failed resources/read, prompts/get or completion/complete.
// Its JSON form is described by the JSON Schema that EnvelopeSchema
// returns. The model reads the text blocks, not this.
type Envelope struct {
	// URI is the URI of a resource that was not found: set only for
	// NOT_FOUND in a resources/read, where the MCP specification's
	// resources page puts it.
	URI string `json:"uri,omitempty"`
	// Version is the version of the envelope's form, 1. It changes only
	// when a field changes meaning or goes away; new optional fields may be
	// added within a version.
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
	// Details are the public details as JSON, if any: an object.
	Details json.RawMessage `json:"details,omitempty"`
	// Hints are the advice given to the model, if any.
	Hints []string `json:"hints,omitempty"`
	// Retryable says whether the same call may succeed later; false is "do
	// not retry".
	Retryable bool `json:"retryable"`
	// RetryAfterSeconds, when more than zero, is how long to wait before
	// retrying, in seconds with millisecond precision. Only a retryable
	// envelope has it.
	RetryAfterSeconds float64 `json:"retryAfterSeconds,omitempty"`
	// Outcome is "unknown" when the operation may have taken effect before
	// it failed (Response.MayHaveTakenEffect) and the tool is not annotated
	// read-only or idempotent: check whether it did before calling again.
	// Retryable is false then. Empty otherwise.
	Outcome string `json:"outcome,omitempty"`
	// Attempts is how many times the server called the tool in this
	// request (WithRetries), when more than once.
	Attempts int `json:"attempts,omitempty"`
	// DocURL is where the code is documented, if its registration says.
	DocURL string `json:"docUrl,omitempty"`
	// Timestamp is when the failure was handled, in RFC 3339 form, UTC.
	Timestamp string `json:"timestamp"`
	// RequestID is the id of the request: see RequestIDFromContext.
	RequestID string `json:"requestId,omitempty"`
	// Ref names the one log record of a server error.
	Ref string `json:"ref,omitempty"`
}

//go:embed envelope.schema.json
var envelopeSchema []byte

// EnvelopeSchema returns the JSON Schema (draft 2020-12) of the Envelope's
// JSON form, version 1: the contract a program reading
// _meta[MetaKey] can rely on. The slice is a fresh copy.
func EnvelopeSchema() []byte {
	return append([]byte(nil), envelopeSchema...)
}

// retryAfter returns RetryAfterSeconds as a Duration, 0 if not positive.
func (e Envelope) retryAfter() time.Duration {
	if !(e.RetryAfterSeconds > 0) || math.IsInf(e.RetryAfterSeconds, 0) {
		return 0
	}
	if e.RetryAfterSeconds >= math.MaxInt64/float64(time.Second) {
		return math.MaxInt64
	}
	return time.Duration(math.Round(e.RetryAfterSeconds * float64(time.Second)))
}

// clone returns a copy of e that shares nothing mutable with it.
func (e Envelope) clone() Envelope {
	e.Details, e.Hints = slices.Clone(e.Details), slices.Clone(e.Hints)
	return e
}
