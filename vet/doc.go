// Package vet holds static analyzers that find code which makes an internal
// error's text public through mcperr or the MCP SDKs, or which registers tools
// on a server where mcperr was never installed.
//
// The analyzers are built on golang.org/x/tools/go/analysis; run them all with
// the mcperrvet command, or use Analyzers with multichecker.
package vet
