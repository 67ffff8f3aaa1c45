// Package toolerr defines ToolError, the failure a tool reports to the model
// in words written for it, and PublicError, the interface through which
// mcperr classifies any error.
//
// A ToolError's message reaches the model exactly as written. Write it for
// the model: what went wrong and what it could do differently. Never put a
// secret or an internal detail in it. A ToolError may carry a cause, which
// reaches the server's log and never the client; a message with values in
// it is built with fmt.Sprintf:
//
//	toolerr.New(fmt.Sprintf("Order %s could not be loaded; try again shortly.", id)).WithCause(err)
//
// Errors are classified by what they are, found with errors.As: a
// PublicError and the optional methods its documentation lists, never by
// matching on message strings, so the domain package and an application's
// own types work the same way. RetryAdvice reads the retry advice one error
// gives; PublicError says how mcperr reads a whole chain's.
//
// The package does not depend on an MCP SDK, so code that only returns
// errors can use it without one.
package toolerr
