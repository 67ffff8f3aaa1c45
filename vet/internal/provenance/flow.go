package provenance

import (
	"go/constant"
	"go/token"
	"go/types"
	"iter"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/callgraph"
	"golang.org/x/tools/go/ssa"
)

// kind is where an error comes from.
type kind uint8

const (
	// own: made by errors.New or fmt.Errorf (no error inside) from the
	// server's own text: a message for the model, which mcperr masks.
	own kind = iota + 1
	// kept: a ToolError, a domain error or another error of mcperr's, which
	// the model reads.
	kept
	// foreign: a library's or an upstream's error.
	foreign
	// param: the function's parameter i (a summary's placeholder).
	param
	// sdk: an SDK's own error naming a tool's argument (mcp-go's
	// RequireString): not another's text, and not the server's words.
	sdk
	// typed: an error type of the module, made at alloc.
	typed
	// argErr: a library's error about the tool's own arguments, from a
	// call given only the server's own values (strconv.Atoi(args.Limit),
	// a query language's parser): the model read it, and mcperr masks it
	// unless the server declares its type public (filter.Public).
	argErr
	// flat: an error the model would read (a ToolError, a library's error
	// about the arguments) formatted into a new plain error with %v or %s
	// (fmt.Errorf("invalid id: %v", err)): the chain ends there, and mcperr
	// masks the wrapper; %w keeps it.
	flat
	// wrap: fmt.Errorf of the server's own words around an error, the
	// error last (fmt.Errorf("failed to search issues: %v", err)), or
	// around another's text, the text last (fmt.Errorf("API request
	// failed with status %d: %s", resp.StatusCode, resp.Status)): mcperr
	// masks the words with the error or the text.
	wrap
)

// origin is one place an error a handler returns is made.
type origin struct {
	kind  kind
	call  *ssa.Call  // own: errors.New or fmt.Errorf
	alloc *ssa.Alloc // typed: where the error is made
	deps  []int      // own: the parameters of at the text is made of
	at    *ssa.Function
	fn    *ssa.Function
	i     int       // param; flat: the argument of the format that is the error
	inner kind      // flat: what the wrapper formats
	lib   *ssa.Call // flat: the library's call whose error it formats
	text  textArg   // wrap: the last argument is another's text, not an error
}

// textArg is the type of the text a wrapper formats last.
type textArg int8

const (
	noText    textArg = iota // an error
	stringArg                // a string
	convArg                  // a []byte or a string of a named type: string(x)
)

type sumKey struct {
	fn  *ssa.Function
	idx int
}

// flow follows values through a program; its memos live as long as it.
type flow struct {
	p        *program
	roots    map[*ssa.Function]bool // tool handlers: their parameters are the tool's
	sums     map[sumKey][]origin
	textSums map[sumKey]textSum
	params   map[*ssa.Parameter]bool
	paramWhy map[*ssa.Parameter]textVerdict
	visiting map[any]bool

	causes      []origin           // the origins of the causes given to ToolErrors
	notOwn      map[*ssa.Call]bool // errors.New and fmt.Errorf whose text holds another's
	notModel    map[*ssa.Call]bool // own messages some call fills with another's values
	assume      *ssa.Function      // textIn: whose parameters are taken as own
	deps        map[int]bool       // textIn: those the verdict depends on
	fieldStores map[fieldKey][]*ssa.Store
	allStores   map[fieldKey][]*ssa.Store
	fieldTexts  map[fieldKey]textVerdict
	fieldSums   map[fieldKey][]origin
}

func newFlow(p *program) *flow {
	f := &flow{p: p, roots: map[*ssa.Function]bool{}, sums: map[sumKey][]origin{},
		textSums: map[sumKey]textSum{}, fieldSums: map[fieldKey][]origin{}, fieldTexts: map[fieldKey]textVerdict{}, notOwn: map[*ssa.Call]bool{}, notModel: map[*ssa.Call]bool{}, params: map[*ssa.Parameter]bool{}, paramWhy: map[*ssa.Parameter]textVerdict{}, visiting: map[any]bool{}}
	for _, fn := range p.funcs {
		if isHandler(fn) {
			f.roots[fn] = true
		}
	}
	return f
}

// returned returns the values fn returns at result idx.
func returned(fn *ssa.Function, idx int) []ssa.Value {
	var out []ssa.Value
	for _, b := range fn.Blocks {
		if r, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok && idx < len(r.Results) {
			out = append(out, r.Results[idx])
		}
	}
	return out
}

// summary returns the origins of the errors fn returns at idx, its
// parameters as placeholders.
func (f *flow) summary(fn *ssa.Function, idx int) []origin {
	k := sumKey{fn, idx}
	if s, ok := f.sums[k]; ok {
		return s
	}
	f.sums[k] = nil // a recursive call adds nothing of its own
	var out []origin
	seen := map[ssa.Value]bool{}
	for _, v := range returned(fn, idx) {
		out = append(out, f.trace(fn, v, seen)...)
	}
	f.sums[k] = out
	return out
}

// trace returns the origins of the error v in fn.
func (f *flow) trace(fn *ssa.Function, v ssa.Value, seen map[ssa.Value]bool) []origin {
	if seen[v] {
		return nil
	}
	seen[v] = true
	switch v := v.(type) {
	case *ssa.Const:
		return nil
	case *ssa.Parameter:
		for i, p := range fn.Params {
			if p == v {
				return []origin{{kind: param, i: i, fn: fn}}
			}
		}
	case *ssa.Phi:
		var out []origin
		for _, e := range v.Edges {
			out = append(out, f.trace(fn, e, seen)...)
		}
		return out
	case *ssa.MakeInterface:
		if pkg, _ := named(v.X.Type()); publicType(v.X.Type()) || strings.HasPrefix(pkg, mcperrPrefix) {
			if c, ok := v.X.(*ssa.Call); ok && strings.HasPrefix(pkg, mcperrPrefix) {
				f.call(fn, c, 0, seen) // its cause, if it has one
			}
			return []origin{{kind: kept}}
		}
		if os := f.trace(fn, v.X, seen); len(os) > 0 {
			return os
		}
		return []origin{{kind: foreign}}
	case *ssa.Alloc:
		if f.p.errorType(v.Type()) != nil {
			// &InputError{Field: name, Msg: "..."}: a typed error of the
			// module, its text made by its Error method.
			return []origin{{kind: typed, fn: fn, alloc: v}}
		}
	case *ssa.ChangeInterface:
		return f.trace(fn, v.X, seen)
	case *ssa.TypeAssert:
		return f.trace(fn, v.X, seen)
	case *ssa.Extract:
		if c, ok := v.Tuple.(*ssa.Call); ok {
			return f.call(fn, c, v.Index, seen)
		}
	case *ssa.Call:
		return f.call(fn, v, 0, seen)
	case *ssa.UnOp:
		if v.Op == token.MUL {
			if fa, ok := v.X.(*ssa.FieldAddr); ok {
				return f.fieldOrigins(fa.X.Type(), fa.Field)
			}
			return f.stored(fn, v.X, seen)
		}
	case *ssa.Field:
		return f.fieldOrigins(v.X.Type(), v.Field)
	}
	return nil
}

// fieldKey names a field of a struct type of the module.
type fieldKey struct {
	typ   string
	field int
}

func keyOf(t types.Type, field int) fieldKey {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	return fieldKey{types.TypeString(t, nil), field}
}

// fieldOrigins returns the origins of the errors the module stores in a
// field, wherever it does (&api.ToolCallResult{Error: err}, a constructor
// that stores its argument there): a framework's result that carries a
// handler's failure to the SDK's answer.
func (f *flow) fieldOrigins(t types.Type, field int) []origin {
	if f.fieldStores == nil {
		f.fieldStores = map[fieldKey][]*ssa.Store{}
		for _, fn := range f.p.funcs {
			for _, b := range fn.Blocks {
				for _, in := range b.Instrs {
					if st, ok := in.(*ssa.Store); ok {
						if fa, ok := st.Addr.(*ssa.FieldAddr); ok && isErrorValue(st.Val) {
							k := keyOf(fa.X.Type(), fa.Field)
							f.fieldStores[k] = append(f.fieldStores[k], st)
						}
					}
				}
			}
		}
	}
	k := keyOf(t, field)
	if os, ok := f.fieldSums[k]; ok {
		return os
	}
	f.fieldSums[k] = nil // a store of the field's own value adds nothing
	var out []origin
	for _, st := range f.fieldStores[k] {
		out = append(out, f.traceOut(st.Parent(), st.Val)...)
	}
	f.fieldSums[k] = out
	return out
}

// traceOut returns the origins of the error v in fn, a parameter's
// followed to what fn's callers give it.
func (f *flow) traceOut(fn *ssa.Function, v ssa.Value) []origin {
	var out []origin
	for _, o := range f.trace(fn, v, map[ssa.Value]bool{}) {
		if o.kind == param {
			out = append(out, f.atCallers(o.fn, o.i)...)
			continue
		}
		out = append(out, o)
	}
	return out
}

// callArgs yields each call of fn in a function the pass follows, with
// the argument it gives as fn's parameter i (the receiver is 0 for an
// interface method's call).
func (f *flow) callArgs(fn *ssa.Function, i int) iter.Seq2[*callgraph.Edge, ssa.Value] {
	return func(yield func(*callgraph.Edge, ssa.Value) bool) {
		for _, e := range f.p.callers(fn) {
			if e.Site == nil || e.Caller.Func == nil || !f.p.followable(e.Caller.Func) {
				continue
			}
			c := e.Site.Common()
			args := c.Args
			if c.IsInvoke() {
				args = append([]ssa.Value{c.Value}, args...)
			}
			if i < len(args) && !yield(e, args[i]) {
				return
			}
		}
	}
}

// atCallers returns the origins of the errors that the module's calls of
// fn give as its parameter i.
func (f *flow) atCallers(fn *ssa.Function, i int) []origin {
	k := sumKey{fn, -1 - i}
	if os, ok := f.sums[k]; ok {
		return os
	}
	f.sums[k] = nil
	var out []origin
	for e, arg := range f.callArgs(fn, i) {
		out = append(out, f.traceOut(e.Caller.Func, arg)...)
	}
	f.sums[k] = out
	return out
}

// stored returns the origins of the errors stored at addr: a package
// variable of the module (a sentinel), a local variable.
func (f *flow) stored(fn *ssa.Function, addr ssa.Value, seen map[ssa.Value]bool) []origin {
	switch a := addr.(type) {
	case *ssa.Global:
		if !f.p.own[a.Pkg] {
			return []origin{{kind: foreign}}
		}
		var out []origin
		for _, st := range f.storesTo(a.Pkg.Func("init"), a) {
			out = append(out, f.trace(a.Pkg.Func("init"), st, map[ssa.Value]bool{})...)
		}
		return out
	case *ssa.Alloc:
		var out []origin
		for _, st := range f.storesTo(fn, a) {
			out = append(out, f.trace(fn, st, seen)...)
		}
		return out
	}
	return nil
}

// storesTo returns the values fn stores at addr.
func (f *flow) storesTo(fn *ssa.Function, addr ssa.Value) []ssa.Value {
	if fn == nil {
		return nil
	}
	var out []ssa.Value
	for _, b := range fn.Blocks {
		for _, in := range b.Instrs {
			if st, ok := in.(*ssa.Store); ok && st.Addr == addr {
				out = append(out, st.Val)
			}
		}
	}
	return out
}

// call returns the origins of the error result idx of call.
func (f *flow) call(fn *ssa.Function, c *ssa.Call, idx int, seen map[ssa.Value]bool) []origin {
	common := c.Common()
	if common.IsInvoke() {
		if m := common.Method.Name(); m == "Err" || m == "Cause" { // ctx.Err(): mcperr answers a cancelled call
			if pkg, _ := named(common.Value.Type()); pkg == "context" {
				return nil
			}
		}
	}
	callee := common.StaticCallee()
	if callee != nil && !f.p.followable(callee) {
		return f.external(fn, c, callee, seen)
	}
	callees := []*ssa.Function{callee}
	if callee == nil || callee.Blocks == nil {
		callees = f.p.callees(fn, c)
	}
	if len(callees) == 0 {
		if pkg, _ := named(common.Signature().Results().At(idx).Type()); strings.HasPrefix(pkg, mcperrPrefix) {
			return []origin{{kind: kept}}
		}
		return []origin{{kind: foreign}}
	}
	args := common.Args
	if common.IsInvoke() {
		args = append([]ssa.Value{common.Value}, args...)
	}
	var out []origin
	for _, g := range callees {
		for _, o := range f.summary(g, idx) {
			if o.kind == own && len(o.deps) > 0 {
				out = append(out, f.given(fn, o, args))
				continue
			}
			if o.kind != param {
				out = append(out, o)
				continue
			}
			if o.i < len(args) && isError(args[o.i].Type()) {
				out = append(out, f.trace(fn, args[o.i], seen)...)
			}
		}
	}
	return out
}

// given returns o, a message of a called function made of its parameters
// deps, as this call's arguments make it: the server's own, its
// dependencies now the caller's parameters, or, where an argument is
// another's, not the model's here (notModel).
func (f *flow) given(fn *ssa.Function, o origin, args []ssa.Value) origin {
	var deps []int
	for _, d := range o.deps {
		if d >= len(args) {
			return origin{kind: foreign}
		}
		t, ds := f.textIn(fn, args[d])
		if !t.own {
			f.notModel[o.call] = true
			return origin{kind: foreign}
		}
		deps = append(deps, ds...)
	}
	o.deps, o.at = deps, fn
	return o
}

// external returns the origins of an error another package's function
// returns.
func (f *flow) external(fn *ssa.Function, c *ssa.Call, callee *ssa.Function, seen map[ssa.Value]bool) []origin {
	pkg, name := funcPath(callee)
	args := c.Common().Args
	switch {
	case pkg == toolerrPath && name == "Wrap" && callee.Signature.Recv() == nil && len(args) == 2:
		f.causes = append(f.causes, f.trace(fn, args[0], seen)...) // read after the words where public
		return []origin{{kind: kept}}
	case strings.HasPrefix(pkg, mcperrPrefix):
		if callee.Signature.Recv() != nil && len(args) > 0 {
			// A ToolError's With method: the ToolError it copies may have
			// a cause, and the model reads a public error in a cause as a
			// hint, so a message of the server's own there is one to keep.
			f.trace(fn, args[0], seen)
			if name == "WithCause" && len(args) == 2 {
				f.causes = append(f.causes, f.trace(fn, args[1], seen)...)
			}
		}
		return []origin{{kind: kept}}
	case sdkRequest(callee):
		return []origin{{kind: sdk}}
	case pkg == "errors" && name == "New":
		t, deps := f.textIn(fn, args[0])
		if t.own {
			return []origin{{kind: own, call: c, fn: fn, at: fn, deps: deps}}
		}
		if !t.unknown {
			f.notOwn[c] = true // another's text: a fix must not make it the model's
		}
		return []origin{{kind: foreign}}
	case pkg == "errors" && name == "Join":
		var out []origin
		for _, a := range variadic(args[0]) {
			out = append(out, f.trace(fn, a, seen)...)
		}
		return out
	case pkg == "fmt" && name == "Errorf":
		format, ok := constString(args[0])
		if !ok {
			return []origin{{kind: foreign}}
		}
		vs := variadic(args[1])
		var wrapped []origin
		var deps []int
		textOwn, known := true, true
		restOwn := true // the arguments that are not errors
		for _, a := range vs {
			if u := unwrapIface(a); isErrorValue(u) {
				os := f.trace(fn, u, seen)
				if k, ok := u.(*ssa.Const); len(os) == 0 && !(ok && k.IsNil()) {
					os = []origin{{kind: foreign}} // an error the pass cannot follow
				}
				wrapped = append(wrapped, os...)
				for _, o := range os {
					textOwn = textOwn && (o.kind == own || o.kind == kept || o.kind == sdk)
				}
				continue
			}
			t, ds := f.textIn(fn, a)
			textOwn, known = textOwn && t.own, known && (t.own || !t.unknown)
			restOwn = restOwn && t.own
			deps = append(deps, ds...)
		}
		if !textOwn && known {
			f.notOwn[c] = true // its text holds another's: a fix must not make it the model's
		}
		if len(vs) == 0 && !isNilSlice(args[1]) {
			textOwn = false
		}
		if len(wrapped) == 0 && !strings.Contains(format, "%w") {
			if textOwn {
				return []origin{{kind: own, call: c, fn: fn, at: fn, deps: deps}}
			}
			if o, ok := f.textWrapper(fn, c, format, vs); ok {
				return []origin{o}
			}
			return []origin{{kind: foreign}}
		}
		if os, ok := f.flattenedOwn(fn, c, format, wrapped, restOwn && len(vs) > 0, deps); ok {
			return os
		}
		if os, ok := f.wrapper(fn, c, format, vs, wrapped, restOwn, deps); ok {
			return os
		}
		if !strings.Contains(format, "%w") {
			return f.flattened(fn, c, vs, wrapped, restOwn && len(vs) > 0)
		}
		// A wrapper: what the model may read is what it wraps.
		return wrapped
	}
	if f.argsOwn(fn, c) {
		return []origin{{kind: argErr, call: c, fn: fn}}
	}
	return []origin{{kind: foreign}}
}

// flattenedOwn returns the origin of fmt.Errorf without %w given errors
// (fmt.Errorf("invalid time_spent format: %v", err)) whose text is the
// server's own: every error it formats is (a message of the module, an
// SDK's naming an argument) and so are its other arguments. It is a new
// plain error, a message of its own.
func (f *flow) flattenedOwn(fn *ssa.Function, c *ssa.Call, format string, wrapped []origin, restOwn bool, deps []int) ([]origin, bool) {
	if strings.Contains(format, "%w") || !restOwn {
		return nil, false
	}
	for _, o := range wrapped {
		switch {
		case o.kind == own && len(o.deps) > 0 && o.at != fn:
			return nil, false // a message a field or a variable holds: decided where it is made
		case o.kind == own:
			deps = append(deps, o.deps...)
		case o.kind == sdk:
		default:
			return nil, false
		}
	}
	slices.Sort(deps)
	return []origin{{kind: own, call: c, fn: fn, at: fn, deps: slices.Compact(deps)}}, true
}

// wrapper returns, for fmt.Errorf of the server's own words around an
// error, the error its last argument (fmt.Errorf("failed to search
// issues: %v", err)), the wrapper's origin, then what it wraps. mcperr
// masks the words: with another's error (a library's, an upstream's) it
// masks the whole, and with one the model reads (a ToolError, a domain
// error, a message of the module) it answers with that error alone.
// toolerr.Wrap of the words over the error keeps them, before what the
// model reads of the error.
func (f *flow) wrapper(fn *ssa.Function, c *ssa.Call, format string, vs []ssa.Value, wrapped []origin, restOwn bool, deps []int) ([]origin, bool) {
	if !restOwn || len(vs) == 0 || !isErrorValue(unwrapIface(vs[len(vs)-1])) {
		return nil, false
	}
	for _, v := range vs[:len(vs)-1] {
		if isErrorValue(unwrapIface(v)) {
			return nil, false
		}
	}
	if _, ok := wrapperWords(strconv.Quote(format), len(vs)); !ok {
		return nil, false
	}
	return append([]origin{{kind: wrap, call: c, fn: fn, at: fn, deps: deps}}, wrapped...), true
}

// flattened returns the origin of fmt.Errorf without %w given errors,
// whose text is not all the server's own: a wrapper of an error the
// model would read otherwise (a ToolError, a library's error about the
// arguments, which filter.Public can declare public) is flat, which %w
// mends; one of another's text is another's.
func (f *flow) flattened(fn *ssa.Function, c *ssa.Call, vs []ssa.Value, wrapped []origin, restOwn bool) []origin {
	var inner *origin
	for _, o := range wrapped {
		switch {
		case o.kind == own && len(o.deps) > 0 && o.at != fn, o.kind == typed:
			// A message a field or a variable holds, an error type of the
			// module: decided where it is made; once it is public, %w.
			return wrapped
		case o.kind == own, o.kind == sdk:
		case o.kind == kept || o.kind == argErr:
			if inner == nil {
				inner = &o
			}
		default:
			return []origin{{kind: foreign}}
		}
	}
	if inner == nil || !restOwn {
		return []origin{{kind: foreign}}
	}
	i := -1 // the one error it formats, or none to mend mechanically
	for j, v := range vs {
		if isErrorValue(unwrapIface(v)) {
			if i >= 0 {
				i = -1
				break
			}
			i = j
		}
	}
	return []origin{{kind: flat, call: c, fn: fn, i: i, inner: inner.kind, lib: inner.call}}
}

// textWrapper returns, for fmt.Errorf of the server's own words around
// another's text, the text last (a response's status or body), the
// wrapper's origin: mcperr masks the words with the text, and
// toolerr.Wrap of the words over an error of the text keeps them, the
// text for the log.
func (f *flow) textWrapper(fn *ssa.Function, c *ssa.Call, format string, vs []ssa.Value) (origin, bool) {
	if len(vs) == 0 {
		return origin{}, false
	}
	if _, ok := wrapperWords(strconv.Quote(format), len(vs)); !ok {
		return origin{}, false
	}
	last := unwrapIface(vs[len(vs)-1])
	arg := noText
	switch u := last.Type().Underlying().(type) {
	case *types.Basic:
		if u.Info()&types.IsString != 0 {
			arg = stringArg
			if !types.Identical(last.Type(), types.Typ[types.String]) {
				arg = convArg // protocol.DocumentURI: errors.New takes a string
			}
		}
	case *types.Slice:
		if b, ok := u.Elem().Underlying().(*types.Basic); ok && b.Kind() == types.Byte {
			arg = convArg
		}
	}
	if arg == noText {
		return origin{}, false
	}
	var deps []int
	for _, v := range vs[:len(vs)-1] {
		t, ds := f.textIn(fn, v)
		if !t.own || isErrorValue(unwrapIface(v)) {
			return origin{}, false
		}
		deps = append(deps, ds...)
	}
	return origin{kind: wrap, call: c, fn: fn, at: fn, deps: deps, text: arg}, true
}

// argsOwn reports whether every argument of c, its receiver included, is
// the server's own and c's error is what a parser says of them.
func (f *flow) argsOwn(fn *ssa.Function, c *ssa.Call) bool {
	common := c.Common()
	if common.IsInvoke() || len(common.Args) == 0 {
		return false
	}
	if pkg, name := funcPath(common.StaticCallee()); !strings.Contains(pkg, ".") && (!parses(c) || strings.HasPrefix(name, "Marshal")) {
		return false // the standard library: only its parsers speak of their input
	}
	given := false // a value, not only constants
	for _, a := range common.Args {
		if t := f.text(fn, a, 0); !t.own {
			return false
		}
		if _, ok := unwrapIface(a).(*ssa.Const); !ok {
			given = true
		}
	}
	return given
}

// publicType reports whether t is an error type of the module's that says
// it is public: it has PublicMessage and ErrorCode methods.
func publicType(t types.Type) bool {
	return hasMethod(t, "PublicMessage")
}

func hasMethod(t types.Type, name string) bool {
	if _, ok := t.Underlying().(*types.Pointer); !ok {
		t = types.NewPointer(t)
	}
	ms := types.NewMethodSet(t)
	for i := range ms.Len() {
		if ms.At(i).Obj().Name() == name {
			return true
		}
	}
	return false
}

func isErrorValue(v ssa.Value) bool {
	return types.Implements(v.Type(), errorType.Underlying().(*types.Interface)) && !isString(v.Type())
}

func isString(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsString != 0
}

// unwrapIface returns what v converts to an interface, as fmt's ...any
// arguments are made.
func unwrapIface(v ssa.Value) ssa.Value {
	switch x := v.(type) {
	case *ssa.MakeInterface:
		return x.X
	case *ssa.ChangeInterface:
		return x.X
	}
	return v
}

// variadic returns the values of a ...T argument, or nil when they cannot
// be seen.
func variadic(v ssa.Value) []ssa.Value {
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
		ia, ok := r.(*ssa.IndexAddr)
		if !ok {
			continue
		}
		for _, rr := range *ia.Referrers() {
			if st, ok := rr.(*ssa.Store); ok && st.Addr == ia {
				out = append(out, st.Val)
			}
		}
	}
	return out
}

func isNilSlice(v ssa.Value) bool {
	c, ok := v.(*ssa.Const)
	return ok && c.Value == nil
}

func constString(v ssa.Value) (string, bool) {
	c, ok := v.(*ssa.Const)
	if !ok || c.Value == nil || c.Value.Kind() != constant.String {
		return "", false
	}
	return constant.StringVal(c.Value), true
}
