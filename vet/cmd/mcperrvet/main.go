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
// (go vet exits 1). With -fix it applies the fixes (twice: a fix can bring
// another site into view), then checks again and prints every finding that
// remains, exiting 3 if there is one: a finding without a fix is never
// hidden by -fix. -fix refuses, exiting 2, in a module where no package
// imports mcperr's adapter: the fixes return errors, which only an
// installed mcperr keeps from the client.
package main

import (
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis/multichecker"

	"github.com/mcperr/mcperr/vet"
)

func main() {
	if i := slices.IndexFunc(os.Args[1:], isFix); i >= 0 && !vetTool(os.Args[1:]) && os.Getenv(childEnv) == "" {
		os.Exit(fixThenCheck(os.Args[1:], i))
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

// fixThenCheck runs the command with args, which turn -fix on (args[i]), so
// that it applies the suggested fixes, twice, and then without -fix, so that
// every finding that remains is printed; it returns the last run's exit
// status.
func fixThenCheck(args []string, i int) int {
	run := func(args []string) int {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), childEnv+"=1")
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
		err := cmd.Run()
		var exit *exec.ExitError
		switch {
		case err == nil:
			return 0
		case errors.As(err, &exit):
			return exit.ExitCode()
		}
		os.Stderr.WriteString("mcperrvet: " + err.Error() + "\n")
		return 1
	}
	if !installs() {
		os.Stderr.WriteString("mcperrvet: -fix turns error results into returned errors, which only mcperr keeps from the client, " +
			"and no package of this module imports gosdk or mcpgo: install mcperr first (gosdk.Install or mcpgo.Install, " +
			"report-only is enough), then run -fix\n")
		return 2
	}
	// Twice: a fix can bring a site into view, as a handler that now
	// returns a helper's error makes the helper's messages the model's.
	for range 2 {
		if code := run(args); code != 0 && code != 3 {
			return code // the fixes could not be applied: say nothing more
		}
	}
	return run(slices.Delete(slices.Clone(args), i, i+1))
}
