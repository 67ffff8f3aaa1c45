package vet

import (
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"sync"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/buildssa"
	"golang.org/x/tools/go/ssa"
)

// pkgState is an analyzer of no report whose result, for each package, is
// the state the analyzers share on it: the package's SSA form and whether
// its module has mcperr, each computed on first use. It lives as long as
// the analysis of the package, so that nothing outlives a pass in a
// long-lived driver (gopls, golangci-lint) that analyses changing code.
var pkgState = &analysis.Analyzer{
	Name:       "mcperrstate",
	Doc:        "the SSA form and module of a package, shared by mcperr's analyzers and built on first use",
	Run:        runPkgState,
	ResultType: reflect.TypeFor[*state](),
}

// state is the result of pkgState for one package.
type state struct {
	fset  *token.FileSet
	pkg   *types.Package
	files []*ast.File
	info  *types.Info

	ssaOnce sync.Once
	ssa     *buildssa.SSA

	modOnce sync.Once
	bare    bool
}

func runPkgState(pass *analysis.Pass) (any, error) {
	return &state{fset: pass.Fset, pkg: pass.Pkg, files: pass.Files, info: pass.TypesInfo}, nil
}

// stateOf returns the shared state of the package of pass, whose analyzer
// requires pkgState.
func stateOf(pass *analysis.Pass) *state {
	return pass.ResultOf[pkgState].(*state)
}

// ssaOf returns the SSA form of the package pass checks, built on first
// use and shared by the analyzers, as buildssa builds it. Unlike a required
// buildssa, it is built only for the packages an analyzer looks into: the
// drivers run the analyzers over every dependency, the standard library
// included, for their facts, and most of those are skipped before this.
func ssaOf(pass *analysis.Pass) *buildssa.SSA {
	s := stateOf(pass)
	s.ssaOnce.Do(func() { s.ssa = s.buildSSA() })
	return s.ssa
}

// buildSSA builds the SSA form of the package.
func (s *state) buildSSA() *buildssa.SSA {
	prog := ssa.NewProgram(s.fset, 0)
	for _, p := range s.pkg.Imports() {
		prog.CreatePackage(p, nil, nil, true)
	}
	pkg := prog.CreatePackage(s.pkg, s.files, s.info, false)
	pkg.Build()
	var funcs []*ssa.Function
	var add func(fn *ssa.Function)
	add = func(fn *ssa.Function) {
		funcs = append(funcs, fn)
		for _, anon := range fn.AnonFuncs {
			add(anon)
		}
	}
	for _, file := range s.files {
		for _, decl := range file.Decls {
			if d, ok := decl.(*ast.FuncDecl); ok {
				if obj, ok := s.info.Defs[d.Name].(*types.Func); ok {
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
