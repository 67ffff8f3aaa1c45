package vet_test

import (
	"fmt"
	"path/filepath"
	"sort"
	"testing"

	"github.com/mcperr/mcperr/vet"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"
)

// exampleExceptions counts the findings an example shows on purpose, by
// analyzer and file (relative to the repository root).
var exampleExceptions = map[string]int{
	// The stdio server's -bare mode runs the same tools without mcperr, to
	// show what the SDK alone sends: its forecast tools keep
	// mcp.NewStructuredToolHandler for that comparison; forecast_helper
	// keeps it under Install too, to show what mcperr makes of its results.
	"mcperrstructured examples/stdio-server/mcpgo.go": 3,
}

// TestExamples runs every analyzer over the repository's examples, which
// show how mcperr is meant to be used: they must raise no finding.
func TestExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the examples with the go command")
	}
	t.Parallel()
	// In the checkout, as a user loads it.
	cfg := &packages.Config{Mode: packages.LoadAllSyntax, Dir: "..", Tests: true, Env: withEnv(userEnv, "GOWORK=", "GOFLAGS=", "GOPROXY=")}
	pkgs, err := packages.Load(cfg, "./examples/...")
	if err != nil {
		t.Fatal(err)
	}
	if packages.PrintErrors(pkgs) > 0 {
		t.Fatal("the examples do not load")
	}
	if len(pkgs) == 0 {
		t.Fatal("no example package found")
	}
	graph, err := checker.Analyze(vet.Analyzers, pkgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	type finding struct{ key, text string }
	var findings []finding
	seen := map[string]bool{}
	for act := range graph.All() {
		if !act.IsRoot {
			continue
		}
		if act.Err != nil {
			t.Errorf("%s on %s: %v", act.Analyzer.Name, act.Package.PkgPath, act.Err)
		}
		for _, d := range act.Diagnostics {
			pos := act.Package.Fset.Position(d.Pos)
			file, err := filepath.Rel(root, pos.Filename)
			if err != nil {
				file = pos.Filename
			}
			file = filepath.ToSlash(file)
			text := fmt.Sprintf("%s: %s:%d: %s", act.Analyzer.Name, file, pos.Line, d.Message)
			if !seen[text] { // a package and its test variant share files
				seen[text] = true
				findings = append(findings, finding{act.Analyzer.Name + " " + file, text})
			}
		}
	}
	sort.Slice(findings, func(i, j int) bool { return findings[i].text < findings[j].text })
	count := map[string]int{}
	for _, f := range findings {
		count[f.key]++
		if count[f.key] <= exampleExceptions[f.key] {
			t.Logf("finding shown on purpose: %s", f.text)
			continue
		}
		t.Errorf("finding in an example: %s", f.text)
	}
	for key, n := range exampleExceptions {
		if count[key] != n {
			t.Errorf("%s: %d findings, want the %d shown on purpose (update exampleExceptions)", key, count[key], n)
		}
	}
}
