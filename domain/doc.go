// Package domain holds the error types a service layer returns when a
// request fails for a reason of the domain: a missing resource, invalid
// input, a refused permission, a broken business rule, a conflict, a rate
// limit.
//
// The types know nothing of MCP: this package imports only the standard
// library and mcperr/codes, so a service can return them without depending
// on any SDK. mcperr turns them into tool results at the boundary.
//
// Every type keeps two audiences apart. Its PublicMessage and PublicDetails
// are what the model may read; its Error text (and a Validation's offending
// values) is for the server's log only and may carry more (an
// Authorization's permission and subject), as its field comments say. The
// package imports no logging package: mcperr's pipeline builds the log view.
//
// The types work with errors.Is and errors.As through any amount of
// fmt.Errorf("...: %w") wrapping and errors.Join.
package domain
