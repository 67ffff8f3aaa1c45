package vet

import (
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis/passes/buildssa"
	"golang.org/x/tools/go/ssa"
)

// Import paths the analyzers know.
const (
	pathToolerr = "github.com/mcperr/mcperr/toolerr"
	pathDomain  = "github.com/mcperr/mcperr/domain"
	pathCodes   = "github.com/mcperr/mcperr/codes"
	pathFilter  = "github.com/mcperr/mcperr/filter"
	pathGosdkA  = "github.com/mcperr/mcperr/adapters/gosdk"
	pathMcpgoA  = "github.com/mcperr/mcperr/adapters/mcpgo"
	pathMcperr  = "github.com/mcperr/mcperr"
	pathMCPGo   = "github.com/mark3labs/mcp-go/mcp"
	pathMCPGoS  = "github.com/mark3labs/mcp-go/server"
	pathSDK     = "github.com/modelcontextprotocol/go-sdk/mcp"
	pathSDKRPC2 = "github.com/modelcontextprotocol/go-sdk/internal/jsonrpc2"
)

// maxDepth bounds how deep the taint search follows same-package calls.
const maxDepth = 4

var errorType = types.Universe.Lookup("error").Type().Underlying().(*types.Interface)

// implementsError reports whether t, or a pointer to it, implements error.
func implementsError(t types.Type) bool {
	if t == nil {
		return false
	}
	return types.Implements(t, errorType) || types.Implements(types.NewPointer(t), errorType)
}

// tainter answers whether a value holds text that comes from an error (its
// Error() string, or an error formatted with fmt) or from a log-only field
// (domain.Authorization's Permission and Subject). It is conservative: a value
// it cannot follow is clean, so that every report is one a reader agrees with.
type tainter struct {
	pkg *ssa.Package
	// memo holds the answers found so far, for values outside any call
	// summary (a nil env) and inside each one.
	memo map[key]bool
	// busy breaks cycles (phi nodes, recursion); errBusy, those of the
	// phi nodes of errors.
	busy, errBusy map[key]bool
	// summaries caches same-package function summaries.
	summaries map[sumKey]bool
	// helper returns the sdkHelper fact of a function of another package.
	helper func(*types.Func) (sdkHelper, bool)
	// fixed caches fixedErrors.
	fixed map[*ssa.Function]bool
	// fixedFact reports whether a function of another package has the
	// errorsFixed fact; nil: none has.
	fixedFact func(*types.Func) bool
	// fixedGiven: a call of a function whose errors are fixed holds an
	// error's text when an argument does (fmt.Sprintf("%v",
	// pkg.Required(err.Error())), pkg.Wrap(err)), as mcperrpublictext
	// asks of a ToolError's message; mcperrsdktext's helper facts take
	// the function's words as they are.
	fixedGiven bool

	// active counts the questions under way; steps counts the values
	// visited for the outermost one, which ends in silence (clean) once
	// it passes maxSteps; exhausted says it did, so that nothing found
	// after that is remembered.
	active    int
	steps     int
	exhausted bool
}

// maxSteps bounds the values one question visits, so that the analysis
// ends on any code: a value it cannot decide in that many steps is clean.
const maxSteps = 20000

type key struct {
	v   ssa.Value
	env *env
}

type sumKey struct {
	fn   *ssa.Function
	mask uint64
}

// env binds the parameters of a function being summarised to whether the
// caller's arguments are tainted.
type env struct {
	fn     *ssa.Function
	params map[*ssa.Parameter]bool
	depth  int
}

func newTainter(pkg *ssa.Package) *tainter {
	return &tainter{pkg: pkg, memo: map[key]bool{}, busy: map[key]bool{}, errBusy: map[key]bool{}, summaries: map[sumKey]bool{}, fixed: map[*ssa.Function]bool{}}
}

// taintedIn reports whether v (a string, []byte, an interface holding one,
// a slice or map holding one, or an error) carries error text, in the
// function that e summarises, or outside any summary for a nil e. Each
// value is computed once for each e: a value met again on another path
// costs a lookup, so that the work is linear in the values, not in the
// paths to them.
func (t *tainter) taintedIn(e *env, v ssa.Value) bool {
	if v == nil {
		return false
	}
	k := key{v, e}
	if r, ok := t.memo[k]; ok {
		return r
	}
	if t.busy[k] {
		return false
	}
	if t.active == 0 {
		t.steps, t.exhausted = 0, false
	}
	if t.steps++; t.steps > maxSteps {
		t.exhausted = true
		return false
	}
	t.busy[k] = true
	t.active++
	r := t.compute(e, v)
	t.active--
	delete(t.busy, k)
	if !t.exhausted {
		t.memo[k] = r
	}
	return r
}

// isErrorValue reports whether v's static type is an error (interface or concrete).
func isErrorValue(v ssa.Value) bool {
	return implementsError(v.Type())
}

func (t *tainter) compute(e *env, v ssa.Value) bool {
	switch v := v.(type) {
	case *ssa.Const:
		return false
	case *ssa.Parameter:
		if e != nil && v.Parent() == e.fn {
			return e.params[v]
		}
		// An error parameter outside a summary: its text is unknown error text.
		return isErrorValue(v)
	case *ssa.Phi:
		for _, x := range v.Edges {
			if t.taintedIn(e, x) {
				return true
			}
		}
		return false
	case *ssa.BinOp:
		if v.Op == token.ADD {
			return t.taintedIn(e, v.X) || t.taintedIn(e, v.Y)
		}
		return false
	case *ssa.Convert:
		return t.taintedIn(e, v.X)
	case *ssa.ChangeType:
		return t.taintedIn(e, v.X)
	case *ssa.MakeInterface:
		return t.taintedIn(e, v.X)
	case *ssa.ChangeInterface:
		return t.taintedIn(e, v.X)
	case *ssa.TypeAssert:
		return t.taintedIn(e, v.X)
	case *ssa.Extract:
		return t.taintedIn(e, v.Tuple)
	case *ssa.Slice:
		return t.taintedIn(e, v.X)
	case *ssa.Alloc:
		return t.storesTainted(e, v)
	case *ssa.MakeMap:
		for _, r := range *v.Referrers() {
			if u, ok := r.(*ssa.MapUpdate); ok && u.Map == v {
				if t.taintedIn(e, u.Value) || t.taintedIn(e, u.Key) {
					return true
				}
			}
		}
		return false
	case *ssa.UnOp:
		if v.Op == token.MUL {
			if fa, ok := v.X.(*ssa.FieldAddr); ok {
				return isLogOnlyField(fa.X.Type(), fa.Field) || t.fieldTainted(e, fa.X, fa.Field, 0)
			}
			if a, ok := v.X.(*ssa.Alloc); ok {
				return t.storesTainted(e, a)
			}
			if ia, ok := v.X.(*ssa.IndexAddr); ok {
				return t.taintedIn(e, ia.X)
			}
		}
		return false
	case *ssa.Field:
		if load, ok := v.X.(*ssa.UnOp); ok && load.Op == token.MUL && t.fieldTainted(e, load.X, v.Field, 0) {
			return true
		}
		return isLogOnlyField(v.X.Type(), v.Field)
	case *ssa.Call:
		return t.callTainted(e, v.Common(), v)
	}
	return false
}

// fieldTainted reports whether a tainted value is stored into the field
// of the struct that base points to, where base is a struct of the function
// (a local, a composite literal), or a local that holds a pointer to one:
// apiErr := &apiError{msg: err.Error()} ... apiErr.msg.
func (t *tainter) fieldTainted(e *env, base ssa.Value, field, depth int) bool {
	if depth > 2 {
		return false
	}
	if load, ok := base.(*ssa.UnOp); ok && load.Op == token.MUL {
		if a, ok := load.X.(*ssa.Alloc); ok {
			for _, r := range *a.Referrers() {
				if st, ok := r.(*ssa.Store); ok && st.Addr == a && t.fieldTainted(e, st.Val, field, depth+1) {
					return true
				}
			}
		}
		return false
	}
	a, ok := base.(*ssa.Alloc)
	if !ok {
		return false
	}
	for _, r := range *a.Referrers() {
		fa, ok := r.(*ssa.FieldAddr)
		if !ok || fa.Field != field {
			continue
		}
		for _, rr := range *fa.Referrers() {
			if st, ok := rr.(*ssa.Store); ok && st.Addr == fa && t.taintedIn(e, st.Val) {
				return true
			}
		}
	}
	return false
}

// storesTainted reports whether a tainted value is stored into the memory
// allocated by a (a local variable, or the backing array of a slice literal).
func (t *tainter) storesTainted(e *env, a *ssa.Alloc) bool {
	for _, r := range *a.Referrers() {
		switch r := r.(type) {
		case *ssa.Store:
			if r.Addr == a && t.taintedIn(e, r.Val) {
				return true
			}
		case *ssa.IndexAddr:
			for _, rr := range *r.Referrers() {
				if s, ok := rr.(*ssa.Store); ok && s.Addr == r && t.taintedIn(e, s.Val) {
					return true
				}
			}
		}
	}
	return false
}

// isLogOnlyField reports whether field i of the struct behind typ is a
// log-only field: domain.Authorization's Permission or Subject.
func isLogOnlyField(typ types.Type, i int) bool {
	if p, ok := typ.Underlying().(*types.Pointer); ok {
		typ = p.Elem()
	}
	n, ok := types.Unalias(typ).(*types.Named)
	if !ok || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != pathDomain || n.Obj().Name() != "Authorization" {
		return false
	}
	st, ok := n.Underlying().(*types.Struct)
	if !ok || i >= st.NumFields() {
		return false
	}
	name := st.Field(i).Name()
	return name == "Permission" || name == "Subject"
}

func funcPath(fn *ssa.Function) (pkg, name string) {
	if fn == nil {
		return "", ""
	}
	obj, ok := fn.Object().(*types.Func)
	if !ok || obj.Pkg() == nil {
		if fn.Origin() != nil {
			return funcPath(fn.Origin())
		}
		return "", ""
	}
	return obj.Pkg().Path(), obj.Name()
}

// isErrorMethod reports whether a call is x.Error() on a value implementing error.
func isErrorMethod(c *ssa.CallCommon) (recv ssa.Value, ok bool) {
	if c.IsInvoke() {
		if c.Method.Name() == "Error" && isErrorValue(c.Value) && len(c.Args) == 0 {
			return c.Value, true
		}
		return nil, false
	}
	fn := c.StaticCallee()
	if fn == nil || fn.Signature.Recv() == nil || fn.Name() != "Error" || len(c.Args) != 1 {
		return nil, false
	}
	if fn.Signature.Params().Len() != 0 || fn.Signature.Results().Len() != 1 {
		return nil, false
	}
	if !implementsError(fn.Signature.Recv().Type()) {
		return nil, false
	}
	return c.Args[0], true
}

// variadicArgs returns the values stored into the slice passed as a
// variadic argument, or nil when they cannot be seen.
func variadicArgs(v ssa.Value) []ssa.Value {
	s, ok := v.(*ssa.Slice)
	if !ok {
		return nil
	}
	a, ok := s.X.(*ssa.Alloc)
	if !ok {
		return nil
	}
	var out []ssa.Value
	for _, r := range *a.Referrers() {
		if ia, ok := r.(*ssa.IndexAddr); ok {
			for _, rr := range *ia.Referrers() {
				if st, ok := rr.(*ssa.Store); ok && st.Addr == ia {
					out = append(out, st.Val)
				}
			}
		}
	}
	return out
}

// fmtArgTainted reports whether an operand of a fmt call puts error text in
// the output: an error value (formatted through its Error method in every
// verb but %T, which is rare enough to ignore) or a tainted string.
func (t *tainter) fmtArgTainted(e *env, v ssa.Value) bool {
	x := v
	switch y := v.(type) {
	case *ssa.MakeInterface:
		x = y.X
	case *ssa.ChangeInterface:
		x = y.X
	}
	if isErrorValue(x) {
		return t.errTainted(e, x)
	}
	return t.taintedIn(e, x)
}

// errTainted reports whether the text of error value v may hold more than
// what the code wrote itself: true unless v is nil, errors.New of clean text,
// or fmt.Errorf with a clean format and clean operands.
func (t *tainter) errTainted(e *env, v ssa.Value) bool {
	switch x := v.(type) {
	case *ssa.Const:
		return false
	case *ssa.MakeInterface:
		if isErrorValue(x.X) {
			return t.errTainted(e, x.X)
		}
		return t.taintedIn(e, x.X)
	case *ssa.ChangeInterface:
		return t.errTainted(e, x.X)
	case *ssa.Parameter:
		if e != nil && x.Parent() == e.fn {
			return e.params[x]
		}
		return true
	case *ssa.Phi:
		k := key{x, e}
		if t.errBusy[k] {
			return false // a loop: its other edges decide
		}
		t.errBusy[k] = true
		defer delete(t.errBusy, k)
		for _, y := range x.Edges {
			if t.errTainted(e, y) {
				return true
			}
		}
		return false
	case *ssa.UnOp:
		if _, global := x.X.(*ssa.Global); global && x.Op == token.MUL {
			return false // a sentinel: var ErrNotFound = errors.New("...")
		}
	case *ssa.Extract:
		if call, ok := x.Tuple.(*ssa.Call); ok {
			callee := call.Common().StaticCallee()
			if t.fixedErrors(callee) && !(t.fixedGiven && t.anyArgTainted(e, call.Common().Args)) {
				return false
			}
			pkg, name := funcPath(callee)
			if pkg == pathMCPGo && callee.Signature.Recv() != nil && isNamed(callee.Signature.Recv().Type(), pathMCPGo, "CallToolRequest") && strings.HasPrefix(name, "Require") {
				// mcp-go's argument accessors: "required argument %q not
				// found", "argument %q is not a string"... name the
				// argument only.
				return false
			}
		}
		return true
	case *ssa.Call:
		if c := x.Common(); c.IsInvoke() && c.Method.Name() == "Err" && isNamed(c.Value.Type(), "context", "Context") {
			// ctx.Err() is context.Canceled or context.DeadlineExceeded,
			// whose texts are fixed by the standard library.
			return false
		}
		callee := x.Common().StaticCallee()
		if t.fixedErrors(callee) && !(t.fixedGiven && t.anyArgTainted(e, x.Call.Args)) {
			return false
		}
		pkg, name := funcPath(callee)
		if pkg == pathToolerr && callee.Signature.Recv() == nil && name == "New" && len(x.Call.Args) == 1 {
			// A ToolError's Error text is its message, then its cause's.
			return t.taintedIn(e, x.Call.Args[0])
		}
		if pkg == pathToolerr && callee.Signature.Recv() == nil && name == "Wrap" && len(x.Call.Args) == 2 {
			return t.errTainted(e, x.Call.Args[0]) || t.taintedIn(e, x.Call.Args[1])
		}
		if pkg == pathToolerr && callee.Signature.Recv() != nil && len(x.Call.Args) >= 1 {
			switch name {
			case "WithCause":
				return t.errTainted(e, x.Call.Args[0]) || t.errTainted(e, x.Call.Args[1])
			case "WithCode", "WithHint", "WithDetails", "WithRetryable", "WithRetryAfter":
				return t.errTainted(e, x.Call.Args[0])
			}
		}
		if pkg == "errors" && name == "New" && len(x.Call.Args) == 1 {
			return t.taintedIn(e, x.Call.Args[0])
		}
		if pkg == "fmt" && name == "Errorf" && len(x.Call.Args) == 2 {
			if t.taintedIn(e, x.Call.Args[0]) {
				return true
			}
			args := variadicArgs(x.Call.Args[1])
			if args == nil {
				_, isConst := x.Call.Args[1].(*ssa.Const)
				return !isConst
			}
			for _, a := range args {
				if t.fmtArgTainted(e, a) {
					return true
				}
			}
			return false
		}
	}
	return true
}

// anyArgTainted reports whether an argument of a call holds an error's
// text: a function whose errors hold only the text it is given
// (errorsFixed) passes it on.
func (t *tainter) anyArgTainted(e *env, args []ssa.Value) bool {
	for _, a := range args {
		if t.fmtArgTainted(e, a) {
			return true
		}
	}
	return false
}

func (t *tainter) callTainted(e *env, c *ssa.CallCommon, call *ssa.Call) bool {
	if recv, ok := isErrorMethod(c); ok {
		return t.errTainted(e, recv)
	}
	if b, ok := c.Value.(*ssa.Builtin); ok {
		if b.Name() == "append" {
			for _, a := range c.Args {
				if t.taintedIn(e, a) {
					return true
				}
			}
		}
		return false
	}
	fn := c.StaticCallee()
	if fn == nil {
		return false
	}
	pkg, name := funcPath(fn)
	switch pkg {
	case "fmt":
		switch name {
		case "Sprintf", "Sprint", "Sprintln", "Errorf", "Appendf", "Append", "Appendln":
			for i, a := range c.Args {
				if i == len(c.Args)-1 && fn.Signature.Variadic() {
					args := variadicArgs(a)
					if args == nil && t.taintedIn(e, a) {
						return true // args... passed on, as a helper's own are
					}
					for _, x := range args {
						if t.fmtArgTainted(e, x) {
							return true
						}
					}
					continue
				}
				if t.taintedIn(e, a) {
					return true
				}
			}
		}
		return false
	case "strings", "strconv", "bytes", "errors":
		if pkg == "errors" && name != "Join" {
			return false
		}
		if pkg == "errors" {
			for _, x := range variadicArgs(c.Args[0]) {
				if t.errTainted(e, x) {
					return true
				}
			}
			return false
		}
		for _, a := range c.Args {
			if t.taintedIn(e, a) {
				return true
			}
		}
		return false
	case "slices":
		if name == "Concat" || name == "Clone" || name == "Insert" {
			for _, a := range c.Args {
				if t.taintedIn(e, a) {
					return true
				}
			}
		}
		return false
	}
	if fn.Pkg == t.pkg && fn.Blocks != nil {
		return t.summary(e, fn, c.Args)
	}
	return false
}

// summary reports whether a same-package function returns tainted text
// when called with args.
func (t *tainter) summary(e *env, fn *ssa.Function, args []ssa.Value) bool {
	depth := 0
	if e != nil {
		depth = e.depth + 1
	}
	if depth > maxDepth || len(fn.Params) > 64 || len(args) != len(fn.Params) {
		return false
	}
	ne := &env{fn: fn, params: map[*ssa.Parameter]bool{}, depth: depth}
	var mask uint64
	for i, p := range fn.Params {
		var ti bool
		if isErrorValue(p) {
			ti = t.errTainted(e, args[i])
		} else {
			ti = t.taintedIn(e, args[i])
		}
		ne.params[p] = ti
		if ti {
			mask |= 1 << i
		}
	}
	sk := sumKey{fn, mask}
	if r, ok := t.summaries[sk]; ok {
		return r
	}
	t.summaries[sk] = false // recursion: assume clean
	r := false
	for _, b := range fn.Blocks {
		if ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok {
			for _, x := range ret.Results {
				if isErrorValue(x) {
					continue // an error result is not text
				}
				if t.taintedIn(ne, x) {
					r = true
				}
			}
		}
	}
	t.summaries[sk] = r
	return r
}

// fixedErrors reports whether every error fn, a function of the package,
// returns has a text made only of constants and fn's own arguments that
// are not errors, such as a server's own "missing required parameter: %s":
// a message meant for the model, not an internal error's text. A function
// of another package has such errors if it has the errorsFixed fact.
func (t *tainter) fixedErrors(fn *ssa.Function) bool {
	if fn == nil {
		return false
	}
	if o := fn.Origin(); o != nil {
		fn = o // a generic function's instance: its body is the origin's
	}
	if fn.Pkg != t.pkg || fn.Blocks == nil {
		f, ok := fn.Object().(*types.Func)
		return ok && t.fixedFact != nil && t.fixedFact(f)
	}
	if r, ok := t.fixed[fn]; ok {
		return r
	}
	t.fixed[fn] = false // recursion: assume not
	e := &env{fn: fn, params: map[*ssa.Parameter]bool{}, depth: maxDepth}
	r := true
	for _, b := range fn.Blocks {
		ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok {
			continue
		}
		for _, x := range ret.Results {
			if isErrorValue(x) && t.errTainted(e, x) {
				r = false
			}
		}
	}
	t.fixed[fn] = r
	return r
}

// srcFuncs returns the package's source functions, as buildssa lists them,
// and the function literals of package-level variable initialisers, which
// buildssa leaves out (they belong to the synthetic init function).
func srcFuncs(info *buildssa.SSA) []*ssa.Function {
	out := append([]*ssa.Function(nil), info.SrcFuncs...)
	var add func(fn *ssa.Function)
	add = func(fn *ssa.Function) {
		for _, a := range fn.AnonFuncs {
			out = append(out, a)
			add(a)
		}
	}
	if init := info.Pkg.Func("init"); init != nil {
		add(init)
	}
	return out
}

// allFuncs returns srcFuncs and the package's init function, which holds
// the package variables' initialisers (var Tools = []api.ServerTool{{Handler:
// podsGet}}, var t = framework.Tool("x", "...", work)).
func allFuncs(info *buildssa.SSA) []*ssa.Function {
	fns := srcFuncs(info)
	if init := info.Pkg.Func("init"); init != nil {
		fns = append(fns, init)
	}
	return fns
}
