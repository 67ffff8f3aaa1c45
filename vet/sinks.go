package vet

import (
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/buildssa"
	"golang.org/x/tools/go/ssa"
)

type sinkHit struct {
	pos token.Pos
	msg string
}

// helperSink returns a report for a call to a function of the package that
// passes error text in a non-error argument on to one of the public values,
// where the function does not already do so by itself (that is reported
// inside it). It looks one call deep.
func helperSinkOf(t *tainter, call *ssa.Call, sinks func(*tainter, *ssa.Function, *env) []sinkHit) string {
	g := call.Common().StaticCallee()
	if g == nil || g.Pkg != t.pkg || g.Blocks == nil || len(g.Params) != len(call.Common().Args) || len(g.Params) > 64 {
		return ""
	}
	base := &env{fn: g, params: map[*ssa.Parameter]bool{}, depth: 1}
	with := &env{fn: g, params: map[*ssa.Parameter]bool{}, depth: 1}
	any := false
	for i, p := range g.Params {
		a := call.Common().Args[i]
		if isErrorValue(p) && (!errHelper(g) || !t.errTainted(nil, a)) || !isErrorValue(p) && !t.argTainted(nil, a) {
			continue
		}
		with.params[p] = true
		any = true
	}
	if !any {
		return ""
	}
	known := map[token.Pos]bool{}
	for _, h := range sinks(t, g, base) {
		known[h.pos] = true
	}
	for _, h := range sinks(t, g, with) {
		if !known[h.pos] {
			return "through " + g.Name() + ": " + h.msg
		}
	}
	return ""
}

// isNamed reports whether typ (or what it points to) is the named type
// path.name.
func isNamed(typ types.Type, path, name string) bool {
	if p, ok := typ.Underlying().(*types.Pointer); ok {
		typ = p.Elem()
	}
	n, ok := types.Unalias(typ).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == path && n.Obj().Name() == name
}

// exportFixed gives the errorsFixed fact to the package's exported
// functions and methods whose errors all have a text the module wrote.
func exportFixed(pass *analysis.Pass, t *tainter, info *buildssa.SSA, fact func() analysis.Fact) {
	for _, fn := range info.SrcFuncs {
		obj, ok := fn.Object().(*types.Func)
		if !ok || !obj.Exported() || len(returnedErrors(fn)) == 0 {
			continue
		}
		if t.fixedErrors(fn) {
			pass.ExportObjectFact(obj, fact())
		}
	}
}
