package vet

import (
	"go/ast"
	"go/types"
	"sync"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/buildssa"
	"golang.org/x/tools/go/ssa"
)

// built holds, by package, the SSA form the analyzers share.
var built sync.Map // *types.Package -> *lazySSA

type lazySSA struct {
	once sync.Once
	ssa  *buildssa.SSA
}

// ssaOf returns the SSA form of the package pass checks, built on first
// use and shared by the analyzers, as buildssa builds it. Unlike a required
// buildssa, it is built only for the packages an analyzer looks into: the
// drivers run the analyzers over every dependency, the standard library
// included, for their facts, and most of those are skipped before this.
func ssaOf(pass *analysis.Pass) *buildssa.SSA {
	v, _ := built.LoadOrStore(pass.Pkg, new(lazySSA))
	l := v.(*lazySSA)
	l.once.Do(func() { l.ssa = buildSSA(pass) })
	return l.ssa
}

// buildSSA builds the SSA form of the package of pass.
func buildSSA(pass *analysis.Pass) *buildssa.SSA {
	prog := ssa.NewProgram(pass.Fset, 0)
	for _, p := range pass.Pkg.Imports() {
		prog.CreatePackage(p, nil, nil, true)
	}
	pkg := prog.CreatePackage(pass.Pkg, pass.Files, pass.TypesInfo, false)
	pkg.Build()
	var funcs []*ssa.Function
	var add func(fn *ssa.Function)
	add = func(fn *ssa.Function) {
		funcs = append(funcs, fn)
		for _, anon := range fn.AnonFuncs {
			add(anon)
		}
	}
	for _, file := range pass.Files {
		for _, decl := range file.Decls {
			if d, ok := decl.(*ast.FuncDecl); ok {
				if obj, ok := pass.TypesInfo.Defs[d.Name].(*types.Func); ok {
					if fn := prog.FuncValue(obj); fn != nil {
						add(fn)
					}
				}
			}
		}
	}
	return &buildssa.SSA{Pkg: pkg, SrcFuncs: funcs}
}

// ownModule reports whether pass checks a package of the module being
// checked (or of a local replacement or workspace module): not the standard
// library, nor a dependency from the module cache, whose facts the
// analyzers do not need.
func ownModule(pass *analysis.Pass) bool {
	return pass.Module != nil && pass.Module.Path != "" && pass.Module.Version == ""
}
