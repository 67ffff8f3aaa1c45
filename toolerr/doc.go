// Package toolerr defines ToolError, the failure a tool reports to the model
// in words written for it, and the functions that classify any error by the
// capabilities it exposes.
//
// A ToolError's message reaches the model exactly as written. Write it for
// the model: what went wrong and what it could do differently. Never put a
// secret or an internal detail in it. A ToolError may wrap a cause, which
// reaches the server's log and never the client.
//
// Errors are classified through small interfaces found with errors.As
// (Coder, PublicError, Detailer, Retryabler, Hinter), never by matching on
// message strings, so the domain package and an application's own types work
// the same way. CodeOf, PublicOf, DetailsOf and RetryableOf apply them to
// any error chain.
//
// A cause is attached with WithCause, and a message with values in it is
// built with fmt.Sprintf:
//
//	toolerr.New(fmt.Sprintf("Order %s could not be loaded; try again shortly.", id)).WithCause(err)
//
// The cause never reaches the client: Error, the log view, adds its text,
// and errors.Is and errors.As find it.
//
// The package also holds the definition errors returned at start-up for a
// bad tool name, a duplicate tool or code, a nil handler or filter. It does
// not depend on an MCP SDK, so code that only returns errors can use it
// without one.
package toolerr
