package vet

import (
	"go/token"
	"os"
	"path/filepath"

	"golang.org/x/mod/modfile"
	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/buildssa"
	"golang.org/x/tools/go/ssa"
)

// bareAdvice is what a site of a module without mcperr is told to do.
const bareAdvice = "the SDK sends a handler's error to the client as written, and mcperr is not in this module: " +
	"install it (gosdk.Install or mcpgo.Install, report-only first), then run mcperrvet -fix"

// bareSites returns, in a module that does not require mcperr, the errors
// whose text may be another's (an upstream's, a library's) that a tool
// handler returns, or hands to go-sdk's CallToolResult.SetError: no server
// of the module can have mcperr installed, so the SDK sends their text as
// it is. An error made of constants and the tool's own arguments, a
// package's sentinel, and an argument accessor's error of mcp-go are not
// reported: their text is the server's own.
func bareSites(pass *analysis.Pass, t *tainter, info *buildssa.SSA) []sinkHit {
	if !bareModule(pass) {
		return nil
	}
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

// bareModule reports whether the package of pass belongs to a module whose
// go.mod neither is mcperr nor requires it; false when no go.mod is found.
// It is read once per package, for every analyzer.
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
			return !requiresMcperr(data)
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
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
