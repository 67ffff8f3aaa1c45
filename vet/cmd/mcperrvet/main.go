// Command mcperrvet runs mcperr's static analyzers: it reports code that
// makes an internal error's text public through mcperr or the MCP SDKs, and
// tools registered on a server where mcperr was never installed.
//
// Run it on packages, as go vet is run:
//
//	go run github.com/mcperr/mcperr/vet/cmd/mcperrvet ./...
//
// From a checkout of mcperr, through go.work at its root:
//
//	go run ./vet/cmd/mcperrvet ./examples/...
//
// or inside the vet module, on a directory of that module:
//
//	cd vet && go run ./cmd/mcperrvet ./internal/realistic/...
//
// Or install it and let go vet drive it, which also checks test files:
//
//	go install github.com/mcperr/mcperr/vet/cmd/mcperrvet
//	go vet -vettool=$(command -v mcperrvet) ./...
//
// It accepts the flags of every analysis driver: -json prints the findings
// as JSON and exits 0, -fix applies suggested fixes, and each analyzer can
// be turned off by name (-NAME=false). It exits 3 when it reports a finding
// (go vet exits 1).
package main

import (
	"golang.org/x/tools/go/analysis/multichecker"

	"github.com/mcperr/mcperr/vet"
)

func main() { multichecker.Main(vet.Analyzers...) }
