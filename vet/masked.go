package vet

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/buildssa"
	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/ssa"
)

// MaskedMessage reports a message written for the model that a tool
// handler returns as a plain error, which mcperr masks.
var MaskedMessage = &analysis.Analyzer{
	Name: "mcperrmasked",
	Doc: `report messages for the model returned as plain errors

A tool handler, or a function of the shape func(context.Context, Args)
(Result, error) given to a server's own tool framework, that returns
errors.New("either uid or name must be provided"), or fmt.Errorf with a text made of constants and values that are
not an error's text, means the model to read it. mcperr masks every plain
error as an internal one, so the model would read "Internal error in tool
..." instead. Return toolerr.New("...") with the same words, with
WithCode(codes.ValidationError) for a missing argument; the fix does so.
A function of another package of the module that returns such a message made
of its arguments is reported where a handler calls it with the tool's own.

A server's own framework may give its handlers a shape of its own whose
result carries the tool's failure, as func(api.ToolHandlerParams)
(*api.ToolCallResult, error) does in its Error field: the messages such a
handler, registered as a value, puts there (api.NewToolCallResult("",
errors.New("..."))) are reported too, since an adapter that keeps the error
for mcperr has them masked. A prompt's handler, whose arguments are
strings, is not a tool's and is left alone.`,
	Requires:  []*analysis.Analyzer{pkgState},
	Run:       runMaskedMessage,
	FactTypes: []analysis.Fact{new(modelMessage), new(resultError), new(argValue)},
}

// modelMessage is the fact of an exported function of the module whose
// errors include a message for the model returned as a plain error, such
// as a client's "datasource with UID %s not found": a handler of another
// package that returns its errors has that message masked.
type modelMessage struct {
	Text   string // the message's format, as written
	Posn   string // where it is written, file:line
	Params uint64 // bit i: the argument i is in the message
}

func (*modelMessage) AFact() {}

func (m *modelMessage) String() string { return "modelMessage(" + m.Text + ")" }

func runMaskedMessage(pass *analysis.Pass) (any, error) {
	sdk := importsPath(pass.Pkg, isSDK)
	if !sdk && !ownModule(pass) {
		return nil, nil // no handler is written here, and no fact is needed
	}
	ssainfo := ssaOf(pass)
	var framework map[*ssa.Function]bool
	if ownModule(pass) {
		exportArgValues(pass, ssainfo)
		exportMessages(pass, ssainfo)
		exportResultErrors(pass, ssainfo)
		if framework = frameworkHandlers(ssainfo); len(framework) > 0 && bareModule(pass) {
			framework = nil
		}
	}
	if !sdk && len(framework) == 0 {
		return nil, nil // no handler is written here
	}
	tools := toolFuncs(ssainfo)
	outside := outsideMiddleware(ssainfo)
	// errorsOf returns the errors fn gives its caller: those it returns,
	// and those it puts in a framework result; and the calls of the
	// package's functions whose result it returns.
	errorsOf := func(fn *ssa.Function) ([]ssa.Value, []*ssa.CallCommon) {
		errs, calls := resultErrors(pass, fn)
		return append(returnedErrors(fn), errs...), calls
	}
	// own: the handlers and work functions, whose arguments are the tool's;
	// reached: the functions of the package whose errors they return,
	// wrapped with %w or not, such as an arguments type's validate method,
	// with the calls that reach them.
	own := map[*ssa.Function]bool{}
	reached := map[*ssa.Function][]site{}
	var queue []*ssa.Function
	for _, fn := range srcFuncs(ssainfo) {
		if handler(fn.Signature) && !outside[fn] || tools[fn] || framework[fn] {
			own[fn] = true
			reached[fn] = nil
			queue = append(queue, fn)
		}
	}
	for len(queue) > 0 {
		fn := queue[0]
		queue = queue[1:]
		errs, calls := errorsOf(fn)
		for _, v := range errs {
			calls = append(calls, errorSources(v, 0)...)
		}
		for _, c := range calls {
			g := c.StaticCallee()
			if o := g.Origin(); o != nil {
				g = o // a generic function's instance: its body is the origin's
			}
			if g.Pkg != ssainfo.Pkg || len(c.Args) != len(g.Params) {
				continue
			}
			if _, ok := reached[g]; !ok && g.Blocks != nil {
				queue = append(queue, g)
			}
			reached[g] = append(reached[g], site{c.Args})
		}
	}
	// A parameter holds the tool's own arguments in a handler or work
	// function; elsewhere, if its type is a tool's arguments type (the
	// receiver of args.validate()), or every call that reaches the function
	// gives it such a value (requireID(args.ID, "get")).
	argTypes := map[types.Type]bool{}
	for fn := range own {
		if p := fn.Params; len(p) >= 2 {
			argTypes[deref(p[len(p)-1].Type())] = true
		}
	}
	var ownArg func(p *ssa.Parameter, depth int) bool
	paramOf := func(depth int) args {
		return args{pass, func(p *ssa.Parameter) bool { return ownArg(p, depth) }}
	}
	ownArg = func(p *ssa.Parameter, depth int) bool {
		fn := p.Parent()
		if own[fn] || argTypes[deref(p.Type())] {
			return true
		}
		i := slices.Index(fn.Params, p)
		sites := reached[fn]
		if i < 0 || len(sites) == 0 || depth > 4 {
			return false
		}
		for _, st := range sites {
			if !fromArgs(st.args[i], 0, paramOf(depth+1)) {
				return false
			}
		}
		return true
	}
	seen := map[token.Pos]bool{}
	for _, fn := range srcFuncs(ssainfo) {
		if _, ok := reached[fn]; !ok {
			continue
		}
		param := paramOf(0)
		errs, _ := errorsOf(fn)
		for _, v := range errs {
			for _, call := range messages(v, 0) {
				if seen[call.Pos()] || inTestFile(pass, call.Pos()) || !deliberate(call.Common(), param) {
					continue
				}
				seen[call.Pos()] = true
				d := analysis.Diagnostic{Pos: call.Pos(), Message: "a message for the model returned as a plain error: mcperr masks it as an internal error; return toolerr.New with the same words (WithCode(codes.ValidationError) for a missing argument) to send it as written"}
				d.SuggestedFixes = maskedFix(pass, call.Pos())
				report(pass, d)
			}
			// The errors of a function of another package of the module
			// that returns messages for the model.
			for _, c := range errorSources(v, 0) {
				g := c.StaticCallee()
				var m modelMessage
				if o := g.Origin(); o != nil {
					g = o
				}
				obj, ok := g.Object().(*types.Func)
				if !ok || g.Pkg == ssainfo.Pkg || seen[c.Pos()] || inTestFile(pass, c.Pos()) || !pass.ImportObjectFact(obj, &m) || !givenArgs(c, m.Params, param) {
					continue
				}
				seen[c.Pos()] = true
				pass.Reportf(c.Pos(), "the errors of %s.%s include a message for the model returned as a plain error (%q, at %s): mcperr masks it as an internal error; return toolerr.New with the same words there to send it as written",
					obj.Pkg().Name(), obj.Name(), m.Text, m.Posn)
			}
		}
	}
	return nil, nil
}

// givenArgs reports whether the call c fills the arguments that used
// says (bit i: argument i, a method's receiver first, as in SSA) with
// constants and the tool's own arguments, as param says, and gives it at
// least one of the latter: a call about the tool's input
// (client.Datasource(args.UID), RequiredString(params, "name")), whose
// message is written for the model.
func givenArgs(c *ssa.CallCommon, used uint64, param args) bool {
	input := false
	for i, a := range c.Args {
		_, isConst := a.(*ssa.Const)
		switch {
		case i < 64 && used&(1<<i) != 0 && !isConst && !fromArgs(a, 0, param):
			return false
		case !isConst && !isNamed(a.Type(), "context", "Context") && fromArgs(a, 0, param):
			input = true
		}
	}
	return used != 0 && input
}

// exportMessages gives the modelMessage fact to the package's exported
// functions and methods that return, as it is or wrapped with %w, a
// message made of constants and some of their arguments: the facts says
// which, so that a call that fills them with the tool's arguments is told.
// A message made of constants alone is not given one: across packages it
// is as often the server's own state ("nil repo access cache") as advice.
func exportMessages(pass *analysis.Pass, info *buildssa.SSA) {
	for _, fn := range info.SrcFuncs {
		obj, ok := fn.Object().(*types.Func)
		if !ok || !obj.Exported() || len(fn.Params) > 64 {
			continue
		}
	search:
		for _, v := range returnedErrors(fn) {
			for _, call := range messages(v, 0) {
				var used uint64
				note := func(p *ssa.Parameter) bool {
					if i := slices.Index(fn.Params, p); i >= 0 && p.Parent() == fn {
						used |= 1 << i
						return true
					}
					return false
				}
				if !deliberate(call.Common(), args{pass, note}) || used == 0 {
					continue
				}
				text, _ := call.Common().Args[0].(*ssa.Const)
				posn := pass.Fset.Position(call.Pos())
				pass.ExportObjectFact(obj, &modelMessage{Text: constant.StringVal(text.Value),
					Posn: filepath.Base(posn.Filename) + ":" + strconv.Itoa(posn.Line), Params: used})
				break search
			}
		}
	}
}

// args says which values are the tool's own arguments: the parameters that
// is accepts, and what the module's accessors of them return.
type args struct {
	pass *analysis.Pass
	is   func(*ssa.Parameter) bool
}

// argValue is the fact of a function of the module whose first result, a
// string, number or boolean, is made only of constants and some of its
// arguments, as an accessor of a tool's arguments is
// (RequiredString(params, "action") returns the argument "action"): given
// the tool's own arguments there, it returns one of them.
type argValue struct {
	Params uint64 // bit i: the argument i is in the result
}

func (*argValue) AFact() {}

func (*argValue) String() string { return "argValue" }

// accessor returns the argValue bits of fn, from its fact.
func (a args) accessor(fn *ssa.Function) uint64 {
	if fn == nil {
		return 0
	}
	if o := fn.Origin(); o != nil {
		fn = o
	}
	obj, ok := fn.Object().(*types.Func)
	var f argValue
	if !ok || !a.pass.ImportObjectFact(obj, &f) {
		return 0
	}
	return f.Params
}

// exportArgValues gives the argValue fact to the package's functions whose
// first result is made only of constants and their arguments, those of an
// accessor of the package found in an earlier round included.
func exportArgValues(pass *analysis.Pass, info *buildssa.SSA) {
	for range maxDepth {
		found := false
		for _, fn := range info.SrcFuncs {
			obj, ok := fn.Object().(*types.Func)
			res := fn.Signature.Results()
			if !ok || len(fn.Params) > 64 || res.Len() == 0 || pass.ImportObjectFact(obj, new(argValue)) {
				continue
			}
			if b, ok := res.At(0).Type().Underlying().(*types.Basic); !ok || b.Info()&(types.IsString|types.IsNumeric|types.IsBoolean) == 0 {
				continue
			}
			var used uint64
			note := args{pass, func(p *ssa.Parameter) bool {
				if i := slices.Index(fn.Params, p); i >= 0 {
					used |= 1 << i
					return true
				}
				return false
			}}
			all, returns := true, false
			for _, b := range fn.Blocks {
				if ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok && len(ret.Results) > 0 {
					returns = true
					all = all && fromArgs(ret.Results[0], 0, note)
				}
			}
			if all && returns && used != 0 {
				pass.ExportObjectFact(obj, &argValue{Params: used})
				found = true
			}
		}
		if !found {
			return
		}
	}
}

// site is a call that reaches a function whose error a tool returns.
type site struct{ args []ssa.Value }

// returnedErrors returns the error values fn returns, its last result.
func returnedErrors(fn *ssa.Function) []ssa.Value {
	res := fn.Signature.Results()
	if res.Len() == 0 || !isErrorResult(res.At(res.Len()-1).Type()) {
		return nil
	}
	var out []ssa.Value
	for _, b := range fn.Blocks {
		if ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok && len(ret.Results) == res.Len() {
			out = append(out, ret.Results[res.Len()-1])
		}
	}
	return out
}

// through returns the values v may be: the edges of a phi, the values
// stored in a result a deferred function may change, what a conversion
// converts.
func through(v ssa.Value) []ssa.Value {
	switch v := v.(type) {
	case *ssa.Phi:
		return v.Edges
	case *ssa.MakeInterface:
		return []ssa.Value{v.X}
	case *ssa.ChangeInterface:
		return []ssa.Value{v.X}
	case *ssa.ChangeType:
		return []ssa.Value{v.X}
	case *ssa.UnOp:
		alloc, ok := v.X.(*ssa.Alloc)
		if !ok || v.Op != token.MUL || alloc.Referrers() == nil {
			return nil
		}
		var out []ssa.Value
		for _, r := range *alloc.Referrers() {
			if st, ok := r.(*ssa.Store); ok && st.Addr == alloc {
				out = append(out, st.Val)
			}
		}
		return out
	}
	return nil
}

// messages returns the errors.New and fmt.Errorf calls whose value v may
// be.
func messages(v ssa.Value, depth int) []*ssa.Call {
	if depth > 8 {
		return nil
	}
	if call, ok := v.(*ssa.Call); ok {
		if pkg, name := funcPath(call.Common().StaticCallee()); pkg == "errors" && name == "New" || pkg == "fmt" && name == "Errorf" {
			return []*ssa.Call{call}
		}
		return nil
	}
	var out []*ssa.Call
	for _, x := range through(v) {
		out = append(out, messages(x, depth+1)...)
	}
	return out
}

// errorSources returns the calls of functions whose returned error v may
// be, as it is or wrapped by fmt.Errorf's %w.
func errorSources(v ssa.Value, depth int) []*ssa.CallCommon {
	if depth > 8 {
		return nil
	}
	var x ssa.Value = v
	if e, ok := v.(*ssa.Extract); ok {
		x = e.Tuple
	}
	if call, ok := x.(*ssa.Call); ok {
		c := call.Common()
		g := c.StaticCallee()
		switch p, name := funcPath(g); {
		case p == "fmt" && name == "Errorf" && len(c.Args) == 2:
			if f, ok := c.Args[0].(*ssa.Const); !ok || f.Value == nil || !strings.Contains(f.Value.ExactString(), "%w") {
				return nil
			}
			var out []*ssa.CallCommon
			for _, a := range variadicArgs(c.Args[1]) {
				out = append(out, errorSources(a, depth+1)...)
			}
			return out
		case g != nil:
			return []*ssa.CallCommon{c}
		}
		return nil
	}
	var out []*ssa.CallCommon
	for _, y := range through(v) {
		out = append(out, errorSources(y, depth+1)...)
	}
	return out
}

// handler reports whether sig is a tool handler's: (*CallToolResult,
// error), or go-sdk's (*CallToolResult, Out, error).
func handler(sig *types.Signature) bool {
	res := sig.Results()
	n := res.Len()
	return (n == 2 || n == 3) && isSDKNamed(res.At(0).Type(), "CallToolResult") && isErrorResult(res.At(n-1).Type())
}

// isErrorResult reports whether t is the type error.
func isErrorResult(t types.Type) bool {
	return types.Identical(t, types.Universe.Lookup("error").Type())
}

// toolFuncs returns the functions of the package that are given as values
// to a call, with the shape of a tool's work: func(context.Context, Args)
// (Result, error), as a server's own tool framework takes them
// (mcpgrafana.MustTool("get_datasource", "...", getDatasource)) and turns
// their errors into the handler's.
func toolFuncs(info *buildssa.SSA) map[*ssa.Function]bool {
	out := map[*ssa.Function]bool{}
	for _, fn := range allFuncs(info) {
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				call, ok := in.(*ssa.Call)
				if !ok {
					continue
				}
				for _, a := range call.Common().Args {
					var g *ssa.Function
					switch a := a.(type) {
					case *ssa.Function:
						g = a
					case *ssa.MakeClosure:
						g, _ = a.Fn.(*ssa.Function)
					}
					if g != nil && g.Pkg == info.Pkg && toolShaped(g.Signature) {
						out[g] = true
					}
				}
			}
		}
	}
	return out
}

// outsideMiddleware returns the functions of the package with a tool
// handler's shape that belong to an mcp-go tool middleware which runs
// before mcperr's: one given to server.WithToolHandlerMiddleware, or to
// (*MCPServer).Use unless mcpgo.Install was called on the same server
// before, in the same function. mcp-go runs its middleware in the order
// they are registered, and Install adds mcperr's with Use: the errors of
// an earlier one never reach mcperr, and mcp-go sends them as written, so
// mcperr does not mask them. (go-sdk runs the receiving middleware added
// last first: one added before gosdk.Install runs inside mcperr's; its
// shape is a method handler's, which is not looked into.)
func outsideMiddleware(info *buildssa.SSA) map[*ssa.Function]bool {
	out := map[*ssa.Function]bool{}
	var mark func(v ssa.Value)
	var handlers func(fn *ssa.Function)
	handlers = func(fn *ssa.Function) {
		if handler(fn.Signature) {
			out[fn] = true
		}
		for _, anon := range fn.AnonFuncs {
			handlers(anon)
		}
	}
	mark = func(v ssa.Value) {
		switch v := v.(type) {
		case *ssa.Function: // rateLimit, or a literal that captures nothing
			if v.Pkg == info.Pkg {
				handlers(v)
			}
		case *ssa.MakeClosure:
			mark(v.Fn)
		case *ssa.ChangeType: // a func converted to server.ToolHandlerMiddleware
			mark(v.X)
		case *ssa.Call: // newRateLimiter(100), which returns the middleware
			if g := v.Common().StaticCallee(); g != nil && g.Pkg == info.Pkg {
				handlers(g)
			}
		}
	}
	for _, fn := range allFuncs(info) {
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				call, ok := in.(*ssa.Call)
				if !ok {
					continue
				}
				c := call.Common()
				switch pkg, name := funcPath(c.StaticCallee()); {
				case pkg == pathMCPGoS && name == "WithToolHandlerMiddleware" && len(c.Args) == 1:
					mark(c.Args[0])
				case pkg == pathMCPGoS && name == "Use" && len(c.Args) == 2 && !installedBefore(fn, c.Args[0], call.Pos()):
					for _, mw := range variadicArgs(c.Args[1]) {
						mark(mw)
					}
				}
			}
		}
	}
	return out
}

// installedBefore reports whether fn calls mcpgo.Install on the server srv
// before pos.
func installedBefore(fn *ssa.Function, srv ssa.Value, pos token.Pos) bool {
	for _, b := range fn.Blocks {
		for _, in := range b.Instrs {
			if call, ok := in.(*ssa.Call); ok && call.Pos() < pos {
				c := call.Common()
				if pkg, name := funcPath(c.StaticCallee()); pkg == pathMcpgoA && name == "Install" && len(c.Args) > 0 && c.Args[0] == srv {
					return true
				}
			}
		}
	}
	return false
}

// toolShaped reports whether sig is func(context.Context, Args) (Result,
// error).
func toolShaped(sig *types.Signature) bool {
	p, r := sig.Params(), sig.Results()
	return p.Len() == 2 && r.Len() == 2 && isNamed(p.At(0).Type(), "context", "Context") && isErrorResult(r.At(1).Type())
}

// deliberate reports whether c is errors.New or fmt.Errorf of a constant
// format without %w, given only constants and values made of the
// parameters param accepts: in a handler or work function, its own, the
// tool's arguments; in a function they reach, those of a tool's arguments
// type (the receiver of args.validate()). Such text is written for the
// model, and holds nothing the server read elsewhere (an upstream's body,
// a status).
func deliberate(c *ssa.CallCommon, param args) bool {
	pkg, name := funcPath(c.StaticCallee())
	switch {
	case pkg == "errors" && name == "New" && len(c.Args) == 1:
		_, ok := c.Args[0].(*ssa.Const)
		return ok
	case pkg == "fmt" && name == "Errorf" && len(c.Args) == 2:
		f, ok := c.Args[0].(*ssa.Const)
		if !ok || f.Value == nil || strings.Contains(f.Value.ExactString(), "%w") {
			return false
		}
		args := variadicArgs(c.Args[1])
		if args == nil && !isNilSlice(c.Args[1]) {
			return false
		}
		for _, a := range args {
			if isErrorType(a.Type()) || !fromArgs(a, 0, param) {
				return false
			}
		}
		return true
	}
	return false
}

// fromArgs reports whether v is made only of constants and the function's
// parameters: their fields, elements, conversions, and what the methods of
// a parameter (an SDK request's GetString) and the functions of strings and
// strconv make of them.
func fromArgs(v ssa.Value, depth int, param args) bool {
	if depth > 8 {
		return false
	}
	switch v := v.(type) {
	case *ssa.Const:
		return true
	case *ssa.Parameter:
		return param.is(v)
	case *ssa.Alloc: // a parameter kept in a local, as SSA keeps one whose address is taken
		return storesFromArgs(v, v, depth, param)
	case *ssa.MakeInterface:
		return fromArgs(v.X, depth+1, param)
	case *ssa.ChangeType:
		return fromArgs(v.X, depth+1, param)
	case *ssa.Convert:
		return fromArgs(v.X, depth+1, param)
	case *ssa.Field:
		return fromArgs(v.X, depth+1, param)
	case *ssa.FieldAddr:
		return fromArgs(v.X, depth+1, param)
	case *ssa.Index:
		return fromArgs(v.X, depth+1, param) && fromArgs(v.Index, depth+1, param)
	case *ssa.Lookup: // args["name"]
		return fromArgs(v.X, depth+1, param) && fromArgs(v.Index, depth+1, param)
	case *ssa.TypeAssert: // args["name"].(string)
		return fromArgs(v.X, depth+1, param)
	case *ssa.IndexAddr:
		return fromArgs(v.X, depth+1, param) && fromArgs(v.Index, depth+1, param)
	case *ssa.Extract:
		return fromArgs(v.Tuple, depth+1, param)
	case *ssa.UnOp:
		return v.Op == token.MUL && fromArgs(v.X, depth+1, param)
	case *ssa.BinOp:
		return fromArgs(v.X, depth+1, param) && fromArgs(v.Y, depth+1, param)
	case *ssa.Phi:
		for _, e := range v.Edges {
			if !fromArgs(e, depth+1, param) {
				return false
			}
		}
		return true
	case *ssa.Call:
		c := v.Common()
		if c.IsInvoke() { // a method of the arguments' interface: params.GetArguments()
			if !fromArgs(c.Value, depth+1, param) {
				return false
			}
			for _, a := range c.Args {
				if !fromArgs(a, depth+1, param) {
					return false
				}
			}
			return true
		}
		callee := c.StaticCallee()
		pkg, _ := funcPath(callee)
		method := callee != nil && callee.Signature.Recv() != nil && len(c.Args) > 0
		if bits := param.accessor(callee); bits != 0 { // RequiredString(params, "action")
			for i, a := range c.Args {
				if i < 64 && bits&(1<<i) != 0 && !fromArgs(a, depth+1, param) {
					return false
				}
			}
			return true
		}
		if pkg != "strings" && pkg != "strconv" && !(method && isParam(c.Args[0])) {
			return false
		}
		for _, a := range c.Args {
			if !fromArgs(a, depth+1, param) {
				return false
			}
		}
		return true
	}
	return false
}

// storesFromArgs reports whether every value stored into addr, a local or
// one of its fields, is made of the function's arguments.
func storesFromArgs(alloc *ssa.Alloc, addr ssa.Value, depth int, param args) bool {
	refs := addr.Referrers()
	if refs == nil {
		return false
	}
	for _, r := range *refs {
		switch r := r.(type) {
		case *ssa.Store:
			if r.Addr == addr && r.Val != alloc && !fromArgs(r.Val, depth+1, param) {
				return false
			}
		case *ssa.FieldAddr:
			if !storesFromArgs(alloc, r, depth+1, param) {
				return false
			}
		}
	}
	return true
}

// isParam reports whether v is a parameter, or what it points to.
func isParam(v ssa.Value) bool {
	if u, ok := v.(*ssa.UnOp); ok && u.Op == token.MUL {
		v = u.X
	}
	_, ok := v.(*ssa.Parameter)
	return ok
}

// deref returns what t points to, or t.
func deref(t types.Type) types.Type {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		return p.Elem()
	}
	return t
}

// isNilSlice reports whether v is a nil slice constant: fmt.Errorf given
// no arguments.
func isNilSlice(v ssa.Value) bool {
	c, ok := v.(*ssa.Const)
	return ok && c.IsNil()
}

// isErrorType reports whether t is error or implements it.
func isErrorType(t types.Type) bool {
	if t == nil {
		return false
	}
	if it, ok := t.(*types.Interface); ok && it.Empty() {
		return false
	}
	return types.Implements(t, types.Universe.Lookup("error").Type().Underlying().(*types.Interface))
}

// requiredArg is a message that names one missing argument.
var requiredArg = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_.]*) is required\.?$`)

// maskedFix rewrites the errors.New or fmt.Errorf call at pos into
// toolerr.New with the same words (fmt.Sprintf for a format), with the code
// VALIDATION_ERROR for "<field> is required": the model reads the words as
// they were.
func maskedFix(pass *analysis.Pass, pos token.Pos) []analysis.SuggestedFix {
	file := fileOf(pass, pos)
	if file == nil {
		return nil
	}
	path, _ := astutil.PathEnclosingInterval(file, pos, pos)
	if len(path) == 0 {
		return nil
	}
	call, ok := path[0].(*ast.CallExpr)
	if !ok || call.Ellipsis.IsValid() || len(call.Args) == 0 || len(path) < 2 {
		return nil
	}
	if !asError(pass, path) {
		return nil // kept in a variable first: its type would change
	}
	lit, isLit := literal(call.Args[0])
	if tv := pass.TypesInfo.Types[call.Args[0]]; !isLit && tv.Value != nil && tv.Value.Kind() == constant.String {
		lit, isLit = constant.StringVal(tv.Value), true // "words " + "more words"
	}
	if !isLit {
		return nil
	}
	im := newImporter(pass, file, pos)
	name, ok := im.name(pathToolerr, "toolerr")
	if !ok {
		return nil
	}
	words := ""
	pkg, fn := calleeName(pass, call)
	if pkg == "fmt" && fn == "Errorf" && len(call.Args) > 1 {
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok {
			return nil
		}
		words = src(pass, sel.X) + ".Sprintf(" + joinSrc(pass, call.Args) + ")"
	} else if pkg == "fmt" && strings.Contains(lit, "%") {
		words = strconv.Quote(strings.ReplaceAll(lit, "%%", "%"))
	}
	suffix := ""
	if requiredArg.MatchString(lit) && len(call.Args) == 1 {
		codes, ok := im.name(pathCodes, "codes")
		if !ok {
			return nil
		}
		suffix = ".WithCode(" + codes + ".ValidationError)"
	}
	edits := im.edits()
	if words == "" { // the words as written: only the function changes, and the source keeps its lines and comments
		edits = append(edits, analysis.TextEdit{Pos: call.Fun.Pos(), End: call.Fun.End(), NewText: []byte(name + ".New")})
		if suffix != "" {
			edits = append(edits, analysis.TextEdit{Pos: call.End(), End: call.End(), NewText: []byte(suffix)})
		}
	} else {
		edits = append(edits, analysis.TextEdit{Pos: call.Pos(), End: call.End(), NewText: []byte(name + ".New(" + words + ")" + suffix)})
	}
	return []analysis.SuggestedFix{{Message: "Return the message as mcperr sends it as written", TextEdits: edits}}
}

// asError reports whether path[0], an error's constructor, is used where
// any error fits: returned, given to a function as an argument of
// interface type (api.NewToolCallResult("", errors.New("..."))), or set as
// a field of interface type in a composite literal.
func asError(pass *analysis.Pass, path []ast.Node) bool {
	switch p := path[1].(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.CallExpr:
		sig, ok := pass.TypesInfo.TypeOf(p.Fun).(*types.Signature)
		i := slices.Index(p.Args, path[0].(ast.Expr))
		if !ok || i < 0 || sig.Params().Len() == 0 || p.Ellipsis.IsValid() {
			return false
		}
		t := sig.Params().At(min(i, sig.Params().Len()-1)).Type()
		if s, ok := t.(*types.Slice); ok && sig.Variadic() && i >= sig.Params().Len()-1 {
			t = s.Elem()
		}
		return types.IsInterface(t)
	case *ast.KeyValueExpr:
		t := pass.TypesInfo.TypeOf(p.Key)
		return p.Value == path[0] && t != nil && types.IsInterface(t)
	}
	return false
}

// joinSrc returns the source of xs, separated by commas.
func joinSrc(pass *analysis.Pass, xs []ast.Expr) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = src(pass, x)
	}
	return strings.Join(parts, ", ")
}
