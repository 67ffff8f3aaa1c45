package vet

import (
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// Analyzers lists every analyzer of this package.
var Analyzers = []*analysis.Analyzer{PublicErrorText, SDKErrorText, MaskedMessage, StructuredHandler, NotInstalled}

// isMcperr reports whether path is mcperr's or one of its packages.
func isMcperr(path string) bool { return path == pathMcperr || strings.HasPrefix(path, pathMcperr+"/") }

// isSDK reports whether path is a package of one of the MCP SDKs.
func isSDK(path string) bool {
	return strings.HasPrefix(path, "github.com/mark3labs/mcp-go/") || strings.HasPrefix(path, "github.com/modelcontextprotocol/go-sdk/")
}

// importsPath reports whether pkg imports a package whose path pred
// accepts; the analyzers skip every other package, the standard library
// included, which go vet hands them too.
func importsPath(pkg *types.Package, pred func(string) bool) bool {
	for _, p := range pkg.Imports() {
		if pred(p.Path()) {
			return true
		}
	}
	return false
}
