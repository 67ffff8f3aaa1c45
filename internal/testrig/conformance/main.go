// Command conformance is the Go half of .ci/conformance, which runs the
// official MCP conformance suite (@modelcontextprotocol/conformance) against
// each SDK's own conformance server, bare and with mcperr installed, and
// fails on any scenario whose result differs from the bare server's.
//
//	conformance patch -sdk gosdk|mcpgo -src DIR -dst DIR
//	conformance compare -title TEXT bare=DIR name=DIR ...
//	conformance passed -scenario NAME DIR
//	conformance flaky FILE
//
// patch copies the Go files of the SDK's conformance server from DIR (the
// SDK's source in the module cache) to DIR, inserts one call that installs
// mcperr right after the statement that constructs the server, and adds a
// file with that function; which pipeline it installs (default, argcheck,
// retries) is chosen at link time with -ldflags -X main.mcperrVariant=NAME.
// compare reads the suite's checks.json files of each configuration, prints
// the scenario × configuration table and exits 1 if a scenario's result
// differs from the first configuration's. passed exits 0 if some run of the
// scenario in DIR passed. flaky prints the server scenarios an SDK's
// conformance baseline file lists.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "patch":
		err = patchCmd(os.Args[2:])
	case "compare":
		err = compareCmd(os.Args[2:])
	case "passed":
		err = passedCmd(os.Args[2:])
	case "flaky":
		err = flakyCmd(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		if err == errDiffers {
			os.Exit(1)
		}
		os.Exit(2)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: conformance patch|compare|passed|flaky ... (see the package doc)")
	os.Exit(2)
}
