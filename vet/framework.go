package vet

import (
	"go/types"
	"slices"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/buildssa"
	"golang.org/x/tools/go/ssa"
)

// A server's own tool framework may have handlers of its own shape, whose
// failures travel in a field of the result they return rather than as
// their error, as Kubernetes' func(api.ToolHandlerParams)
// (*api.ToolCallResult, error) does with api.NewToolCallResult("",
// fmt.Errorf("name parameter required")): one adapter, in another package,
// turns the field into the SDK's result. The functions here find those
// handlers and the errors they put in their result.

// resultError is the fact of a function of the module that returns a
// framework result whose error field holds some of its arguments, such as
// NewToolCallResult(content string, err error) *ToolCallResult: an error
// given to it is the tool's failure.
type resultError struct {
	Params uint64 // bit i: the argument i becomes the result's error
}

func (*resultError) AFact() {}

func (*resultError) String() string { return "resultError" }

// errorFields returns the indices of the exported fields of type error of
// the struct t is or points to, when t is declared outside the SDKs: a
// framework's result that carries a tool's failure.
func errorFields(t types.Type) []int {
	named, ok := deref(t).(*types.Named)
	if !ok || named.Obj().Pkg() == nil || isSDK(named.Obj().Pkg().Path()) {
		return nil
	}
	st, ok := named.Underlying().(*types.Struct)
	if !ok {
		return nil
	}
	var out []int
	for i := range st.NumFields() {
		if f := st.Field(i); f.Exported() && isErrorResult(f.Type()) {
			out = append(out, i)
		}
	}
	return out
}

// frameworkShaped reports whether sig returns (*Result, error), Result a
// struct with an exported error field: a handler of a server's own
// framework, or a function that builds its result. A prompt's handler is
// not a tool's: its parameters give the arguments as MCP gives a prompt's,
// strings (GetArguments() map[string]string), and the SDK sends its
// errors as written, with or without mcperr.
func frameworkShaped(sig *types.Signature) bool {
	r := sig.Results()
	if r.Len() != 2 || !isErrorResult(r.At(1).Type()) || errorFields(r.At(0).Type()) == nil {
		return false
	}
	for i := range sig.Params().Len() {
		if promptArgs(sig.Params().At(i).Type()) {
			return false
		}
	}
	return true
}

// promptArgs reports whether t has a method GetArguments() map[string]string.
func promptArgs(t types.Type) bool {
	obj, _, _ := types.LookupFieldOrMethod(t, true, nil, "GetArguments")
	fn, ok := obj.(*types.Func)
	if !ok || fn.Signature().Params().Len() != 0 || fn.Signature().Results().Len() != 1 {
		return false
	}
	m, ok := fn.Signature().Results().At(0).Type().Underlying().(*types.Map)
	return ok && types.Identical(m.Key(), types.Typ[types.String]) && types.Identical(m.Elem(), types.Typ[types.String])
}

// frameworkHandlers returns the functions of the package, closures
// included, that have a framework handler's shape and are used as values
// (Handler: podsGet, or given to a call), as a tool's table registers
// them.
func frameworkHandlers(info *buildssa.SSA) map[*ssa.Function]bool {
	out := map[*ssa.Function]bool{}
	for _, fn := range allFuncs(info) {
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				var ops []*ssa.Value
				ops = in.Operands(ops)
				if call, ok := in.(ssa.CallInstruction); ok && !call.Common().IsInvoke() {
					ops = ops[1:] // the function called, not a value
				}
				for _, op := range ops {
					var g *ssa.Function
					switch v := (*op).(type) {
					case *ssa.Function:
						g = v
					case *ssa.MakeClosure:
						g, _ = v.Fn.(*ssa.Function)
					}
					if g != nil && g.Pkg == info.Pkg && frameworkShaped(g.Signature) {
						out[g] = true
					}
				}
			}
		}
	}
	return out
}

// resultErrors returns the errors fn puts in the framework result it
// returns, through a composite literal or a function with the resultError
// fact, and the calls of the package's own functions whose result it
// returns, whose errors are its errors too.
func resultErrors(pass *analysis.Pass, fn *ssa.Function) (errs []ssa.Value, calls []*ssa.CallCommon) {
	if fn.Signature.Results().Len() == 0 || errorFields(fn.Signature.Results().At(0).Type()) == nil {
		return nil, nil
	}
	for _, b := range fn.Blocks {
		if ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok && len(ret.Results) > 0 {
			e, c := resultValueErrors(pass, ret.Results[0], 0)
			errs, calls = append(errs, e...), append(calls, c...)
		}
	}
	return errs, calls
}

// resultValueErrors returns the errors put in the framework result v.
func resultValueErrors(pass *analysis.Pass, v ssa.Value, depth int) (errs []ssa.Value, calls []*ssa.CallCommon) {
	if depth > 8 {
		return nil, nil
	}
	switch v := v.(type) {
	case *ssa.Alloc: // &Result{Error: err}
		fields := errorFields(v.Type())
		for _, r := range *v.Referrers() {
			fa, ok := r.(*ssa.FieldAddr)
			if !ok || fa.X != v || !slices.Contains(fields, fa.Field) {
				continue
			}
			for _, rr := range *fa.Referrers() {
				if st, ok := rr.(*ssa.Store); ok && st.Addr == fa {
					errs = append(errs, st.Val)
				}
			}
		}
	case *ssa.Extract:
		if v.Index == 0 {
			return resultValueErrors(pass, v.Tuple, depth+1)
		}
	case *ssa.Call:
		c := v.Common()
		g := c.StaticCallee()
		if g == nil {
			return nil, nil
		}
		if bits := resultErrorParams(pass, g, depth+1); bits != 0 {
			for i, a := range c.Args {
				if i < 64 && bits&(1<<i) != 0 {
					errs = append(errs, a)
				}
			}
		} else if g.Pkg != nil && g.Pkg.Pkg == pass.Pkg {
			calls = append(calls, c) // return restartPipelineRun(...): its errors
		}
	case *ssa.Phi:
		for _, e := range v.Edges {
			ee, cc := resultValueErrors(pass, e, depth+1)
			errs, calls = append(errs, ee...), append(calls, cc...)
		}
	}
	return errs, calls
}

// resultErrorParams returns the resultError bits of g: from its fact when
// it belongs to another package, from its body when it belongs to this
// one.
func resultErrorParams(pass *analysis.Pass, g *ssa.Function, depth int) uint64 {
	if obj, ok := g.Object().(*types.Func); ok && obj.Pkg() != pass.Pkg {
		var f resultError
		if pass.ImportObjectFact(obj, &f) {
			return f.Params
		}
		return 0
	}
	if g.Blocks == nil || len(g.Params) > 64 || depth > 8 {
		return 0
	}
	var bits uint64
	for _, b := range g.Blocks {
		ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok || len(ret.Results) == 0 {
			continue
		}
		errs, _ := resultValueErrors(pass, ret.Results[0], depth)
		for _, e := range errs {
			for _, x := range append([]ssa.Value{e}, through(e)...) {
				if p, ok := x.(*ssa.Parameter); ok {
					if i := slices.Index(g.Params, p); i >= 0 {
						bits |= 1 << i
					}
				}
			}
		}
	}
	return bits
}

// exportResultErrors gives the resultError fact to the package's exported
// functions that build a framework result from an error argument.
func exportResultErrors(pass *analysis.Pass, info *buildssa.SSA) {
	for _, fn := range info.SrcFuncs {
		obj, ok := fn.Object().(*types.Func)
		if !ok || !obj.Exported() || fn.Signature.Results().Len() == 0 || errorFields(fn.Signature.Results().At(0).Type()) == nil {
			continue
		}
		if bits := resultErrorParams(pass, fn, 0); bits != 0 {
			pass.ExportObjectFact(obj, &resultError{Params: bits})
		}
	}
}
