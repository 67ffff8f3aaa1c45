package vet

import (
	"go/constant"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ssa"
)

// SDKErrorText reports error text sent through the SDKs' own error results,
// which mcperr passes through untouched.
var SDKErrorText = &analysis.Analyzer{
	Name: "mcperrsdktext",
	Doc: `report error text sent through the MCP SDKs' own error results

mcperr passes through untouched a result a handler built itself:
mcp-go's mcp.NewToolResultError, NewToolResultErrorf and
NewToolResultErrorFromErr, go-sdk's *jsonrpc.Error, and a CallToolResult of
either SDK with IsError set (to true or to a condition such as err != nil).
Their text reaches the model as written, so an error's text in them leaks. Return the error instead (toolerr.New("...").WithCause(err)) and let
mcperr map and log it.

In a module without mcperr (its go.mod does not require it, and none of its
Go files imports it), the SDK also sends as written each error a tool handler
returns, or gives to SetError: those whose text may be a library's or an
upstream's are reported too. Install mcperr.`,
	Requires:  []*analysis.Analyzer{inspect.Analyzer, pkgState},
	Run:       runSDKErrorText,
	FactTypes: []analysis.Fact{new(sdkHelper), new(errorsFixed)},
}

// errorsFixed is the fact of an exported function whose errors all have a
// text the module wrote (constants, sentinels, its non-error arguments),
// such as a provider's IsReady returning ErrUsersNotReady: the packages
// that return its errors from a handler send no other's text.
type errorsFixed struct{}

func (*errorsFixed) AFact() {}

func (*errorsFixed) String() string { return "errorsFixed" }

// sdkHelper is the fact of a function that puts the text of some of its
// arguments into an SDK error result, such as a package's
// ToolErrorResult(msg string): the packages that call it are told when
// they pass it an error's text.
type sdkHelper struct {
	Params uint64 // bit i: the argument i reaches the result
	Errs   uint64 // bit i: the text of the error argument i reaches an mcp-go result
	Msg    string // what the result does with it
}

func (*sdkHelper) AFact() {}

func (h *sdkHelper) String() string { return "sdkHelper(" + h.Msg + ")" }

const leakAdvice = "write a message for the model and keep the error for the log with toolerr.New(\"...\").WithCause(err)"

func runSDKErrorText(pass *analysis.Pass) (any, error) {
	sdk := importsPath(pass.Pkg, isSDK) || importsHelper(pass)
	if !sdk && !ownModule(pass) {
		return nil, nil // no SDK result is built here, and no fact is needed
	}
	ssainfo := ssaOf(pass)
	t := newTainter(ssainfo.Pkg)
	t.fixedFact = func(f *types.Func) bool { return pass.ImportObjectFact(f, new(errorsFixed)) }
	if ownModule(pass) {
		exportFixed(pass, t, ssainfo, func() analysis.Fact { return new(errorsFixed) })
	}
	if !sdk {
		return nil, nil // no SDK result is built here: nothing to report
	}
	t.helper = func(f *types.Func) (h sdkHelper, ok bool) {
		ok = pass.ImportObjectFact(f, &h)
		return h, ok
	}
	// The facts of the package's helpers, callees before callers: a
	// helper of a helper is found in a later round.
	for range maxDepth {
		found := false
		for _, fn := range srcFuncs(ssainfo) {
			found = exportHelper(pass, t, fn) || found
		}
		if !found {
			break
		}
	}
	for _, fn := range srcFuncs(ssainfo) {
		for _, h := range sdkSinks(t, fn, nil) {
			report(pass, analysis.Diagnostic{Pos: h.pos, Message: h.msg, SuggestedFixes: migrateFix(pass, h.pos)})
		}
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				if call, ok := in.(*ssa.Call); ok {
					if msg := helperSinkOf(t, call, sdkSinks); msg != "" {
						report(pass, analysis.Diagnostic{Pos: call.Pos(), Message: msg, SuggestedFixes: migrateFix(pass, call.Pos())})
					}
				}
			}
		}
	}
	for _, h := range bareSites(pass, t, ssainfo) {
		pass.Reportf(h.pos, "%s", h.msg)
	}
	return nil, nil
}

// importsHelper reports whether pass's package imports one with an
// sdkHelper fact: its calls of those helpers are to check, even if it
// imports no SDK itself.
func importsHelper(pass *analysis.Pass) bool {
	imported := map[*types.Package]bool{}
	for _, p := range pass.Pkg.Imports() {
		imported[p] = true
	}
	for _, f := range pass.AllObjectFacts() {
		if _, ok := f.Fact.(*sdkHelper); ok && imported[f.Object.Pkg()] {
			return true
		}
	}
	return false
}

// argTainted reports whether the argument a of a call holds error text:
// as a value, or, for the slice of a variadic ...any, as an error or text
// among its elements (ToolErrorf(logger, "failed: %v", err)).
func (t *tainter) argTainted(e *env, a ssa.Value) bool {
	for _, x := range variadicArgs(a) {
		if t.fmtArgTainted(e, x) {
			return true
		}
	}
	return t.taintedIn(e, a)
}

// throughHelper returns a report for c, a call of a function of another
// package with an sdkHelper fact given an error's text where that text
// reaches the result; "" otherwise.
func (t *tainter) throughHelper(e *env, c *ssa.CallCommon) string {
	g := c.StaticCallee()
	if g == nil || t.helper == nil {
		return ""
	}
	f, ok := g.Object().(*types.Func)
	if !ok {
		return ""
	}
	if f.Pkg() == t.pkg.Pkg && e == nil {
		return "" // a helper of the package: helperSinkOf reports the call
	}
	h, ok := t.helper(f)
	if !ok {
		return ""
	}
	for i, a := range c.Args {
		if i < 64 && (h.Params&(1<<i) != 0 && t.argTainted(e, a) || h.Errs&(1<<i) != 0 && t.errTainted(e, a)) {
			return "through " + f.Pkg().Name() + "." + f.Name() + ": " + h.Msg
		}
	}
	return ""
}

// errHelper reports whether fn, a function that is not a handler, returns an
// mcp-go result first: the text of an error it is given and puts in that
// result is reported where the error is passed, with a fix there, since an
// mcp-go result cannot keep the error for mcperr (a go-sdk helper's result
// can: it is reported, and fixed, inside it).
func errHelper(fn *ssa.Function) bool {
	r, p := fn.Signature.Results(), fn.Signature.Params()
	if r.Len() == 0 || !isNamed(r.At(0).Type(), pathMCPGo, "CallToolResult") {
		return false
	}
	for i := range p.Len() {
		if isSDKNamed(p.At(i).Type(), "CallToolRequest") {
			return false // a handler
		}
	}
	return true
}

// exportHelper records an sdkHelper fact for fn, a function of the package,
// if some of its arguments that are not errors reach an SDK error result
// whose text fn does not already take from an error itself (reported
// inside fn), and reports whether it recorded a new one.
func exportHelper(pass *analysis.Pass, t *tainter, fn *ssa.Function) bool {
	obj, ok := fn.Object().(*types.Func)
	if !ok || fn.Blocks == nil || len(fn.Params) > 64 || pass.ImportObjectFact(obj, new(sdkHelper)) {
		return false
	}
	envWith := func(i int) *env {
		e := &env{fn: fn, params: map[*ssa.Parameter]bool{}, depth: 1}
		for j, p := range fn.Params {
			if (i < 0 || i == j) && !isErrorValue(p) {
				e.params[p] = true
			}
		}
		return e
	}
	known := map[token.Pos]bool{}
	for _, h := range sdkSinks(t, fn, &env{fn: fn, params: map[*ssa.Parameter]bool{}, depth: 1}) {
		known[h.pos] = true
	}
	fresh := func(e *env) string {
		for _, h := range sdkSinks(t, fn, e) {
			if !known[h.pos] {
				return h.msg
			}
		}
		return ""
	}
	errs := errHelper(fn)
	if fresh(envWith(-1)) == "" && !errs {
		return false // no argument reaches a result: the common case
	}
	var fact sdkHelper
	for i, p := range fn.Params {
		e := envWith(i)
		if isErrorValue(p) {
			if !errs {
				continue
			}
			e.params[p] = true
		}
		if msg := fresh(e); msg != "" {
			if isErrorValue(p) {
				fact.Errs |= 1 << i
			} else {
				fact.Params |= 1 << i
			}
			if fact.Msg == "" {
				fact.Msg = msg
			}
		}
	}
	if fact.Params == 0 && fact.Errs == 0 {
		return false
	}
	pass.ExportObjectFact(obj, &fact)
	return true
}

// sdkSinks returns the SDK error results of fn that hold error text, with
// fn's parameters bound by e as in publicSinks.
func sdkSinks(t *tainter, fn *ssa.Function, e *env) []sinkHit {
	var hits []sinkHit
	tainted := func(v ssa.Value) bool { return t.taintedIn(e, v) }
	setsIsError := false
	type text struct {
		v   ssa.Value
		pos token.Pos
	}
	var texts []text // the text blocks of results built by hand
	for _, b := range fn.Blocks {
		for _, in := range b.Instrs {
			switch in := in.(type) {
			case ssa.CallInstruction:
				c := in.Common()
				if msg := t.throughHelper(e, c); msg != "" {
					hits = append(hits, sinkHit{pos: in.Pos(), msg: msg})
					continue
				}
				pkg, name := funcPath(c.StaticCallee())
				if pkg != pathMCPGo {
					continue
				}
				switch name {
				case "NewTextContent":
					// The text of a block of a result built by hand, which
					// counts if the result has IsError set.
					if len(c.Args) == 1 {
						texts = append(texts, text{c.Args[0], in.Pos()})
					}
				case "NewToolResultError":
					if len(c.Args) == 1 && tainted(c.Args[0]) {
						hits = append(hits, sinkHit{pos: in.Pos(), msg: "mcp.NewToolResultError text is built from an error's text, and mcperr sends such a result untouched: return toolerr.New(\"<message for the model>\").WithCause(err) as the handler's error instead"})
					}
				case "NewToolResultErrorf":
					if len(c.Args) == 2 && (tainted(c.Args[0]) || anyFmtArgTainted(t, e, c.Args[1])) {
						hits = append(hits, sinkHit{pos: in.Pos(), msg: "mcp.NewToolResultErrorf formats an error's text into the result, and mcperr sends such a result untouched: return toolerr.New(\"<message for the model>\").WithCause(err) as the handler's error instead"})
					}
				case "NewToolResultErrorFromErr":
					if len(c.Args) == 2 && (tainted(c.Args[0]) || t.errTainted(e, c.Args[1])) {
						hits = append(hits, sinkHit{pos: in.Pos(), msg: "mcp.NewToolResultErrorFromErr appends the error's text to the message the model reads, and mcperr sends such a result untouched: return toolerr.New(msg).WithCause(err) as the handler's error instead"})
					}
				}
			case *ssa.Store:
				fa, ok := in.Addr.(*ssa.FieldAddr)
				if !ok {
					continue
				}
				switch {
				case isNamed(fa.X.Type(), pathSDKRPC2, "WireError") && structField(fa.X.Type(), fa.Field) == "Message":
					if tainted(in.Val) {
						hits = append(hits, sinkHit{pos: storePos(in), msg: "jsonrpc.Error Message is built from an error's text, and mcperr sends a *jsonrpc.Error untouched: return the error itself (toolerr.New(\"...\").WithCause(err)) and let mcperr answer"})
					}
				case isSDKNamed(fa.X.Type(), "CallToolResult") && structField(fa.X.Type(), fa.Field) == "IsError":
					// true, or a condition such as err != nil: any but false.
					if !isFalse(in.Val) {
						setsIsError = true
					}
				case isSDKNamed(fa.X.Type(), "TextContent") && structField(fa.X.Type(), fa.Field) == "Text":
					texts = append(texts, text{in.Val, storePos(in)})
				}
			}
		}
	}
	if setsIsError {
		for _, x := range texts {
			if tainted(x.v) {
				hits = append(hits, sinkHit{pos: x.pos, msg: "a CallToolResult with IsError set carries an error's text, and mcperr sends such a result untouched: return toolerr.New(\"<message for the model>\").WithCause(err) as the handler's error instead"})
			}
		}
	}
	return hits
}

func anyFmtArgTainted(t *tainter, e *env, slice ssa.Value) bool {
	args := variadicArgs(slice)
	if args == nil {
		return t.taintedIn(e, slice) // args... passed on, as a helper's own are
	}
	for _, a := range args {
		if t.fmtArgTainted(e, a) {
			return true
		}
	}
	return false
}

// storePos returns the position of a store, or of the stored value when
// the store has none (as in some composite literals).
func storePos(s *ssa.Store) token.Pos {
	if s.Pos().IsValid() {
		return s.Pos()
	}
	return s.Val.Pos()
}

// isSDKNamed reports whether typ (or what it points to) is the type of
// that name of either SDK's mcp package.
func isSDKNamed(typ types.Type, name string) bool {
	return isNamed(typ, pathSDK, name) || isNamed(typ, pathMCPGo, name)
}

// isFalse reports whether v is the constant false.
func isFalse(v ssa.Value) bool {
	c, ok := v.(*ssa.Const)
	return ok && c.Value != nil && c.Value.Kind() == constant.Bool && !constant.BoolVal(c.Value)
}

func structField(typ types.Type, i int) string {
	if p, ok := typ.Underlying().(*types.Pointer); ok {
		typ = p.Elem()
	}
	st, ok := typ.Underlying().(*types.Struct)
	if !ok || i >= st.NumFields() {
		return ""
	}
	return st.Field(i).Name()
}
