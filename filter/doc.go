// Package filter is mcperr's error pipeline: it turns any error a tool,
// resource, prompt or completion handler returns, or a panic, into one
// standard Response, and logs it once. A tool's failure reaches the client
// as a result with isError set (Handle); the others, which have no such
// result, as a JSON-RPC error (HandleRPC).
//
// A Pipeline, built once with New, is the error-handling configuration of a
// server: its logger, its code registry, its global filters, its reporter,
// redaction, its observers, how failures are rendered for the model. Give
// it to the adapter of your SDK (gosdk.Install or mcpgo.Install) and every
// entry point on that server uses it.
//
// A Pipeline runs an error through exception filters: first the filters
// given to the tool (resource, prompt) where it was registered, then the
// global ones of
// WithFilters, then the built-in mapping, and stops at the first filter that
// handles it. A filter may handle an error (return a Response), transform it
// (return another error) or pass it on (return nil, nil), so a specialised
// filter can handle its own kind and rethrow the rest.
//
// The built-in mapping is the contract a client relies on:
//
//   - a ToolError: its message exactly as written, its code;
//   - a domain error: its code, its public message and public details;
//   - a cancelled context or exceeded deadline: CANCELLED or TIMEOUT,
//     retryable, the TIMEOUT text ending with its ref;
//   - anything else, a panic, a filter or reporter that fails: code
//     INTERNAL_ERROR and the text `Internal error in tool "x" (ref: R).`,
//     nothing else of the error. The ref R appears in exactly one log
//     record, which holds the full error chain and the stack.
//
// The model reads a failure's content: by default the message exactly,
// then one block with its code, public details, retry advice, ref and
// hints (RenderForModel; see WithRenderer). Programs read the envelope in
// _meta, whose JSON Schema EnvelopeSchema returns. Every failure carries
// its request's id (RequestIDFromContext).
//
// Only codes the registry knows reach a client; see Pipeline.Handle for the
// fallback. Hints reach the model, even when the error itself is masked, if
// they were attached for it: with ToolError.WithHint, or with
// cockroachdb/errors.WithHint at the top of the error. Handle is total and
// its output bounded: see its documentation and MaxChain, MaxMessage,
// MaxDetails, MaxHints and MaxLogValue.
//
// A Pipeline never sends a client a masked error's text, a panic value, a
// Validation's value or an Authorization's permission or subject.
package filter
