package domain_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportsOnlyStandardLibraryAndCodes keeps the promise of the package:
// a service layer that imports domain depends on nothing but the standard
// library and mcperr/codes.
func TestImportsOnlyStandardLibraryAndCodes(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH")
	}
	out, err := exec.Command(goTool, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		switch pkg {
		case "github.com/mcperr/mcperr/domain", "github.com/mcperr/mcperr/codes":
		default:
			t.Errorf("domain depends on %s", pkg)
		}
	}
}
