package provenance

import (
	"go/token"
	"go/types"
	"maps"
	"slices"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// textVerdict is what textOwn found: own, and if not, why (for a report).
type textVerdict struct {
	own bool
	why string // what the first of another's values is, where it is not own
	// errorText says the value of another's is an error's text, which a
	// fix may keep as a ToolError's cause.
	errorText bool
	// unknown says the value could not be followed.
	unknown bool
	// at is where another's text enters, when that is not where it is
	// used: the call of a helper that fills its argument with it.
	at token.Pos
}

// textSum is what a function returns, as resultText decides it.
type textSum struct {
	verdict textVerdict
	deps    []int
}

// textIn decides v of fn taking fn's parameters as the server's own, and
// returns which of them the verdict depends on: a message of a helper
// (ErrRequiredString(name)) is the server's own where each call gives
// it the server's own values, whatever other calls give it.
func (f *flow) textIn(fn *ssa.Function, v ssa.Value) (textVerdict, []int) {
	saved, savedDeps := f.assume, f.deps
	f.assume, f.deps = fn, map[int]bool{}
	t := f.text(fn, v, 0)
	deps := slices.Sorted(maps.Keys(f.deps))
	f.assume, f.deps = saved, savedDeps
	return t, deps
}

var ownText = textVerdict{own: true}

func another(why string) textVerdict { return textVerdict{why: why} }

// unknownText is a value the pass cannot follow: not shown to be the
// server's own, nor another's.
func unknownText(why string) textVerdict { return textVerdict{why: why, unknown: true} }

// text decides whether v is the server's own: constants, numbers, the
// tool's arguments and what pure functions make of them.
func (f *flow) text(fn *ssa.Function, v ssa.Value, depth int) textVerdict {
	if depth > 40 {
		return unknownText("a value followed too far")
	}
	if plain(v.Type()) {
		return ownText // a number or a boolean says nothing of another's
	}
	if isErrorValue(v) && types.IsInterface(v.Type()) {
		return f.errText(fn, v) // an error formatted: its text
	}
	if f.visiting[v] {
		return ownText // a loop: its other values decide
	}
	f.visiting[v] = true
	defer delete(f.visiting, v)
	all := func(vs ...ssa.Value) textVerdict {
		for _, x := range vs {
			if t := f.text(fn, x, depth+1); !t.own {
				return t
			}
		}
		return ownText
	}
	switch v := v.(type) {
	case *ssa.Const:
		return ownText
	case *ssa.Parameter:
		return f.paramText(fn, v, depth)
	case *ssa.FreeVar:
		return f.freeVarText(fn, v, depth)
	case *ssa.Phi:
		return all(v.Edges...)
	case *ssa.BinOp:
		return all(v.X, v.Y)
	case *ssa.Convert:
		return all(v.X)
	case *ssa.ChangeType:
		return all(v.X)
	case *ssa.MakeInterface:
		return all(v.X)
	case *ssa.ChangeInterface:
		return all(v.X)
	case *ssa.TypeAssert:
		return all(v.X)
	case *ssa.Slice:
		return all(v.X)
	case *ssa.Field:
		return f.fieldText(fn, v.X, v.Field, depth)
	case *ssa.FieldAddr:
		if a, ok := v.X.(*ssa.Alloc); ok {
			return f.allocText(fn, a, v.Field, depth)
		}
		return f.fieldText(fn, v.X, v.Field, depth)
	case *ssa.Index:
		return all(v.X)
	case *ssa.IndexAddr:
		return all(v.X)
	case *ssa.Lookup:
		return all(v.X)
	case *ssa.Extract:
		return all(v.Tuple)
	case *ssa.UnOp:
		if v.Op != token.MUL {
			return all(v.X)
		}
		switch a := v.X.(type) {
		case *ssa.Global:
			if !f.p.own[a.Pkg] {
				return another("a variable of package " + a.Pkg.Pkg.Path())
			}
			return all(f.storesTo(a.Pkg.Func("init"), a)...)
		case *ssa.Alloc:
			return f.allocText(fn, a, -1, depth)
		}
		return all(v.X)
	case *ssa.Alloc:
		return f.allocText(fn, v, -1, depth)
	case *ssa.MakeMap:
		return f.allocText(fn, v, -1, depth)
	case *ssa.MakeSlice:
		return f.allocText(fn, v, -1, depth)
	case *ssa.Call:
		return f.callText(fn, v, depth)
	}
	return unknownText("a value the migration cannot follow")
}

// allocText decides a local variable, a literal or, with field >= 0, one
// field of a local struct: as what the function stores there, unless a
// call fills it (json.Unmarshal(body, &v), a reader's Read).
func (f *flow) allocText(fn *ssa.Function, a ssa.Value, field, depth int) textVerdict {
	var vs []ssa.Value
	var fill func(ssa.Value) textVerdict
	fill = func(x ssa.Value) textVerdict {
		refs := x.Referrers()
		if refs == nil {
			return ownText
		}
		for _, r := range *refs {
			switch r := r.(type) {
			case *ssa.Store:
				if r.Addr == x {
					vs = append(vs, r.Val)
				}
			case *ssa.MapUpdate:
				if r.Map == x {
					vs = append(vs, r.Key, r.Value)
				}
			case *ssa.IndexAddr:
				if t := fill(r); !t.own {
					return t
				}
			case *ssa.FieldAddr:
				if field < 0 || r.Field == field {
					if t := fill(r); !t.own {
						return t
					}
				}
			case *ssa.Slice:
				if t := fill(r); !t.own {
					return t
				}
			case *ssa.Call:
				if t := f.filledBy(fn, r, x, depth); !t.own {
					return t
				}
			case *ssa.MakeInterface:
				for _, rr := range *r.Referrers() {
					c, ok := rr.(*ssa.Call)
					if !ok {
						return unknownText("a value given away as an interface")
					}
					if t := f.filledBy(fn, c, r, depth); !t.own {
						return t
					}
				}
			}
		}
		return ownText
	}
	if t := fill(a); !t.own {
		return t
	}
	for _, v := range vs {
		if t := f.text(fn, v, depth+1); !t.own {
			return t
		}
	}
	return ownText
}

// filledBy decides what the call c may store through x, one of its
// arguments: a pure function of the standard library (json.Unmarshal)
// fills it from its other arguments; anything else, a function of the
// module included (c.get(ctx, url, &out)), with another's.
func (f *flow) filledBy(fn *ssa.Function, c *ssa.Call, x ssa.Value, depth int) textVerdict {
	common := c.Common()
	callee := common.StaticCallee()
	if sig := common.Signature(); sig.Variadic() && len(common.Args) > 0 && common.Args[len(common.Args)-1] == x {
		return ownText // a ...T argument's slice, made for the call, which reads it
	}
	_, builtin := common.Value.(*ssa.Builtin)
	if !builtin && (callee == nil || f.p.ownFunc(callee)) {
		return another("a value a call fills")
	}
	if pkg, name := funcPath(callee); !builtin && !pure(pkg, name, callee) && !sdkRequest(callee) {
		return another("a value " + shortPkg(pkg) + "." + name + " fills")
	}
	for _, a := range c.Common().Args {
		if a == x {
			continue
		}
		if t := f.text(fn, a, depth+1); !t.own {
			return t
		}
	}
	return ownText
}

// plain reports whether t is a number or a boolean.
func plain(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&(types.IsNumeric|types.IsBoolean) != 0
}

// fieldText decides a field of base: the tool's arguments' fields are the
// tool's; a field of anything else (a client's DSN, a response's Status)
// is another's.
func (f *flow) fieldText(fn *ssa.Function, base ssa.Value, field, depth int) textVerdict {
	t := f.text(fn, base, depth+1)
	if !t.own {
		// A value of the module's own type, made elsewhere (a result of
		// the server's own facade): as the module fills that field.
		if v, ok := f.storedText(base.Type(), field, depth); ok {
			return v
		}
	}
	if !t.own {
		// Not the tool's arguments: the server's state (a client's DSN,
		// a configured region) or another's (a response's Status).
		if pkg, name := named(base.Type()); name != "" {
			t.why = "a field of " + shortPkg(pkg) + "." + name + ", which is not the tool's arguments"
		}
		return t
	}
	return ownText
}

// storedText decides a field of a struct type of the module by every value
// the module stores in it; false when it stores none.
func (f *flow) storedText(t types.Type, field, depth int) (textVerdict, bool) {
	k := keyOf(t, field)
	if pkg, _ := named(t); pkg == "" || !strings.HasPrefix(pkg, f.p.module) || f.p.module == "" {
		return textVerdict{}, false
	}
	if v, ok := f.fieldTexts[k]; ok {
		return v, true
	}
	if f.allStores == nil {
		f.allStores = map[fieldKey][]*ssa.Store{}
		for _, fn := range f.p.funcs {
			for _, b := range fn.Blocks {
				for _, in := range b.Instrs {
					if st, ok := in.(*ssa.Store); ok {
						if fa, ok := st.Addr.(*ssa.FieldAddr); ok {
							k := keyOf(fa.X.Type(), fa.Field)
							f.allStores[k] = append(f.allStores[k], st)
						}
					}
				}
			}
		}
	}
	stores := f.allStores[k]
	if len(stores) == 0 {
		return textVerdict{}, false
	}
	f.fieldTexts[k] = ownText // a store of the field's own value adds nothing
	v := ownText
	for _, st := range stores {
		if t := f.text(st.Parent(), st.Val, depth+1); !t.own {
			v = t
			if !t.at.IsValid() {
				v.at = st.Pos()
			}
			break
		}
	}
	f.fieldTexts[k] = v
	return v, true
}

// paramText decides a parameter: a tool handler's are the tool's own; any
// other function's are as the values its callers give it.
func (f *flow) paramText(fn *ssa.Function, p *ssa.Parameter, depth int) textVerdict {
	if f.roots[fn] {
		return ownText
	}
	if f.assume == fn {
		// Decided where fn is called: each call's own argument.
		f.deps[slices.Index(fn.Params, p)] = true
		return ownText
	}
	if v, ok := f.params[p]; ok {
		if v {
			return ownText
		}
		if t, ok := f.paramWhy[p]; ok {
			return t
		}
		return unknownText("an argument of " + fn.Name())
	}
	i := -1
	for j, q := range fn.Params {
		if q == p {
			i = j
		}
	}
	edges := f.p.callers(fn)
	if len(edges) == 0 || i < 0 {
		f.params[p] = false
		return unknownText("an argument of " + fn.Name() + ", which nothing in the module calls")
	}
	f.params[p] = true // a recursive call adds nothing of its own
	bad := unknownText("an argument of " + fn.Name())
	for _, e := range edges {
		if e.Site == nil || e.Caller.Func == nil || !f.p.followable(e.Caller.Func) {
			f.params[p] = false
			break
		}
		c := e.Site.Common()
		args := c.Args
		if c.IsInvoke() {
			args = append([]ssa.Value{c.Value}, args...)
		}
		if i >= len(args) {
			f.params[p] = false
			break
		}
		if t := f.text(e.Caller.Func, args[i], depth+1); !t.own {
			f.params[p] = false
			bad = t
			if !bad.at.IsValid() {
				bad.at = e.Site.Pos()
			}
			bad.why = "an argument of " + fn.Name() + " that a caller fills with " + t.why
			break
		}
	}
	if f.params[p] {
		return ownText
	}
	f.paramWhy[p] = bad
	return bad
}

// freeVarText decides a closure's captured variable by what its maker
// binds.
func (f *flow) freeVarText(fn *ssa.Function, fv *ssa.FreeVar, depth int) textVerdict {
	parent := fn.Parent()
	if parent == nil {
		return unknownText("a captured variable")
	}
	i := -1
	for j, x := range fn.FreeVars {
		if x == fv {
			i = j
		}
	}
	found := false
	for _, b := range parent.Blocks {
		for _, in := range b.Instrs {
			mc, ok := in.(*ssa.MakeClosure)
			if !ok || mc.Fn != fn || i >= len(mc.Bindings) {
				continue
			}
			found = true
			if t := f.text(parent, mc.Bindings[i], depth+1); !t.own {
				return t
			}
		}
	}
	if !found {
		return unknownText("a captured variable")
	}
	return ownText
}

// callText decides a call's result.
func (f *flow) callText(fn *ssa.Function, c *ssa.Call, depth int) textVerdict {
	common := c.Common()
	args := common.Args
	if b, ok := common.Value.(*ssa.Builtin); ok {
		switch b.Name() {
		case "append", "copy", "min", "max":
			for _, a := range args {
				if t := f.text(fn, a, depth+1); !t.own {
					return t
				}
			}
			return ownText
		}
		return another("what the builtin " + b.Name() + " returns")
	}
	if common.IsInvoke() {
		args = append([]ssa.Value{common.Value}, args...)
		if common.Method.Name() == "Error" && len(common.Args) == 0 {
			return f.errText(fn, common.Value)
		}
	}
	callee := common.StaticCallee()
	if callee != nil && !f.p.followable(callee) {
		pkg, name := funcPath(callee)
		if name == "Error" && callee.Signature.Recv() != nil && len(args) == 1 {
			return f.errText(fn, args[0])
		}
		if pure(pkg, name, callee) || sdkRequest(callee) {
			for _, a := range args {
				if t := f.text(fn, a, depth+1); !t.own {
					return t
				}
			}
			return ownText
		}
		if pkg == "io" && name == "ReadAll" || strings.HasSuffix(name, "Body") {
			return another("a response's body read with " + shortPkg(pkg) + "." + name)
		}
		return another("what " + shortPkg(pkg) + "." + name + " returns")
	}
	callees := []*ssa.Function{callee}
	if callee == nil || callee.Blocks == nil {
		callees = f.p.callees(fn, c)
	}
	if len(callees) == 0 {
		return unknownText("what a call the migration cannot resolve returns")
	}
	// Each callee's results, its parameters taken as the server's own, and
	// then this call's arguments for the parameters they are made of.
	for _, g := range callees {
		t, deps := f.resultText(g)
		if !t.own {
			return t
		}
		for _, d := range deps {
			if d >= len(args) {
				return unknownText("an argument the migration cannot follow")
			}
			if t := f.text(fn, args[d], depth+1); !t.own {
				return t
			}
		}
	}
	return ownText
}

// resultText decides what g returns, its parameters taken as the server's
// own, and which of them that depends on.
func (f *flow) resultText(g *ssa.Function) (textVerdict, []int) {
	k := sumKey{g, 0}
	if s, ok := f.textSums[k]; ok {
		return s.verdict, s.deps
	}
	f.textSums[k] = textSum{verdict: ownText} // a recursive call adds nothing of its own
	var deps []int
	verdict := ownText
	for i := range g.Signature.Results().Len() {
		for _, r := range returned(g, i) {
			t, ds := f.textIn(g, r)
			if !t.own {
				verdict, deps = t, nil
				break
			}
			deps = append(deps, ds...)
		}
		if !verdict.own {
			break
		}
	}
	slices.Sort(deps)
	deps = slices.Compact(deps)
	f.textSums[k] = textSum{verdict, deps}
	return verdict, deps
}

// errText decides an error's text: the server's own when every origin of
// the error is.
func (f *flow) errText(fn *ssa.Function, err ssa.Value) textVerdict {
	os := f.trace(fn, err, map[ssa.Value]bool{})
	if len(os) == 0 {
		return textVerdict{why: "an error's text the migration cannot follow", errorText: true}
	}
	for _, o := range os {
		if o.kind == argErr && parses(o.call) {
			continue // the standard library's words on the tool's own input
		}
		if o.kind != own && o.kind != kept && o.kind != sdk {
			return textVerdict{why: "an error's text", errorText: true}
		}
	}
	return ownText
}

// parses reports whether c calls a function of the standard library that
// only parses its arguments, whose error says what is wrong with them.
func parses(c *ssa.Call) bool {
	pkg, _ := funcPath(c.Common().StaticCallee())
	switch pkg {
	case "strconv", "time", "net/url", "encoding/json", "regexp", "net/netip", "encoding/base64", "encoding/hex", "math/big", "mime", "path/filepath", "path":
		return true
	}
	return false
}

// pure reports whether a function of another package makes its result
// only from its arguments.
func pure(pkg, name string, fn *ssa.Function) bool {
	switch pkg {
	case "strings", "strconv", "unicode", "unicode/utf8", "path", "path/filepath", "slices", "maps", "sort", "encoding/json", "net/url":
		if fn.Signature.Recv() != nil {
			return pkg == "strings" && name != "String" // a Builder's content is not followed
		}
		return true
	case "fmt":
		return strings.HasPrefix(name, "Sprint") || strings.HasPrefix(name, "Append")
	case "bytes":
		return fn.Signature.Recv() == nil
	case "time":
		return true // a time or a duration, formatted
	}
	return false
}

// sdkRequest reports whether fn is a method of an SDK's tool request,
// whose results are the tool's arguments (mcp-go's GetString).
func sdkRequest(fn *ssa.Function) bool {
	recv := fn.Signature.Recv()
	if recv == nil {
		return false
	}
	pkg, name := named(recv.Type())
	return (pkg == goSDK || pkg == mcpGo) && strings.Contains(name, "Request") || pkg == mcpGo && name == "CallToolParams"
}

func shortPkg(path string) string {
	elems := strings.Split(path, "/")
	last := elems[len(elems)-1]
	if len(elems) > 1 && majorVersion(last) {
		last = elems[len(elems)-2] // github.com/yosida95/uritemplate/v3
	}
	if i := strings.LastIndex(last, ".v"); i > 0 && majorVersion(last[i+1:]) {
		last = last[:i] // gopkg.in/yaml.v3
	}
	return last
}

// majorVersion reports whether s is a module path's major version, v2 on.
func majorVersion(s string) bool {
	if len(s) < 2 || s[0] != 'v' {
		return false
	}
	for _, r := range s[1:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
