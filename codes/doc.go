// Package codes defines the error codes an mcperr server reports to its
// clients, the registry where an application adds its own, and the
// definition errors a server meets at start-up.
//
// A Code is a small comparable value, an UPPER_SNAKE name such as NOT_FOUND.
// Every code belongs to a Category (client, business or server), has a
// one-line description and says whether a caller may retry. The built-in
// codes are always known; an application adds its own (say
// INSUFFICIENT_FUNDS) with NewRegistry at start-up, where a malformed or
// duplicate name is refused with a *DefinitionError.
//
// A DefinitionError reports a mistake in how a server is put together: a
// bad code or tool name, a nil handler, a tool added before Install. Its
// Mistake is a type of its own, never sent to a client.
//
// Codes travel to the client as strings inside a tool result, never as new
// JSON-RPC error numbers: the JSON-RPC range -32020..-32099 is reserved for
// MCP itself.
//
// The package depends on the standard library alone, so a service layer can
// use it without depending on any MCP SDK.
package codes
