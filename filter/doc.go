// Package filter is mcperr's error pipeline: it turns any error a tool,
// resource, prompt or completion handler returns, or a panic, into one
// standard answer, and logs it once.
//
// A Pipeline, built once with New, is a server's error-handling
// configuration: logger, code registry, global filters, observers,
// redaction, rendering. Give it to your SDK's adapter (gosdk.Install or
// mcpgo.Install) and every request on that server runs through Serve,
// the one run of a call both adapters share; one tool's options go where
// the tool is added, or to ForTool.
//
// An error runs through exception filters, the tool's then the global ones
// of WithFilters, then the built-in mapping, and stops at the first that
// answers. A filter may handle an error (return a Response), transform it
// (return another error) or pass it on (return nil, nil); Catch builds one
// for an error type. A ToolError's cause is offered first: a filter that
// answers it gives the failure its class (code, details, retry advice), and
// the model reads the ToolError's message, then the filter's as a hint.
//
// The built-in mapping is the contract a client relies on:
//
//   - a ToolError: its message exactly, its code, hint and retry advice;
//   - a domain error: its code, its public message and public details;
//   - any other failure of a request whose own context is cancelled or
//     past its deadline: CANCELLED or TIMEOUT (its text ending with its ref),
//     decided before any filter runs; retryable for a tool annotated
//     read-only or idempotent, else of unknown outcome;
//   - arguments that do not fit the tool's input schema, as the adapter
//     checks them: VALIDATION_ERROR naming the fields, never their values;
//   - anything else, a panic, a filter that fails: code INTERNAL_ERROR and
//     the text `Internal error in tool "x" (ref: R).`, nothing else of the
//     error. The ref R appears in exactly one log record, which holds the
//     full error chain and the stack.
//
// The model reads a failure's text blocks (by default the message exactly,
// then a block with its code, public details, retry advice, ref and hints:
// see RenderForModel); programs read the Envelope in _meta. Every failure
// carries its request's id (RequestIDFromContext). Observers see every
// failure, for tracing, metrics and error tracking.
//
// Everything runs on the request's goroutine, and a panic in a handler,
// filter, observer, renderer or log handler is recovered there, as net/http
// does; a handler's runtime.Goexit, a bug, is logged once at error level
// with a ref, its call left unanswered. mcperr starts no goroutine of its own.
//
// Output is bounded whatever an error or filter does: a message or text
// block at most 16 KiB, details at most 16 KiB of JSON (larger details are
// not sent), at most 8 hints of at most 1 KiB, a retry delay at most 7 days,
// each logged value at most 8 KiB, and an error chain walked to at most 256
// errors (a longer, cyclic or panicking chain is masked).
//
// A Pipeline never sends a client a masked error's text or hints, a panic
// value, a Validation's value or an Authorization's permission or subject.
package filter
