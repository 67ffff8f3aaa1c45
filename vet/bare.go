package vet

import (
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/buildssa"
	"golang.org/x/tools/go/ssa"
)

// bareAdvice is what a site of a module without mcperr is told to do.
const bareAdvice = "the SDK sends a handler's error to the client as written, and mcperr is not in this module: " +
	"install it (gosdk.Install or mcpgo.Install, report-only first), then run mcperrvet -fix"

// bareSites returns, in a module without mcperr (bareModule), the errors
// whose text may be another's (an upstream's, a library's) that a tool
// handler returns, or hands to go-sdk's CallToolResult.SetError: no server
// of the module can have mcperr installed, so the SDK sends their text as
// it is. An error made of constants and the tool's own arguments, a
// package's sentinel, and an argument accessor's error of mcp-go are not
// reported: their text is the server's own.
func bareSites(pass *analysis.Pass, t *tainter, info *buildssa.SSA) []sinkHit {
	var hits []sinkHit
	for _, fn := range srcFuncs(info) {
		isHandler := handler(fn.Signature)
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				switch in := in.(type) {
				case *ssa.Return:
					if !isHandler || len(in.Results) == 0 || !in.Pos().IsValid() {
						continue // not a handler's, or the return after a recovered panic, which has no source
					}
					if v := resultValue(in, in.Results[len(in.Results)-1]); foreignText(t, v) {
						hits = append(hits, sinkHit{pos: in.Pos(), msg: "a tool handler returns an error whose text may be another's (an upstream's, a library's): " + bareAdvice})
					}
				case *ssa.Call:
					c := in.Common()
					if pkg, name := funcPath(c.StaticCallee()); pkg == pathSDK && name == "SetError" && len(c.Args) == 2 && foreignText(t, c.Args[1]) {
						hits = append(hits, sinkHit{pos: in.Pos(), msg: "CallToolResult.SetError is given an error whose text may be another's: " + bareAdvice})
					}
				}
			}
		}
	}
	if len(hits) == 0 || !bareModule(pass) { // whether the module has mcperr costs more: asked last
		return nil
	}
	return hits
}

// resultValue returns what the return statement ret stores into the
// result slot that v loads, in a function with deferred calls, where
// every return loads the slots; v itself otherwise.
func resultValue(ret *ssa.Return, v ssa.Value) ssa.Value {
	load, ok := v.(*ssa.UnOp)
	if !ok || load.Op != token.MUL {
		return v
	}
	slot, ok := load.X.(*ssa.Alloc)
	if !ok {
		return v
	}
	instrs := ret.Block().Instrs
	for i := len(instrs) - 1; i >= 0; i-- {
		if st, ok := instrs[i].(*ssa.Store); ok && st.Addr == slot {
			return st.Val
		}
	}
	return v
}

// foreignText reports whether the error v may carry text the server did
// not write: not nil, not a package-level sentinel, and not made of
// constants and the tool's arguments alone.
func foreignText(t *tainter, v ssa.Value) bool {
	return foreign(t, v, map[ssa.Value]bool{})
}

func foreign(t *tainter, v ssa.Value, seen map[ssa.Value]bool) bool {
	if seen[v] || len(seen) > 64 {
		return false
	}
	seen[v] = true
	if x, ok := v.(*ssa.Extract); ok {
		if call, ok := x.Tuple.(*ssa.Call); ok && handler(call.Common().Signature()) {
			return false // another handler's answer, or the next one's in a middleware: reported at its own returns
		}
	}
	// Through phis, conversions and the locals a deferred function may
	// change (a named result, a variable a closure captures).
	if vs := through(v); vs != nil {
		for _, x := range vs {
			if foreign(t, x, seen) {
				return true
			}
		}
		return false
	}
	return t.errTainted(nil, v)
}

// bareModule reports whether the package of pass belongs to a module
// without mcperr: its go.mod is not mcperr's and does not require it, and
// no Go file of the module imports a package of mcperr. The second half
// counts a module whose go.mod lost the requirement to go mod tidy, run
// before mcperr was first imported, as having mcperr, as it will again at
// the next go get. False when no go.mod is found. Both drivers read the
// same files, so that they agree; it is read once per package, for every
// analyzer, and only where a report depends on it.
func bareModule(pass *analysis.Pass) bool {
	s := stateOf(pass)
	s.modOnce.Do(func() { s.bare = s.bareModule() })
	return s.bare
}

func (s *state) bareModule() bool {
	if len(s.files) == 0 {
		return false
	}
	for d := filepath.Dir(s.fset.File(s.files[0].Pos()).Name()); ; d = filepath.Dir(d) {
		data, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil {
			return !requiresMcperr(data) && !importsMcperr(d, ignoredDirs(data))
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
}

// importsMcperr reports whether a Go file of the module whose root is the
// directory root, test files included, imports a package of mcperr, as go
// mod tidy reads them: the directories testdata and vendor, those whose
// names start with "." or "_", those go.mod's ignore directives name
// (ignore, slash-separated paths), nested modules and files built only with
// the tag ignore are left out.
func importsMcperr(root string, ignore []string) bool {
	found := false
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil // unreadable: as if absent
		case d.IsDir():
			if path == root {
				return nil
			}
			name := d.Name()
			if name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if rel, err := filepath.Rel(root, path); err == nil && ignoredDir(filepath.ToSlash(rel), ignore) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
			return nil
		case !strings.HasSuffix(path, ".go"):
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly|parser.ParseComments)
		if err != nil || ignored(f) {
			return nil
		}
		for _, spec := range f.Imports {
			if p, err := strconv.Unquote(spec.Path.Value); err == nil && isMcperr(p) {
				found = true
				return filepath.SkipAll
			}
		}
		return nil
	})
	return found
}

// ignoredDirs returns the paths of the ignore directives of the go.mod
// data.
func ignoredDirs(data []byte) []string {
	f, err := modfile.ParseLax("go.mod", data, nil)
	if err != nil {
		return nil
	}
	var out []string
	for _, ig := range f.Ignore {
		out = append(out, ig.Path)
	}
	return out
}

// ignoredDir reports whether rel, a directory's slash-separated path
// relative to the module's root, is one an ignore directive names: a path
// that starts with "./" from the root, another at any depth.
func ignoredDir(rel string, ignore []string) bool {
	for _, p := range ignore {
		if strings.HasPrefix(p, "./") {
			if rel == strings.TrimSuffix(strings.TrimPrefix(p, "./"), "/") {
				return true
			}
		} else if p = strings.Trim(p, "/"); rel == p || strings.HasSuffix(rel, "/"+p) {
			return true
		}
	}
	return false
}

// ignored reports whether f is built only with the tag ignore, as a
// generator run with go run is.
func ignored(f *ast.File) bool {
	for _, g := range f.Comments {
		if g.Pos() > f.Package {
			break
		}
		for _, c := range g.List {
			if constraint.IsGoBuild(c.Text) {
				expr, err := constraint.Parse(c.Text)
				tag, ok := expr.(*constraint.TagExpr)
				return err == nil && ok && tag.Tag == "ignore"
			}
		}
	}
	return false
}

// requiresMcperr reports whether the go.mod data is mcperr's own or
// requires it; true when it cannot be parsed, so that nothing is claimed.
func requiresMcperr(data []byte) bool {
	f, err := modfile.ParseLax("go.mod", data, nil)
	if err != nil || f.Module != nil && isMcperr(f.Module.Mod.Path) {
		return true
	}
	for _, r := range f.Require {
		if r.Mod.Path == pathMcperr {
			return true
		}
	}
	return false
}
