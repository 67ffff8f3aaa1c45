package provenance

import (
	"cmp"
	"fmt"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// Kind names a kind of finding or rewrite.
type Kind string

const (
	// Lost is a message of the module that the model read before and that
	// mcperr would mask: a plain error made of the server's own words.
	Lost Kind = "mcperrlost"
	// Upstream is another's text (a response's body, a library's string, a
	// configured DSN) in a result built with isError set, which mcperr
	// passes as written.
	Upstream Kind = "mcperrupstream"
)

// Finding is a site the pass reports.
type Finding struct {
	Kind    Kind
	Pos     token.Position
	Message string
	fixable bool
	call    *ssa.Call     // Lost: the errors.New or fmt.Errorf to rewrite
	typed   *ssa.Function // Lost: the Error method of a type to make public
	text    string        // Lost: the message's constant words
	mend    int           // Lost, flat: the format's argument that %w wraps, from 1
	wrapper bool          // Lost: the server's words around an error or another's text
	textArg textArg       // Lost, wrapper: the type of another's text, last
}

// Fix is the rewrite of one site.
type Fix struct {
	Kind  Kind
	Pos   token.Position
	Edits []Edit
}

// Result is what a pass found.
type Result struct {
	// Findings are the sites that have no fix.
	Findings []Finding
	// Fixes rewrite the others.
	Fixes []Fix
	// Upstream holds the positions ("file:line") of the Upstream findings
	// whose text is not an error's but a string of another's (an
	// upstream's message, a response's body): a fix must not make it a
	// ToolError's message.
	Upstream map[string]bool
	// NotOwn holds the positions of the errors.New and fmt.Errorf calls,
	// reached from a tool, whose text holds another's value: mcperr's
	// masking is right there, and no fix makes them the model's.
	NotOwn map[string]bool
	// Own holds the positions ("file:line") of results built with isError
	// whose text is the server's own on every path: their answer is
	// already the model's, as written.
	Own map[string]bool
}

// Config says what to analyse.
type Config struct {
	Dir      string   // the module's directory, or one of it
	Patterns []string // package patterns, default ./...
}

// Run analyses the packages: the messages the model would lose, with the
// fixes that make them ToolErrors, and another's text in results built by
// hand.
func Run(cfg Config) (*Result, error) {
	patterns := cfg.Patterns
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	p, err := load(cfg.Dir, patterns)
	if err != nil {
		return nil, err
	}
	f := newFlow(p)
	res := &Result{Upstream: map[string]bool{}, Own: map[string]bool{}, NotOwn: map[string]bool{}}
	for _, fd := range f.lost() {
		if fd.fixable && fd.typed != nil {
			if es, ok := p.typedEdits(fd); ok {
				res.Fixes = append(res.Fixes, Fix{Kind: fd.Kind, Pos: fd.Pos, Edits: es})
				continue
			}
		}
		if fd.fixable && (fd.wrapper || fd.mend > 0) {
			if es, ok := p.wrapperEdits(fd); ok {
				res.Fixes = append(res.Fixes, Fix{Kind: fd.Kind, Pos: fd.Pos, Edits: es})
				continue
			}
		}
		if fd.fixable && fd.mend > 0 {
			if es, ok := p.wrapEdits(fd); ok {
				res.Fixes = append(res.Fixes, Fix{Kind: fd.Kind, Pos: fd.Pos, Edits: es})
				continue
			}
		}
		if !fd.fixable || fd.call == nil || fd.mend != 0 || fd.wrapper {
			res.Findings = append(res.Findings, fd)
			continue
		}
		if es, ok := p.lostEdits(fd); ok {
			res.Fixes = append(res.Fixes, Fix{Kind: fd.Kind, Pos: fd.Pos, Edits: es})
			continue
		}
		res.Findings = append(res.Findings, fd)
	}
	for c := range f.notOwn {
		res.NotOwn[Line(p.fset.Position(c.Pos()))] = true
	}
	up, ownSites := f.builtResults()
	res.Findings = append(res.Findings, up...)
	for _, fd := range up {
		res.Upstream[Line(fd.Pos)] = true
	}
	for _, pos := range ownSites {
		res.Own[Line(pos)] = true
	}
	slices.SortFunc(res.Findings, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Pos.Filename, b.Pos.Filename), cmp.Compare(a.Pos.Line, b.Pos.Line), cmp.Compare(a.Pos.Column, b.Pos.Column))
	})
	// A generic's instances make one site many times.
	res.Findings = slices.CompactFunc(res.Findings, func(a, b Finding) bool { return a.Pos == b.Pos && a.Kind == b.Kind })
	return res, nil
}

// Line returns "file:line" of pos.
func Line(pos token.Position) string { return fmt.Sprintf("%s:%d", pos.Filename, pos.Line) }

// lost returns the plain errors of the server's own words that a tool
// handler returns, followed through every function the module calls.
func (f *flow) lost() []Finding {
	sites := map[*ssa.Call]bool{}
	var order []*ssa.Call
	flats := map[*ssa.Call]origin{}
	wraps := map[*ssa.Call]textArg{}
	byType := map[*ssa.Function][]origin{} // by the type's Error method
	var typeOrder []*ssa.Function
	var add func(os []origin)
	add = func(os []origin) {
		for _, o := range os {
			if o.kind == param {
				add(f.atCallers(o.fn, o.i))
				continue
			}
			if o.kind == typed {
				m := f.p.errorType(o.alloc.Type())
				if _, ok := byType[m]; !ok {
					typeOrder = append(typeOrder, m)
				}
				if !slices.ContainsFunc(byType[m], func(x origin) bool { return x.alloc == o.alloc }) {
					byType[m] = append(byType[m], o)
				}
				continue
			}
			if o.kind == flat && !sites[o.call] {
				sites[o.call] = true
				flats[o.call] = o
				order = append(order, o.call)
				continue
			}
			if o.kind == wrap && !sites[o.call] {
				if !f.depsOwn(o) {
					continue // some calls give its words another's values: masked whole
				}
				if f.configGuarded(o.call) {
					continue // the operator's error, not the model's: masked and logged with a ref
				}
				sites[o.call] = true
				wraps[o.call] = o.text
				order = append(order, o.call)
				continue
			}
			if o.kind != own && o.kind != argErr || o.call == nil || sites[o.call] {
				continue
			}
			if o.kind == own && !f.depsOwn(o) {
				f.notModel[o.call] = true
			}
			if o.kind == argErr && f.declaredPublic(o.call) {
				continue
			}
			if o.kind == own && f.configGuarded(o.call) {
				continue // the operator's error, not the model's: masked and logged with a ref
			}
			sites[o.call] = true
			order = append(order, o.call)
		}
	}
	for _, fn := range f.p.funcs {
		if f.roots[fn] {
			add(f.summary(fn, fn.Signature.Results().Len()-1))
			// The causes of the ToolErrors found so far: the model reads a
			// public one as a hint.
			causes := f.causes
			f.causes = nil
			add(causes)
		}
		// go-sdk's SetError hands the error to mcperr as a returned one.
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				c, ok := in.(*ssa.Call)
				if !ok {
					continue
				}
				if callee := c.Common().StaticCallee(); callee != nil && callee.Name() == "SetError" && len(c.Common().Args) == 2 {
					if pkg, name := named(callee.Signature.Recv().Type()); pkg == goSDK && name == "CallToolResult" {
						add(f.trace(fn, c.Common().Args[1], map[ssa.Value]bool{}))
					}
				}
			}
		}
	}
	for len(f.causes) > 0 { // those found after the last root
		causes := f.causes
		f.causes = nil
		add(causes)
	}
	var out []Finding
	for _, m := range typeOrder {
		if fd, ok := f.typedFinding(m, byType[m]); ok {
			out = append(out, fd)
		}
	}
	for _, c := range order {
		pos := f.p.fset.Position(c.Pos())
		if o, ok := flats[c]; ok {
			out = append(out, f.flatFinding(o, pos))
			continue
		}
		if arg, ok := wraps[c]; ok {
			words := messageWords(c)
			fd := Finding{Kind: Lost, Pos: pos, call: c, text: words, wrapper: true, textArg: arg}
			fd.fixable = !strings.HasSuffix(pos.Filename, "_test.go") && !f.p.generated(pos.Filename)
			fd.Message = fmt.Sprintf("the model reads the words of %q, with the error's text, when a tool returns this error today; "+
				"with mcperr it is masked whole: keep the words over the error, toolerr.Wrap(err, \"...\"), "+
				"so that the model reads them and the log the rest", words)
			out = append(out, fd)
			continue
		}
		if pkg, name := funcPath(c.Common().StaticCallee()); !(pkg == "errors" || pkg == "fmt") {
			out = append(out, Finding{Kind: Lost, Pos: pos, Message: fmt.Sprintf(
				"the model reads the error of %s.%s, about the tool's own arguments, when a tool returns it today; with mcperr it is masked: "+
					"if its text is safe to show, declare its type public in one line where the tool is added, "+
					"filter.WithFilters(filter.Public[%s](codes.ValidationError)), or return a message for the model: "+
					"toolerr.New(\"...\").WithCause(err)", shortPkg(pkg), name, errTypeOf(pkg))})
			continue
		}
		words := messageWords(c)
		fd := Finding{Kind: Lost, Pos: pos, call: c, text: words}
		fd.fixable = !strings.HasSuffix(pos.Filename, "_test.go") && !f.p.generated(pos.Filename)
		if f.notModel[c] {
			// Some calls fill it with another's values: a ToolError would
			// send those too.
			out = append(out, Finding{Kind: Lost, Pos: pos, Message: fmt.Sprintf("the model reads %q when a tool returns this error today, "+
				"and with mcperr it is masked; some calls give it values the server read elsewhere, which a ToolError would send too: "+
				"return toolerr.New with the server's own words where the tool's arguments are given", words)})
			continue
		}
		fd.Message = fmt.Sprintf("the model reads %q when a tool returns this error today; with mcperr it is masked as an internal error: "+
			"write it as a ToolError, toolerr.New(%s), so that the model keeps the words", words, callSource(c))
		out = append(out, fd)
	}
	return out
}

// flatFinding reports a wrapper that formats an error the model would
// read with %v: the fix makes it %w.
func (f *flow) flatFinding(o origin, pos token.Position) Finding {
	fd := Finding{Kind: Lost, Pos: pos, call: o.call, mend: o.i + 1, text: messageWords(o.call)}
	fd.fixable = o.i >= 0 && !strings.HasSuffix(pos.Filename, "_test.go") && !f.p.generated(pos.Filename)
	if o.inner == argErr {
		pkg, name := funcPath(o.lib.Common().StaticCallee())
		fd.Message = fmt.Sprintf("fmt.Errorf(%q, ...) formats the error of %s.%s, about the tool's own arguments, with %%v: "+
			"the model reads it when a tool returns it today; with mcperr it is masked, and no filter finds it in a chain %%v ends: "+
			"wrap it with %%w, then declare its type public where the tool is added, "+
			"filter.WithFilters(filter.Public[%s](codes.ValidationError))", fd.text, shortPkg(pkg), name, errTypeOf(pkg))
		return fd
	}
	fd.Message = fmt.Sprintf("fmt.Errorf(%q, ...) formats an error the model reads (a ToolError, a domain error) with %%v: "+
		"the wrapper is a plain error, which mcperr masks; wrap it with %%w, and the model reads the inner error's words", fd.text)
	return fd
}

// depsOwn reports whether the parameters an own message is made of are
// the server's own at every call of its function: for a message reached
// through a result field or a stored error, where no one call decides.
func (f *flow) depsOwn(o origin) bool {
	fn := o.at // the function whose parameters deps names
	if fn == nil {
		fn = o.fn
	}
	for _, d := range o.deps {
		if d >= len(fn.Params) || !f.text(fn, fn.Params[d], 0).own {
			return false
		}
	}
	return true
}

// typedFinding reports an error type of the module that tools return,
// whose text its Error method makes: where every value of it they return is
// made of the server's own words, the fix gives the type PublicMessage and
// ErrorCode, so that mcperr sends its text as written.
func (f *flow) typedFinding(m *ssa.Function, made []origin) (Finding, bool) {
	pos := f.p.fset.Position(m.Pos())
	recv := m.Signature.Recv()
	name := types.TypeString(recv.Type(), types.RelativeTo(m.Pkg.Pkg))
	fd := Finding{Kind: Lost, Pos: pos}
	var mixed string
	own := 0
	for _, o := range made {
		if t := f.fieldsText(o.fn, o.alloc, m); !t.own {
			at := f.p.fset.Position(o.alloc.Pos())
			mixed = fmt.Sprintf("%s:%d holds %s", shortFile(at.Filename), at.Line, t.why)
			continue
		}
		own++
	}
	switch {
	case own == 0:
		return fd, false // another's text: mcperr is right to mask it
	case mixed != "":
		fd.Message = fmt.Sprintf("the model reads the text of %s when a tool returns it today, and with mcperr it is masked; "+
			"some values of it are made of the server's own words, but the one made at %s: "+
			"return a ToolError with a message for the model where the words are the server's own", name, mixed)
		return fd, true
	}
	fd.fixable = !f.p.generated(pos.Filename)
	fd.typed = m
	fd.Message = fmt.Sprintf("the model reads the text of %s, made of the server's own words, when a tool returns it today; "+
		"with mcperr it is masked: give the type a PublicMessage method returning that text and an ErrorCode method "+
		"(toolerr.PublicError), so that mcperr sends it as written", name)
	return fd, true
}

// fieldsText decides the values stored in the fields of a composite
// literal that its type's Error method m reads (an Err field kept only
// for Unwrap is not its text).
func (f *flow) fieldsText(fn *ssa.Function, a *ssa.Alloc, m *ssa.Function) textVerdict {
	for _, r := range *a.Referrers() {
		fa, ok := r.(*ssa.FieldAddr)
		if !ok || !readsField(m, fa.Field) {
			continue
		}
		for _, v := range f.storesTo(fn, fa) {
			if t := f.text(fn, v, 0); !t.own {
				return t
			}
		}
	}
	return ownText
}

// readsField reports whether m, an Error method, reads the field i of its
// receiver, or hands the receiver to another function (which may).
func readsField(m *ssa.Function, i int) bool {
	if len(m.Params) == 0 {
		return true
	}
	recv := m.Params[0]
	for _, r := range *recv.Referrers() {
		switch r := r.(type) {
		case *ssa.FieldAddr:
			if r.Field == i {
				return true
			}
		case *ssa.Field:
			if r.Field == i {
				return true
			}
		case *ssa.UnOp:
			// *e: a copy of the struct, whose fields are read from it.
			for _, rr := range *r.Referrers() {
				if fd, ok := rr.(*ssa.Field); !ok || fd.Field == i {
					return true
				}
			}
		case *ssa.DebugRef:
		default:
			return true
		}
	}
	return false
}

func shortFile(path string) string {
	if i := strings.LastIndex(path, "/"); i >= 0 {
		return path[i+1:]
	}
	return path
}

// errTypeOf names the error type a package's parsers return.
func errTypeOf(pkg string) string {
	switch pkg {
	case "strconv":
		return "*strconv.NumError"
	case "time":
		return "*time.ParseError"
	case "net/url":
		return "*url.Error"
	case "encoding/json":
		return "*json.UnmarshalTypeError"
	case "regexp":
		return "*syntax.Error"
	}
	return "*" + shortPkg(pkg) + ".<the error type it returns>"
}

// declaredPublic reports whether the module declares public, with
// filter.Public, an error type of the package c calls.
func (f *flow) declaredPublic(c *ssa.Call) bool {
	pkg, _ := funcPath(c.Common().StaticCallee())
	if pkg == "regexp" {
		pkg = "regexp/syntax"
	}
	return f.p.publicPkgs()[pkg]
}

// messageWords returns the constant words of an errors.New or fmt.Errorf.
func messageWords(c *ssa.Call) string {
	if s, ok := constString(c.Common().Args[0]); ok {
		return s
	}
	return "…"
}

func callSource(c *ssa.Call) string {
	_, name := funcPath(c.Common().StaticCallee())
	if name == "Errorf" {
		return "fmt.Sprintf(...)"
	}
	return "..."
}

// builtResults returns another's text in results built with isError set,
// and the sites whose text is the server's own.
func (f *flow) builtResults() (up []Finding, ownSites []token.Position) {
	for _, fn := range f.p.funcs {
		isError := setsIsError(fn)
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				at, texts := builtText(in, isError)
				if texts == nil {
					continue
				}
				pos := f.p.fset.Position(at)
				if strings.HasSuffix(pos.Filename, "_test.go") {
					continue
				}
				verdict := ownText
				for _, t := range texts {
					if p, ok := t.(*ssa.Parameter); ok && !f.roots[fn] {
						// A helper that builds the result from its
						// argument: the text is its callers'.
						up = append(up, f.passedIn(fn, p, 0)...)
						continue
					}
					if v := f.valueText(fn, t); !v.own {
						verdict = v
						break
					}
				}
				switch {
				case verdict.own:
					ownSites = append(ownSites, pos)
				case !verdict.unknown && !verdict.errorText:
					// An error's text is the analyzers' to report
					// (mcperrsdktext); a value not followed is left.
					up = append(up, f.upstream(fn, pos, verdict))
				}
			}
		}
	}
	return up, ownSites
}

// builtText returns the texts of a result with isError set that in
// builds, and where: mcp-go's NewToolResultError family, or, in a function
// that sets a CallToolResult's IsError to true, a TextContent's Text of
// either SDK.
func builtText(in ssa.Instruction, isError bool) (token.Pos, []ssa.Value) {
	switch in := in.(type) {
	case *ssa.Call:
		pkg, name := funcPath(in.Common().StaticCallee())
		if isError && pkg != mcpGo {
			// A helper that makes the result's TextContent from its
			// arguments (the server's own NewTextContent(text)).
			if rp, rn := named(in.Type()); rn == "TextContent" && (rp == goSDK || rp == mcpGo) {
				var texts []ssa.Value
				for _, a := range in.Common().Args {
					if isString(a.Type()) {
						texts = append(texts, a)
					}
				}
				return in.Pos(), texts
			}
		}
		if pkg != mcpGo {
			return 0, nil
		}
		args := in.Common().Args
		switch name {
		case "NewToolResultError":
			return in.Pos(), args[:1]
		case "NewToolResultErrorf":
			return in.Pos(), append([]ssa.Value{args[0]}, variadic(args[1])...)
		case "NewToolResultErrorFromErr":
			return in.Pos(), args[:2]
		}
	case *ssa.Store:
		if fa, ok := in.Addr.(*ssa.FieldAddr); ok && isError {
			if pkg, name := named(fa.X.Type()); name == "TextContent" && (pkg == goSDK || pkg == mcpGo) && fieldName(fa) == "Text" {
				return in.Pos(), []ssa.Value{in.Val}
			}
		}
	}
	return 0, nil
}

// setsIsError reports whether fn sets a CallToolResult's IsError to true,
// or to a value it has.
func setsIsError(fn *ssa.Function) bool {
	for _, b := range fn.Blocks {
		for _, in := range b.Instrs {
			st, ok := in.(*ssa.Store)
			if !ok {
				continue
			}
			fa, ok := st.Addr.(*ssa.FieldAddr)
			if !ok || fieldName(fa) != "IsError" {
				continue
			}
			if c, ok := st.Val.(*ssa.Const); !ok || c.Value != nil && c.Value.String() == "true" {
				return true // true, or as another result says (an adapter of the server's own)
			}
		}
	}
	return false
}

func fieldName(fa *ssa.FieldAddr) string {
	t := fa.X.Type().Underlying()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem().Underlying()
	}
	if st, ok := t.(*types.Struct); ok && fa.Field < st.NumFields() {
		return st.Field(fa.Field).Name()
	}
	return ""
}

// valueText decides a text or an error given as a text.
func (f *flow) valueText(fn *ssa.Function, t ssa.Value) textVerdict {
	if u := unwrapIface(t); isErrorValue(u) {
		return f.errText(fn, u)
	}
	return f.text(fn, t, 0)
}

// passedIn reports the calls that fill p, a parameter of a helper that
// builds a result with isError set from it, with another's text.
func (f *flow) passedIn(fn *ssa.Function, p *ssa.Parameter, depth int) []Finding {
	i := slices.Index(fn.Params, p)
	if i < 0 || depth > 4 {
		return nil
	}
	var out []Finding
	for e, arg := range f.callArgs(fn, i) {
		caller := e.Caller.Func
		if q, ok := arg.(*ssa.Parameter); ok && !f.roots[caller] {
			out = append(out, f.passedIn(caller, q, depth+1)...)
			continue
		}
		pos := f.p.fset.Position(e.Site.Pos())
		if strings.HasSuffix(pos.Filename, "_test.go") {
			continue
		}
		// An error's text given straight to the helper that builds the
		// result is the analyzers' to report (mcperrsdktext, through the
		// helper's fact); two helpers away, only this pass sees it.
		if v := f.valueText(caller, arg); !v.own && !v.unknown && (!v.errorText || depth > 0) {
			v.at = 0
			out = append(out, f.upstream(caller, pos, v))
		}
	}
	return out
}

// upstream returns the finding of another's text in a result built at pos
// in fn.
func (f *flow) upstream(fn *ssa.Function, pos token.Position, v textVerdict) Finding {
	if v.at.IsValid() {
		at := f.p.fset.Position(v.at)
		return Finding{Kind: Upstream, Pos: at, Message: fmt.Sprintf(
			"this call gives %s to a result with isError set (built at %s:%d), which mcperr passes to the model as written: "+
				"return the error instead, with a message for the model as a ToolError: return nil, toolerr.New(\"...\").WithCause(err)",
			v.why, shortFile(pos.Filename), pos.Line)}
	}
	advice := "return the error instead, with a message for the model as a ToolError: return nil, toolerr.New(\"...\").WithCause(err)"
	if r := fn.Signature.Results(); r.Len() == 1 {
		advice = "this function returns only a result, so the text cannot travel as an error: write a fixed message for the model here " +
			"(mcp.NewToolResultError(\"The service answered 500; retry later.\")), or make it return (*mcp.CallToolResult, error) " +
			"and its callers return the error, which mcperr masks and logs with a ref; until then, " +
			"filter.ForTool(name, filter.WithHandBuilt(filter.MaskHandBuilt)) masks the error results of a tool that calls it " +
			"(its own messages in results too)"
	}
	return Finding{Kind: Upstream, Pos: pos, Message: fmt.Sprintf(
		"the text of this result, which mcperr passes to the model as written, holds %s: %s", v.why, advice)}
}

// generated reports whether the file says it is generated.
func (p *program) generated(file string) bool {
	pkg := p.files[file]
	if pkg == nil {
		return true // not the module's
	}
	for _, f := range pkg.Syntax {
		if p.fset.Position(f.Package).Filename == file {
			for _, cg := range f.Comments {
				if strings.HasPrefix(cg.Text(), "Code generated ") && strings.Contains(cg.Text(), "DO NOT EDIT") {
					return true
				}
			}
		}
	}
	return false
}

// configGuarded reports whether the message c makes is written where a
// check of the server's configuration fails (if c.Region == "" {...}): a
// field or package variable that is not the tool's arguments, compared
// with a constant, decides it. Such a message is the operator's to read.
func (f *flow) configGuarded(c *ssa.Call) bool {
	b := c.Block()
	if len(b.Preds) != 1 {
		return false
	}
	ifi, ok := b.Preds[0].Instrs[len(b.Preds[0].Instrs)-1].(*ssa.If)
	if !ok {
		return false
	}
	cond, ok := ifi.Cond.(*ssa.BinOp)
	if !ok {
		return false
	}
	x, y := cond.X, cond.Y
	if _, ok := x.(*ssa.Const); ok {
		x, y = y, x
	}
	if _, ok := y.(*ssa.Const); !ok {
		return false
	}
	if isErrorValue(x) {
		return false
	}
	return state(x) && !f.text(c.Parent(), x, 0).own
}

// state reports whether v is read from a field or a package variable
// through no call: the server's state, not what a call returned.
func state(v ssa.Value) bool {
	seen := false
	for range 16 {
		switch x := v.(type) {
		case *ssa.UnOp:
			v = x.X
		case *ssa.FieldAddr:
			v, seen = x.X, true
		case *ssa.Field:
			v, seen = x.X, true
		case *ssa.Global:
			return true
		case *ssa.Parameter, *ssa.FreeVar:
			return seen
		default:
			return false
		}
	}
	return false
}
