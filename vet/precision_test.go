package vet_test

import (
	"go/ast"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/mcperr/mcperr/vet"
)

// precisionFinding is one diagnostic of one analyzer.
type precisionFinding struct {
	pos      token.Position
	analyzer string
	message  string
}

// analyze loads the packages matching patterns in the test module, runs
// every analyzer of vet.Analyzers and returns the findings, sorted, with
// the loaded packages.
func analyze(t *testing.T, patterns ...string) ([]precisionFinding, []*packages.Package) {
	t.Helper()
	cfg := &packages.Config{Mode: packages.LoadAllSyntax, Dir: testdata(t), Env: moduleEnv}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		t.Fatalf("load %v: %v", patterns, err)
	}
	if n := packages.PrintErrors(pkgs); n > 0 {
		t.Fatalf("load %v: %d errors", patterns, n)
	}
	if len(pkgs) == 0 {
		t.Fatalf("load %v: no packages", patterns)
	}
	g, err := checker.Analyze(vet.Analyzers, pkgs, nil)
	if err != nil {
		t.Fatalf("analyze: %v", err)
	}
	var out []precisionFinding
	for _, act := range g.Roots {
		if act.Err != nil {
			t.Errorf("%s on %s: %v", act.Analyzer.Name, act.Package.PkgPath, act.Err)
			continue
		}
		for _, d := range act.Diagnostics {
			out = append(out, precisionFinding{act.Package.Fset.Position(d.Pos), act.Analyzer.Name, d.Message})
		}
	}
	slices.SortFunc(out, func(a, b precisionFinding) int {
		if c := strings.Compare(a.pos.Filename, b.pos.Filename); c != 0 {
			return c
		}
		return a.pos.Line - b.pos.Line
	})
	return out, pkgs
}

// span is the lines of one simple statement.
type span struct {
	file       string
	start, end int
}

// markers returns the lines marked "// want: leak" in pkgs, and the spans of
// the simple statements (not blocks, ifs, loops or switches) of their files.
func markers(pkgs []*packages.Package) (want map[span]bool, stmts []span) {
	want = map[span]bool{}
	for _, p := range pkgs {
		for _, f := range p.Syntax {
			for _, cg := range f.Comments {
				for _, c := range cg.List {
					if strings.HasPrefix(c.Text, "// want: leak") || strings.HasPrefix(c.Text, "// want: masked") {
						pos := p.Fset.Position(c.Pos())
						want[span{pos.Filename, pos.Line, pos.Line}] = true
					}
				}
			}
			ast.Inspect(f, func(n ast.Node) bool {
				switch n.(type) {
				case *ast.ReturnStmt, *ast.AssignStmt, *ast.ExprStmt, *ast.DeclStmt, *ast.DeferStmt, *ast.GoStmt, *ast.SendStmt:
					a, b := p.Fset.Position(n.Pos()), p.Fset.Position(n.End())
					stmts = append(stmts, span{a.Filename, a.Line, b.Line})
				}
				return true
			})
		}
	}
	return want, stmts
}

// statement returns the lines of the smallest simple statement holding pos,
// or pos's line alone.
func statement(stmts []span, pos token.Position) span {
	best := span{pos.Filename, pos.Line, pos.Line}
	found := false
	for _, s := range stmts {
		if s.file == pos.Filename && s.start <= pos.Line && pos.Line <= s.end &&
			(!found || s.end-s.start < best.end-best.start) {
			best, found = s, true
		}
	}
	return best
}

// TestPrecision measures mcperrvet's precision and recall on the two MCP
// servers under testdata/mod/realistic, written the way teams write them.
//
// Each line that should be reported ends with "// want: leak" (or "//
// want: masked", a message for the model that mcperr would mask); the test
// counts a finding on such a statement as a true positive, a finding
// anywhere else as a false positive (the test fails), and a marked statement
// without a finding as a false negative (reported, not failed: the analyzers
// prefer silence to noise). The examples of the repository are checked by
// TestExamples.
func TestPrecision(t *testing.T) {
	t.Parallel()
	for _, server := range []string{"dbservice", "httpwrapper"} {
		t.Run(server, func(t *testing.T) {
			t.Parallel()
			findings, pkgs := analyze(t, "./realistic/"+server)
			want, stmts := markers(pkgs)
			if len(want) == 0 {
				t.Fatalf("no line of %s is marked // want: leak", server)
			}
			hit := map[span]bool{}
			tp, fp := 0, 0
			for _, f := range findings {
				st := statement(stmts, f.pos)
				var marked []span
				for w := range want {
					if w.file == st.file && st.start <= w.start && w.start <= st.end {
						marked = append(marked, w)
					}
				}
				if len(marked) == 0 {
					fp++
					t.Errorf("false positive: %s:%d: %s: %s", filepath.Base(f.pos.Filename), f.pos.Line, f.analyzer, f.message)
					continue
				}
				t.Logf("found: %s:%d: %s", filepath.Base(f.pos.Filename), f.pos.Line, f.analyzer)
				for _, w := range marked {
					if !hit[w] {
						hit[w] = true
						tp++
					}
				}
			}
			var missed []span
			for w := range want {
				if !hit[w] {
					missed = append(missed, w)
				}
			}
			slices.SortFunc(missed, func(a, b span) int { return a.start - b.start })
			for _, w := range missed {
				t.Logf("false negative: %s:%d", filepath.Base(w.file), w.start)
			}
			t.Logf("precision: server=%s tp=%d fp=%d fn=%d", server, tp, fp, len(missed))
		})
	}
}
