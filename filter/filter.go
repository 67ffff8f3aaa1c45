package filter

import (
	"context"
	_ "embed" // the envelope's JSON Schema
	"encoding/json"
	"errors"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcperr/mcperr/codes"
)

// Filter is an exception filter (see the package documentation). Catch
// returns a non-nil *Response to handle err, nil and nil to pass err on, or
// nil and another error to pass that on instead.
type Filter interface {
	Catch(ctx context.Context, call Call, err error) (*Response, error)
}

// Catch returns a Filter that handles the errors of type E found in the
// chain with errors.As, as NestJS's @Catch, and passes every other error on.
// fn returns like Filter.Catch; nil and nil passes on the whole original
// error. With E = error, fn receives every error as it is: a filter written
// as a function. A nil fn makes a filter WithFilters refuses, naming Catch.
func Catch[E error](fn func(ctx context.Context, call Call, err E) (*Response, error)) Filter {
	if fn == nil {
		return &misdefined{Mistake: codes.NilValue, Reason: "filter.Catch needs a function that answers the error type it catches"}
	}
	return typed[E](fn)
}

type misdefined codes.DefinitionError

func (*misdefined) Catch(context.Context, Call, error) (*Response, error) { return nil, nil }

// DefinitionError returns the mistake the filter was built with.
func (m *misdefined) DefinitionError() *codes.DefinitionError { return (*codes.DefinitionError)(m) }

type typed[E error] func(ctx context.Context, call Call, err E) (*Response, error)

func (t typed[E]) Catch(ctx context.Context, call Call, err error) (*Response, error) {
	var target E
	if !errors.As(err, &target) {
		return nil, nil
	}
	return t(ctx, call, target)
}

// Is returns a Filter that answers every error whose chain holds target
// (errors.Is) with a copy of r, copied when Is is called, and passes every
// other error on. If target is nil or r has no message, Is makes a filter
// that WithFilters refuses with a definition error naming Is and the mistake.
func Is(target error, r Response) Filter {
	switch {
	case target == nil:
		return &misdefined{Mistake: codes.NilValue, Reason: "filter.Is needs the sentinel error to answer, such as sql.ErrNoRows; it was given nil"}
	case r.Message == "":
		return &misdefined{Mistake: codes.InvalidOption, Reason: "filter.Is needs a Response with the message the model reads, such as {Code: codes.NotFound, Message: \"No such order.\"}"}
	}
	r.Details, r.Hints = maps.Clone(r.Details), slices.Clone(r.Hints)
	if r.Retryable != nil {
		retry := *r.Retryable
		r.Retryable = &retry
	}
	return typed[error](func(_ context.Context, _ Call, err error) (*Response, error) {
		if r := r; errors.Is(err, target) { // a copy: the filter's own stays as it is
			return &r, nil
		}
		return nil, nil
	})
}

// Public returns a Filter that declares the errors of type E public, such as
// a parser's error about the model's own input: an error whose chain holds
// an E (errors.As) is answered under code with that E's own Error(), all of
// it and no wrapper's text, bounded like any message. A nil E, or a text
// empty or blank, is passed on; E = error or no code is a definition error.
func Public[E error](code codes.Code) Filter {
	if _, all := any((*E)(nil)).(*error); all || code == "" {
		return &misdefined{Mistake: codes.InvalidOption, Reason: "filter.Public needs a code and an error type other than error, such as filter.Public[*strconv.NumError](codes.ValidationError)"}
	}
	return typed[E](func(_ context.Context, _ Call, e E) (*Response, error) {
		if isNil(e) || strings.TrimSpace(e.Error()) == "" {
			return nil, nil
		}
		return &Response{Code: code, Message: e.Error()}, nil
	})
}

// Response is a filter's answer to an error, which the pipeline completes
// into a Failure (category, retry advice, ref, request id, time). All of it
// is sent to the client, and so the model: put nothing secret in it.
type Response struct {
	// Code classifies the failure, such as NOT_FOUND; unset, INTERNAL_ERROR.
	Code codes.Code
	// Message is the text the model reads, exactly as it is here; not empty.
	Message string
	// Details holds public facts about the failure, such as invalid fields.
	Details map[string]any
	// Hints are advice for the model: what it could do differently.
	Hints []string
	// Retryable says whether the same call may succeed later: nil takes the
	// code's registration; a pointer to false says "do not retry".
	Retryable *bool
	// RetryAfter is the wait before retrying a retryable failure; zero takes
	// the error's delay (toolerr.RetryAdvice), else the code's registration.
	RetryAfter time.Duration
	// MayHaveTakenEffect says the operation may have been carried out, in
	// part or whole, before it failed, as after a timeout or an upstream 5xx
	// to a POST: on a tool not annotated read-only or idempotent, the failure
	// is then not retryable and its outcome unknown (Envelope.Outcome). Leave
	// it false for a failure known not to have, such as a refused connection.
	MayHaveTakenEffect bool
}

// MetaKey is the key of a failure's Envelope in a tool result's _meta, which
// every client accepts, whatever output schema the tool declares.
const MetaKey = "io.github.mcperr/error"

const envelopeVersion = 1

// Envelope is a failure's machine-readable form, for programs, not the
// model: sent in a tool result's _meta under MetaKey, and as the data of the
// JSON-RPC error of the other methods. EnvelopeSchema is its JSON Schema.
type Envelope struct {
	// URI is the URI of a resource not found: only for NOT_FOUND in a resources/read (MCP specification).
	URI string `json:"uri,omitempty"`
	// Version is the version of the envelope's form, 1. It changes only
	// when a field changes meaning or goes away, not for new optional ones.
	Version int `json:"version"`
	// Error is always true: the result is a failure.
	Error bool `json:"error"`
	// Code classifies the failure, such as NOT_FOUND.
	Code codes.Code `json:"code"`
	// Category is the code's registered category: client, business or server.
	Category codes.Category `json:"category,omitempty"`
	// Message is the text the model read, exactly.
	Message string `json:"message"`
	// Details are the public details as JSON, if any: an object.
	Details json.RawMessage `json:"details,omitempty"`
	// Hints are the advice given to the model, if any.
	Hints []string `json:"hints,omitempty"`
	// Retryable says whether the same call may succeed later.
	Retryable bool `json:"retryable"`
	// RetryAfterSeconds, when more than zero, is how long to wait before
	// retrying, in seconds to the millisecond; only when retryable.
	RetryAfterSeconds float64 `json:"retryAfterSeconds,omitempty"`
	// Outcome is "unknown", and Retryable false, when the operation may have taken effect
	// (Response.MayHaveTakenEffect) on a tool not annotated read-only or idempotent; else empty.
	Outcome string `json:"outcome,omitempty"`
	// Attempts is how many times the tool was called (WithRetries), if more than once.
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
// JSON form, version 1, in a fresh slice.
func EnvelopeSchema() []byte {
	return append([]byte(nil), envelopeSchema...)
}

func (e Envelope) retryAfter() time.Duration {
	if !(e.RetryAfterSeconds > 0) || math.IsInf(e.RetryAfterSeconds, 0) {
		return 0
	}
	if e.RetryAfterSeconds >= math.MaxInt64/float64(time.Second) {
		return math.MaxInt64
	}
	return time.Duration(math.Round(e.RetryAfterSeconds * float64(time.Second)))
}

func (e Envelope) clone() Envelope {
	e.Details, e.Hints = slices.Clone(e.Details), slices.Clone(e.Hints)
	return e
}

// RenderForModel is the default renderer (see WithRenderer). It returns the
// message exactly, then a block with what the model needs, a fact a line:
// "Code: C"; "Details: " and their JSON, if any; "Retry: " in words ("yes.",
// "yes, after 30 seconds.", "no, not with the same arguments." for a client
// or business error, "no." for a server error, "not before checking; ..."
// when the outcome is unknown); "Ref: R" unless the message already ends
// with it; and "Hint: H" for each hint, its line breaks replaced by spaces.
func RenderForModel(e Envelope) []string {
	return []string{e.Message, modelBlock(e)}
}

// modelBlock is RenderForModel's second block, in one allocation.
func modelBlock(e Envelope) string {
	retry := retryText(e)
	ref := e.Ref != "" && !strings.Contains(e.Message, "(ref: "+e.Ref+")")
	n := len("Code: ") + len(e.Code) + len("\nRetry: ") + len(retry)
	if len(e.Details) > 0 {
		n += len("\nDetails: ") + len(e.Details)
	}
	if ref {
		n += len("\nRef: ") + len(e.Ref)
	}
	for _, h := range e.Hints {
		n += len("\nHint: ") + len(h)
	}
	details := e.Details
	if n > maxMessage && len(details) > 0 { // bounded like a message: too large, they stay in the envelope
		const elsewhere = "(too large to repeat here; see the envelope)"
		n += len(elsewhere) - len(details)
		details = json.RawMessage(elsewhere)
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString("Code: ")
	b.WriteString(string(e.Code))
	if len(details) > 0 {
		b.WriteString("\nDetails: ")
		b.Write(details)
	}
	b.WriteString("\nRetry: ")
	b.WriteString(retry)
	if ref {
		b.WriteString("\nRef: ")
		b.WriteString(e.Ref)
	}
	for _, h := range e.Hints {
		b.WriteString("\nHint: ")
		b.WriteString(oneLine.Replace(h))
	}
	return boundMessage(b.String(), maxMessage)
}

// oneLine keeps a hint on one line: its line breaks become spaces.
var oneLine = strings.NewReplacer("\r", " ", "\n", " ")

func retryText(e Envelope) string {
	switch d := e.retryAfter(); {
	case e.Outcome != "":
		return "not before checking; the outcome is unknown, and the tool may have done its work before it failed."
	case e.Retryable && d > 0:
		return "yes, after " + waitText(d) + "."
	case e.Retryable:
		return "yes."
	case e.Category == codes.Server:
		return "no."
	}
	return "no, not with the same arguments."
}

// waitText rounds up to a whole number of d's largest unit.
func waitText(d time.Duration) string {
	unit, name := time.Millisecond, "millisecond"
	switch {
	case d >= 2*time.Hour:
		unit, name = time.Hour, "hour"
	case d >= 2*time.Minute:
		unit, name = time.Minute, "minute"
	case d >= time.Second:
		unit, name = time.Second, "second"
	}
	n := int64((d + unit - 1) / unit)
	if n == 1 {
		return "1 " + name
	}
	return strconv.FormatInt(n, 10) + " " + name + "s"
}
