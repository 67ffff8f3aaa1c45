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
// or, built once, inside a module of its own, such as the test servers:
//
//	(cd vet && go build -o /tmp/mcperrvet ./cmd/mcperrvet)
//	cd vet/testdata/mod && GOWORK=off /tmp/mcperrvet ./realistic/...
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
//
// With -fix it migrates the module: the analyzers' fixes, and those of a
// whole-program pass (internal/provenance) that follows every value through
// the module's packages, generics, closures and the function values a
// router is given, so that each message of the server's own words that a
// tool returns as a plain error, wherever it is written, becomes a
// ToolError of the same words (with WithRetryable(true) where the message
// tells the model to retry later). Both are decided on the code as it is and
// made once; a fix is never made in a test file or a generated file, nor
// turns another's text (an upstream's string, a response's body) into a
// message for the model. It prints what it rewrote, per file and kind, then
// looks again and prints every site left: a message the model would lose,
// another's text in a result built by hand (mcperrupstream), an analyzer's
// finding without a fix. It exits 0 only when none is left, 3 otherwise.
// -fix refuses, exiting 2, in a module where no package imports mcperr's
// adapter: the fixes return errors, which only an installed mcperr keeps
// from the client.
package main

import (
	"os"
	"os/exec"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis/multichecker"

	"github.com/mcperr/mcperr/vet"
)

func main() {
	if i := slices.IndexFunc(os.Args[1:], isFix); i >= 0 && !vetTool(os.Args[1:]) && os.Getenv(childEnv) == "" {
		os.Exit(migrate(os.Args[1:], i))
	}
	multichecker.Main(vet.Analyzers...)
}

// childEnv marks the runs of fixThenCheck, which drive the analyzers
// themselves.
const childEnv = "MCPERRVET_FIX_RUN"

// isFix reports whether arg turns -fix on.
func isFix(arg string) bool {
	arg = strings.TrimPrefix(arg, "-")
	return arg == "-fix" || arg == "-fix=true" || arg == "fix" || arg == "fix=true"
}

// vetTool reports whether go vet runs the command on one package's
// configuration, where it never asks for -fix.
func vetTool(args []string) bool {
	return len(args) > 0 && strings.HasSuffix(args[len(args)-1], ".cfg")
}

// installs reports whether a package of the module in the working
// directory, or one it imports, imports mcperr's adapter for either SDK,
// as the package that calls Install does; true when go list fails, so
// that its error is the analysis's to report.
func installs() bool {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", "./...").Output()
	if err != nil {
		return true
	}
	for _, p := range strings.Fields(string(out)) {
		if p == "github.com/mcperr/mcperr/adapters/gosdk" || p == "github.com/mcperr/mcperr/adapters/mcpgo" {
			return true
		}
	}
	return false
}
