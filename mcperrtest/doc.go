// Package mcperrtest proves, in a unit test, what a client of an MCP server
// built with mcperr receives when a tool fails, and what the server logs.
//
// A test connects an in-memory client to its server with the package of its
// SDK (mcperr/adapters/gosdk/gosdktest or mcperr/adapters/mcpgo/mcpgotest,
// which have the same names: Connect, Call, ReadResource, GetPrompt,
// SDKClient), calls a tool, reads a resource or gets a prompt, and gets a
// Result: what the client received, in a form that is the same for both
// SDKs, with the mcperr envelope already typed, and every notification the
// client received meanwhile. It then asserts the contract:
//
//   - AssertToolError: the model reads this code and this message, exactly;
//   - AssertMasked: the error is masked, nothing else of it is anywhere in
//     the response, and its ref is in exactly one record of the server's
//     Log, at error level; for a resource or prompt, its JSON-RPC error;
//   - AssertValidation: the arguments were refused, naming these fields;
//   - AssertNoCanary: a secret planted in the server reached no byte the
//     client received during the call, notifications included;
//   - AssertSuccess: the call succeeded and mcperr added nothing;
//   - AssertProtocolError: the server answered with a JSON-RPC error;
//   - AssertAttempts: the server called the tool this many times
//     (filter.WithRetries), one numbered record for each failed attempt.
//
// A Log captures the server's records: give Log.Logger to filter.WithLogger.
//
// Assertions report through testing.TB's Errorf, so a test goes on after
// one fails, and every failure message ends with the whole response the
// client received, so that a failing test explains itself.
//
// This package is for tests only. It never changes what a server sends: it
// reads what the client received and what the server logged. It imports no
// MCP SDK.
package mcperrtest
