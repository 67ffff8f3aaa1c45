// Package provenance is the whole-program pass of mcperrvet -fix: it
// decides, by following values through every package of a module, where
// the text of each failure a tool answers comes from, and so which
// messages the model would lose once mcperr masks plain errors, and which
// texts of another (an upstream's response, a library's error) a result
// built by hand would still carry.
//
// The per-package analyzers of package vet see one package at a time, as
// go vet and golangci-lint run them; this pass sees the module: it builds
// the SSA form of the module's own packages (its dependencies only as
// types, from export data), a call graph by variable type analysis, so
// that a work function handed to a router as a value, a method value, a
// closure or a generic's instance is followed, and classifies values:
//
//   - a text is the server's own when it is made only of constants of the
//     module, numbers, the tool's arguments (the parameters of a tool
//     handler, and of every function whose callers all fill them with the
//     server's own values), package variables of the module given only
//     such values, and what pure text functions (strings, strconv, fmt's
//     Sprint family) make of those;
//   - anything else is another's: what a library call returns, a field of
//     a value the module did not make from the tool's arguments (a
//     client's DSN), the bytes of a response's body, an error's text whose
//     origins are not all the server's own.
//
// It never edits a test file, a generated file or code outside the module,
// and never turns another's text into a message for the model.
package provenance

import (
	"fmt"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/callgraph"
	"golang.org/x/tools/go/callgraph/cha"
	"golang.org/x/tools/go/callgraph/vta"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

// program is a module's SSA form and call graph.
type program struct {
	fset   *token.FileSet
	pkgs   []*packages.Package
	prog   *ssa.Program
	own    map[*ssa.Package]bool // the module's packages, built from source
	cg     *callgraph.Graph
	funcs  []*ssa.Function // the module's functions with bodies
	files  map[string]*packages.Package
	module string
	public map[string]bool // packages of error types declared public
}

// load type-checks the packages that patterns name in dir, test files
// excluded, and builds their SSA form and call graph.
func load(dir string, patterns []string) (*program, error) {
	cfg := &packages.Config{
		Dir: dir,
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes |
			packages.NeedTypesInfo | packages.NeedImports | packages.NeedModule,
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, err
	}
	var errs []string
	for _, p := range pkgs {
		for _, e := range p.Errors {
			errs = append(errs, e.Error())
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("the packages do not build: %s", strings.Join(errs, "; "))
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("no package matches %s", strings.Join(patterns, " "))
	}
	p := &program{fset: pkgs[0].Fset, pkgs: pkgs, own: map[*ssa.Package]bool{}, files: map[string]*packages.Package{}}
	if m := pkgs[0].Module; m != nil {
		p.module = m.Path
	}
	p.prog = ssa.NewProgram(p.fset, ssa.InstantiateGenerics)
	// Dependencies as types only: their bodies are another's code, whose
	// results count as another's text.
	created := map[*types.Package]bool{}
	var create func(t *types.Package)
	create = func(t *types.Package) {
		if created[t] {
			return
		}
		created[t] = true
		for _, imp := range t.Imports() {
			create(imp)
		}
		p.prog.CreatePackage(t, nil, nil, true)
	}
	for _, pkg := range pkgs {
		created[pkg.Types] = true
		for _, imp := range pkg.Types.Imports() {
			if !isInitial(pkgs, imp) {
				create(imp)
			}
		}
	}
	for _, pkg := range pkgs {
		sp := p.prog.CreatePackage(pkg.Types, pkg.Syntax, pkg.TypesInfo, true)
		p.own[sp] = true
		for _, f := range pkg.Syntax {
			p.files[p.fset.Position(f.Package).Filename] = pkg
		}
	}
	p.prog.Build()
	all := ssautil.AllFunctions(p.prog)
	inModule := map[*ssa.Function]bool{}
	for fn := range all {
		if fn.Blocks != nil && p.ownFunc(fn) {
			inModule[fn] = true
			p.funcs = append(p.funcs, fn)
		} else if p.followable(fn) {
			inModule[fn] = true // a bound method's or an interface's wrapper
		}
	}
	p.cg = vta.CallGraph(inModule, cha.CallGraph(p.prog))
	return p, nil
}

func isInitial(pkgs []*packages.Package, t *types.Package) bool {
	for _, p := range pkgs {
		if p.Types == t {
			return true
		}
	}
	return false
}

// followable reports whether the pass follows calls of fn: a function of
// the module, or a wrapper the SSA builder made (a method value's
// $bound, an interface method's thunk), which calls what it wraps.
func (p *program) followable(fn *ssa.Function) bool {
	return fn.Blocks != nil && (fn.Synthetic != "" || p.ownFunc(fn))
}

// ownFunc reports whether fn is a function of the module built from source.
func (p *program) ownFunc(fn *ssa.Function) bool {
	for f := fn; f != nil; f = f.Origin() {
		if f.Pkg != nil {
			return p.own[f.Pkg]
		}
		if f.Parent() != nil {
			return p.ownFunc(f.Parent())
		}
		if f.Origin() == f {
			break
		}
	}
	return false
}

// publicPkgs returns the packages of the error types the module declares
// public with filter.Public[T].
func (p *program) publicPkgs() map[string]bool {
	if p.public != nil {
		return p.public
	}
	p.public = map[string]bool{}
	for _, pkg := range p.pkgs {
		for id, inst := range pkg.TypesInfo.Instances {
			obj := pkg.TypesInfo.Uses[id]
			if obj == nil || obj.Pkg() == nil || obj.Pkg().Path() != mcperrPrefix+"/filter" || obj.Name() != "Public" || inst.TypeArgs.Len() != 1 {
				continue
			}
			if path, _ := named(inst.TypeArgs.At(0)); path != "" {
				p.public[path] = true
			}
		}
	}
	return p.public
}

// errorType returns the Error method, declared in the module, of t's
// element when t is a pointer to a named type of the module that is an
// error (*InputError); nil otherwise.
func (p *program) errorType(t types.Type) *ssa.Function {
	ptr, ok := t.Underlying().(*types.Pointer)
	if !ok {
		return nil
	}
	n, ok := types.Unalias(ptr.Elem()).(*types.Named)
	if !ok || n.Obj().Pkg() == nil || n.TypeParams().Len() > 0 {
		return nil
	}
	pkg := p.prog.Package(n.Obj().Pkg())
	if pkg == nil || !p.own[pkg] {
		return nil
	}
	sel := p.prog.MethodSets.MethodSet(ptr).Lookup(n.Obj().Pkg(), "Error")
	if sel == nil {
		return nil
	}
	m := p.prog.MethodValue(sel)
	if m == nil || m.Blocks == nil || m.Signature.Params().Len() != 0 || m.Signature.Results().Len() != 1 {
		return nil
	}
	if sel.Obj().(*types.Func).Signature().Recv() == nil {
		return nil
	}
	if !isString(m.Signature.Results().At(0).Type()) {
		return nil
	}
	if m.Synthetic != "" && m.Object() != nil { // a wrapper of a value method
		if o, ok := m.Object().(*types.Func); ok {
			if f := p.prog.FuncValue(o); f != nil {
				return f
			}
		}
	}
	return m
}

// callees returns the module's functions a call site may call, as the call
// graph resolves a dynamic call.
func (p *program) callees(caller *ssa.Function, site ssa.CallInstruction) []*ssa.Function {
	n := p.cg.Nodes[caller]
	if n == nil {
		return nil
	}
	var out []*ssa.Function
	for _, e := range n.Out {
		if e.Site == site && e.Callee.Func.Blocks != nil && p.followable(e.Callee.Func) {
			out = append(out, e.Callee.Func)
		}
	}
	return out
}

// callers returns the call sites of fn in the module.
func (p *program) callers(fn *ssa.Function) []*callgraph.Edge {
	n := p.cg.Nodes[fn]
	if n == nil {
		return nil
	}
	return n.In
}

// funcPath returns the package path and name of fn's declared object.
func funcPath(fn *ssa.Function) (pkg, name string) {
	if fn == nil {
		return "", ""
	}
	if o := fn.Origin(); o != nil && o != fn {
		fn = o
	}
	obj, ok := fn.Object().(*types.Func)
	if !ok || obj.Pkg() == nil {
		return "", ""
	}
	return obj.Pkg().Path(), obj.Name()
}

// named returns the package path and name of t's named type, through
// pointers.
func named(t types.Type) (pkg, name string) {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := types.Unalias(t).(*types.Named); ok && n.Obj().Pkg() != nil {
		return n.Obj().Pkg().Path(), n.Obj().Name()
	}
	return "", ""
}

const (
	goSDK        = "github.com/modelcontextprotocol/go-sdk/mcp"
	mcpGo        = "github.com/mark3labs/mcp-go/mcp"
	mcperrPrefix = "github.com/mcperr/mcperr"
)

var errorType = types.Universe.Lookup("error").Type()

func isError(t types.Type) bool { return types.Identical(t, errorType) }

// isHandler reports whether fn is a tool handler: its parameters begin
// with a context and a CallToolRequest, and its last result is an error, as
// the SDKs' handlers and typed handlers, mcperr's, and those of a server's
// own facade over an SDK are. Its parameters are the tool's call.
func isHandler(fn *ssa.Function) bool {
	params, res := fn.Signature.Params(), fn.Signature.Results()
	if params.Len() < 2 || res.Len() == 0 || !isError(res.At(res.Len()-1).Type()) {
		return false
	}
	if pkg, name := named(params.At(0).Type()); pkg != "context" || name != "Context" {
		return false
	}
	// An SDK's CallToolRequest, or a server's own facade of it named so
	// (a package that adapts its handlers to the SDK's).
	return callToolRequest(params.At(1).Type())
}

// callToolRequest reports whether t is, through a pointer, a type named
// CallToolRequest, or go-sdk's ServerRequest[*CallToolParamsRaw] or
// ServerRequest[*CallToolParams], which go-sdk's CallToolRequest is an
// alias of (an alias the type checker may have looked through).
func callToolRequest(t types.Type) bool {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	if a, ok := t.(*types.Alias); ok && a.Obj().Name() == "CallToolRequest" {
		return true
	}
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return false
	}
	switch {
	case n.Obj().Name() == "CallToolRequest":
		return true
	case n.Obj().Pkg().Path() == goSDK && n.Obj().Name() == "ServerRequest" && n.TypeArgs().Len() == 1:
		_, arg := named(n.TypeArgs().At(0))
		return arg == "CallToolParamsRaw" || arg == "CallToolParams"
	}
	return false
}
