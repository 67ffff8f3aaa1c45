// Package realistic holds three MCP servers written the way public Go MCP
// servers are written, before anyone adopts mcperr, and the tests that show
// what installing mcperr on them changes for their clients.
//
// The servers build error results by hand, return messages meant for the
// model as plain Go errors, read loose-typed arguments with their SDK's
// accessors or their own helpers, and leak what such servers leak (absolute
// paths, a DSN with its password, an upstream's address). Each takes, at its
// constructor, the hook where an adopter installs mcperr, and knows nothing
// of mcperr otherwise:
//
//   - fsserver: a filesystem server on github.com/mark3labs/mcp-go;
//   - obsserver: an observability server on
//     github.com/modelcontextprotocol/go-sdk, whose tools are registered
//     through a small third-party-style wrapper, obsserver/toolkit;
//   - ghserver: a GitHub-API-like server on go-sdk, with raw tool handlers,
//     in front of an HTTP upstream.
//
// Each server's test runs one table of calls against the bare server, whose
// answers are the server's own contract, and then against the same server
// with mcperr installed in each of its modes, asserting byte for byte that
// only the documented differences appear. The suite package holds the
// plumbing those tests share: the SDKs' own in-memory clients, the capture
// of what they receive as bytes, and the reading of the log.
package realistic
