package mcperr_test

import (
	"bufio"
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// surfaceLimit is the most exported identifiers the public packages may
// have together, as TestExportedSurface counts them. It went to 161 with
// staged adoption and the argument check, and came back to 150 by
// deleting: filter.Func (filter.Catch with E = error does the same),
// RenderMessageOnly (a one-line renderer), the Observer and Renderer
// types (plain function types), Code.String, the optional-method
// interfaces of toolerr (documented on PublicError, found by name), and
// RetryableOf with RetryAfterOf (one RetryAdvice). It went to 151 with
// filter.WithRetries, the one option of the retries on the server.
const surfaceLimit = 151

// linkedLinesLimit is the most lines of Go code from this module that a
// program using one of the adapters may link, as TestLinkedLines counts them.
// It went from 6000 to 6808 during release 3 (staged adoption, the argument
// check, the answers to the SDKs' own refusals). It came down to 6267 with
// one interception point: the wrappers only declare a tool's options, the
// mcp-go typed helpers are no longer recognised by their wording, the
// pipeline's inputs are explicit, duplicated recover blocks, checks and
// result builders merged, and comments on unexported code cut to their
// reason; the argument check's own walk of the schema, which replaced a
// second JSON Schema engine (0.9 MB of binary), added about 200 lines.
// It went to 6371 with advice that knows a tool's annotations and retries
// on the server (358 lines: the outcome of a failure that may have taken
// effect, the tool's annotations read by both adapters, WithRetries, its
// budget and the adapters' loops), less 254 lines cut from codes, toolerr,
// domain, internal/inputschema, filter and the adapters. It came down to
// 6359 with both adapters' tool options in one internal/bind.Config, which
// paid for a public error in a ToolError's cause answering the failure.
const linkedLinesLimit = 6359

// surfacePackages are the packages whose exported API is the library's
// public surface.
var surfacePackages = []string{
	"codes",
	"domain",
	"toolerr",
	"filter",
	"adapters/gosdk",
	"adapters/mcpgo",
}

// TestExportedSurface measures the exported API of the public packages:
// every exported package-level identifier (each name of a const or var
// spec, each exported type, each exported function) and every exported
// method declared with func on an exported receiver type. Interface methods
// and struct fields are not counted. Every exported name is a promise to
// keep across releases, so the count may not grow past surfaceLimit.
func TestExportedSurface(t *testing.T) {
	total := 0
	for _, dir := range surfacePackages {
		decls, methods := exportedSurface(t, dir)
		t.Logf("%s: %d package-level identifiers + %d methods = %d", dir, decls, methods, decls+methods)
		total += decls + methods
	}
	t.Logf("exported surface: %d identifiers (limit %d)", total, surfaceLimit)
	if total > surfaceLimit {
		t.Errorf("the exported surface is %d identifiers, over the limit of %d", total, surfaceLimit)
	}
}

// exportedSurface counts the exported package-level identifiers and the
// exported methods on exported types declared in the non-test Go files of
// dir.
func exportedSurface(t *testing.T, dir string) (decls, methods int) {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	if len(names) == 0 {
		t.Fatalf("%s: no Go files", dir)
	}
	fset := token.NewFileSet()
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								decls++
							}
						}
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							decls++
						}
					}
				}
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv == nil {
					decls++
				} else if len(d.Recv.List) == 1 && ast.IsExported(receiverType(d.Recv.List[0].Type)) {
					methods++
				}
			}
		}
	}
	return decls, methods
}

// receiverType returns the name of the type of a method's receiver,
// unwrapping *T, T[X] and T[X, Y]; "" if expr is none of these.
func receiverType(expr ast.Expr) string {
	for {
		switch e := expr.(type) {
		case *ast.StarExpr:
			expr = e.X
		case *ast.ParenExpr:
			expr = e.X
		case *ast.IndexExpr:
			expr = e.X
		case *ast.IndexListExpr:
			expr = e.X
		case *ast.Ident:
			return e.Name
		default:
			return ""
		}
	}
}

// TestLinkedLines measures the lines of Go code, from this module, that a
// user's binary carries when it uses one of the adapters: every line of the
// non-test Go files of each of the module's packages in go list -deps of
// adapters/gosdk and adapters/mcpgo. The code a program links is code its
// author builds, audits and ships, so it may not grow past linkedLinesLimit.
func TestLinkedLines(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH")
	}
	const module = "github.com/mcperr/mcperr/"
	cmd := exec.Command("go", "list", "-deps",
		"-f", `{{if not .Standard}}{{.ImportPath}} {{.Dir}} {{join .GoFiles " "}}{{end}}`,
		"./adapters/gosdk", "./adapters/mcpgo")
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOWORK=") && !strings.HasPrefix(kv, "GOFLAGS=") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "GOWORK=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}

	type pkg struct {
		path  string
		lines int
	}
	var pkgs []pkg
	total := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 || !strings.HasPrefix(fields[0], module) {
			continue
		}
		if testOnlyPackage(strings.TrimPrefix(fields[0], module)) {
			t.Logf("%s: a package for tests, not counted", fields[0])
			continue
		}
		p := pkg{path: fields[0]}
		for _, name := range fields[2:] {
			b, err := os.ReadFile(filepath.Join(fields[1], name))
			if err != nil {
				t.Fatal(err)
			}
			p.lines += bytes.Count(b, []byte("\n"))
		}
		pkgs = append(pkgs, p)
		total += p.lines
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(pkgs) == 0 {
		t.Fatalf("go list -deps names no package of %s*:\n%s", module, out)
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].path < pkgs[j].path })
	for _, p := range pkgs {
		t.Logf("%s: %d lines", p.path, p.lines)
	}
	t.Logf("linked lines: %d (limit %d)", total, linkedLinesLimit)
	if total > linkedLinesLimit {
		t.Errorf("a program using the adapters links %d lines of this module, over the limit of %d", total, linkedLinesLimit)
	}
}

// testOnlyPackage reports whether rel, a package path relative to the
// module, is one that only tests import; none should be in the adapters'
// dependencies, but if one is, it is not what a user's binary carries.
func testOnlyPackage(rel string) bool {
	for _, prefix := range []string{"internal/testrig", "internal/adaptertest", "internal/errgen", "internal/faketb", "mcperrtest"} {
		if rel == prefix || strings.HasPrefix(rel, prefix+"/") {
			return true
		}
	}
	return strings.HasSuffix(rel, "test")
}
