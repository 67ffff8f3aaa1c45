// Package filter is mcperr's error pipeline: it turns any error a tool
// handler returns, or a panic, into one standard Response, and logs it once.
//
// A Pipeline runs an error through exception filters, first the per-tool
// filters bound to the tool, then the global ones, then the built-in
// mapping, and stops at the first filter that handles it. A filter may
// handle an error (return a Response), transform it (return another error)
// or pass it on (return nil, nil), so a specialised filter can handle its
// own kind and rethrow the rest.
//
// The built-in mapping is the contract a client relies on:
//
//   - a ToolError: its message exactly as written, its code;
//   - a domain error: its code, its public message and public details;
//   - a cancelled context or exceeded deadline: CANCELLED or TIMEOUT,
//     retryable;
//   - anything else, a panic, a filter or reporter that fails: code
//     INTERNAL_ERROR and the text `Internal error in tool "x" (ref: R).`,
//     nothing else of the error. The ref R appears in exactly one log
//     record, which holds the full error chain and the stack.
//
// Hints attached with cockroachdb/errors.WithHint reach the model even when
// the error itself is masked.
//
// The package never imports an MCP SDK: the adapters in mcperr/adapters turn
// a Response into each SDK's result. It must never send a masked error's
// text, a panic value, a Validation's value or an Authorization's permission
// or subject to a client.
package filter
