// Package vet holds static analyzers that find code which makes an internal
// error's text public through mcperr or the MCP SDKs, messages for the model
// that mcperr would mask, or tools registered on a server where mcperr was
// never installed; their fixes migrate a server to mcperr.
//
// The analyzers are built on golang.org/x/tools/go/analysis:
//
//   - PublicErrorText (mcperrpublictext): a ToolError's message, hint or
//     details, a domain.BusinessRule's message or context, or a
//     filter.Response built from an error's text or from a
//     domain.Authorization's Permission or Subject;
//   - SDKErrorText (mcperrsdktext): the same text in mcp-go's
//     NewToolResultError, NewToolResultErrorf and NewToolResultErrorFromErr,
//     in go-sdk's *jsonrpc.Error, or in a CallToolResult with IsError set,
//     which mcperr passes through untouched; and, in a module without
//     mcperr (its go.mod does not require it and none of its files imports
//     it), each error whose text may be a library's or an upstream's that a
//     tool handler returns or gives to SetError, which the SDK sends as
//     written;
//   - MaskedMessage (mcperrmasked): a message for the model that a tool
//     handler, or a work function given to a server's own tool framework,
//     returns as a plain error, or that a handler of the server's own shape
//     puts in its result's error field, which mcperr masks, the messages
//     of another package's functions called with the tool's arguments
//     included;
//   - StructuredHandler (mcperrstructured): mcp-go's NewStructuredToolHandler
//     and NewTypedToolHandler in a package that uses mcperr's mcp-go adapter;
//   - NotInstalled (mcperrinstall): tools added with an SDK's own AddTool to
//     a server that is never given to Install, a handler wrapped by
//     gosdk.Wrap included.
//
// The text analyzers follow values through SSA: err.Error(), an error
// formatted by fmt (in any verb), errors.Join, concatenation, the strings,
// strconv and bytes functions, append and slice literals, variables and phi
// nodes, and functions of the same package. They prefer silence to a doubtful
// report: a value they cannot follow is taken as clean.
//
// mcperrsdktext's fixes migrate a handler's error result built from an
// error into the error returned, the site's words as a ToolError's message
// and the error as its cause: return nil, toolerr.New("failed to get
// issue").WithCause(err).
//
// No fix is offered in a _test.go file, and MaskedMessage and NotInstalled
// report nothing there: test doubles are written as they are on purpose.
//
// The analyzers see one package at a time, as go vet and golangci-lint run
// them. The migration, mcperrvet -fix, adds a whole-program pass
// (internal/provenance) that follows values through every package of the
// module, and decides, where the two differ, which message is the server's
// own, which text is another's, and what is left after the fixes.
//
// Each analyzer has a file of its own: publictext.go, sdktext.go,
// masked.go, structured.go and install.go. What they share is in
// taint.go (the dataflow of an error's text), sinks.go (the places text
// reaches the model, and the helpers that lead there), ssa.go (the
// package's state, computed once), framework.go (a server's own tool
// framework), migrate.go and imports.go (the fixes), and bare.go (a module
// without mcperr).
//
// Run them all with the mcperrvet command, or use Analyzers with
// multichecker.
package vet
