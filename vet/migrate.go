package vet

import (
	"bytes"
	"go/ast"
	"go/constant"
	"go/format"
	"go/token"
	"go/types"
	"math/bits"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// report reports d, without its fixes where d is in a _test.go file: -fix
// never rewrites a test double, which a test keeps as it is on purpose.
func report(pass *analysis.Pass, d analysis.Diagnostic) {
	if inTestFile(pass, d.Pos) {
		d.SuggestedFixes = nil
	}
	pass.Report(d)
}

// inTestFile reports whether pos is in a _test.go file.
func inTestFile(pass *analysis.Pass, pos token.Pos) bool {
	return strings.HasSuffix(pass.Fset.Position(pos).Filename, "_test.go")
}

// migrateFix returns the fix that migrates the error result reported at
// pos: a handler's
//
//	return mcp.NewToolResultError(fmt.Sprintf("failed to get issue: %v", err)), nil
//
// becomes
//
//	return nil, toolerr.Wrap(err, "failed to get issue")
//
// so that the model reads the site's own words, mcperr's filters classify
// the error, and its text reaches only the log. A result made of the
// error's text alone becomes the error itself, which mcperr masks or a
// filter answers. The fix is offered only where it is mechanical: the
// result is the first of a return statement of a function that returns
// (*CallToolResult, error) or, on go-sdk, (*CallToolResult, Out, error),
// with nil as its error; the text is err.Error(), a literal followed by
// err.Error(), or a format whose last verb is the error. Elsewhere the
// report says what to write.
func migrateFix(pass *analysis.Pass, pos token.Pos) []analysis.SuggestedFix {
	file := fileOf(pass, pos)
	if file == nil {
		return nil
	}
	path, _ := astutil.PathEnclosingInterval(file, pos, pos)
	var ret *ast.ReturnStmt
	var sig *types.Signature
	for i, n := range path {
		switch n := n.(type) {
		case *ast.ReturnStmt:
			if ret == nil && i > 0 && len(n.Results) > 0 && path[i-1] == n.Results[0] {
				ret = n
			}
		case *ast.FuncLit:
			sig, _ = pass.TypesInfo.TypeOf(n).(*types.Signature)
		case *ast.FuncDecl:
			if obj, ok := pass.TypesInfo.Defs[n.Name].(*types.Func); ok {
				sig = obj.Signature()
			}
		}
		if sig != nil {
			break
		}
	}
	if ret == nil || sig == nil {
		return nil
	}
	if !handlerResults(pass, sig, ret) {
		return setErrorFix(pass, file, sig, ret)
	}
	words, cause, ok := helperCall(pass, ret.Results[0])
	if !ok {
		text := resultText(pass, ret.Results[0])
		if text == nil {
			return nil
		}
		if words, cause, ok = splitText(pass, text); !ok {
			return nil
		}
	}
	im := newImporter(pass, file, ret.Pos())
	repl := src(pass, cause)
	if words != "" {
		name, ok := im.name(pathToolerr, "toolerr")
		if !ok {
			return nil
		}
		if strings.HasPrefix(words, "fmt.Sprintf(") {
			fname, ok := im.name("fmt", "fmt")
			if !ok {
				return nil
			}
			words = fname + strings.TrimPrefix(words, "fmt")
		}
		repl = name + ".Wrap(" + repl + ", " + words + ")"
	}
	edits := im.edits()
	middle := ""
	if len(ret.Results) == 3 {
		middle = src(pass, ret.Results[1]) + ", "
	}
	edits = append(edits, analysis.TextEdit{Pos: ret.Results[0].Pos(), End: ret.Results[len(ret.Results)-1].End(),
		NewText: []byte("nil, " + middle + repl)})
	msg := "Return the error, for mcperr to mask or classify"
	if words != "" {
		msg = "Return the site's words as a ToolError with the error as its cause"
	}
	return []analysis.SuggestedFix{{Message: msg, TextEdits: edits}}
}

// setErrorFix returns the fix of a go-sdk error result a helper, which is
// not a handler, builds from an error and returns, as GitHub's
// NewToolResultErrorFromErr does: the result keeps the error with
// SetError, as a ToolError with the site's words and the error as its
// cause, and so the text SetError gives it is the one it had (words, ": ",
// the error's text), while mcperr's middleware answers from the error. A
// result of the error's text alone, as a framework's converter builds
// (Kubernetes' NewTextResult(content, err)), keeps the error itself.
func setErrorFix(pass *analysis.Pass, file *ast.File, sig *types.Signature, ret *ast.ReturnStmt) []analysis.SuggestedFix {
	if sig.Results().Len() != 1 || len(ret.Results) != 1 || !isNamed(sig.Results().At(0).Type(), pathSDK, "CallToolResult") {
		return nil
	}
	text := resultText(pass, ret.Results[0])
	if text == nil {
		return nil
	}
	words, cause, ok := splitText(pass, text)
	if !ok || strings.HasPrefix(words, "fmt.") || words == "" && !alwaysError(pass, ret.Results[0]) {
		return nil
	}
	scope := pass.Pkg.Scope().Innermost(ret.Pos())
	name := ""
	for _, n := range []string{"res", "result", "errResult"} {
		if _, obj := scope.LookupParent(n, ret.Pos()); obj == nil {
			name = n
			break
		}
	}
	mcpName := importName(pass, file, pathSDK)
	if name == "" || mcpName == "" {
		return nil
	}
	kept, msg := src(pass, cause), "Keep the error in the result with SetError"
	im := newImporter(pass, file, ret.Pos())
	if words != "" {
		te, ok := im.name(pathToolerr, "toolerr")
		if !ok {
			return nil
		}
		kept, msg = te+".Wrap("+kept+", "+words+")", msg+", as a ToolError with the site's words"
	}
	edits := im.edits()
	indent := "\n" + strings.Repeat("\t", pass.Fset.Position(ret.Pos()).Column-1)
	edits = append(edits, analysis.TextEdit{Pos: ret.Pos(), End: ret.End(), NewText: []byte(name + " := &" + mcpName + ".CallToolResult{}" +
		indent + name + ".SetError(" + kept + ")" + indent + "return " + name)})
	return []analysis.SuggestedFix{{Message: msg, TextEdits: edits}}
}

// alwaysError reports whether x is a result literal with IsError: true,
// not a condition such as err != nil, which SetError could not keep.
func alwaysError(pass *analysis.Pass, x ast.Expr) bool {
	if u, ok := ast.Unparen(x).(*ast.UnaryExpr); ok && u.Op == token.AND {
		x = u.X
	}
	lit, ok := ast.Unparen(x).(*ast.CompositeLit)
	if !ok {
		return false
	}
	for _, e := range lit.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			if key, ok := kv.Key.(*ast.Ident); ok && key.Name == "IsError" {
				v := pass.TypesInfo.Types[kv.Value].Value
				return v != nil && v.Kind() == constant.Bool && constant.BoolVal(v)
			}
		}
	}
	return false
}

// helperCall reads x, a call of a module's helper whose fact says it puts
// one string argument and the text of one error argument into an mcp-go
// result (Terraform's ToolError(logger, message, err)), as the site's words,
// a literal or a format of values that are not errors, and the error.
func helperCall(pass *analysis.Pass, x ast.Expr) (words string, cause ast.Expr, ok bool) {
	call, isCall := ast.Unparen(x).(*ast.CallExpr)
	if !isCall || call.Ellipsis.IsValid() {
		return "", nil, false
	}
	fn := typeutil.StaticCallee(pass.TypesInfo, call)
	var h sdkHelper
	if fn == nil || !pass.ImportObjectFact(fn, &h) || bits.OnesCount64(h.Errs) != 1 || bits.OnesCount64(h.Params) != 1 {
		return "", nil, false
	}
	w, e := bits.TrailingZeros64(h.Params), bits.TrailingZeros64(h.Errs)
	if w >= len(call.Args) || e >= len(call.Args) {
		return "", nil, false
	}
	if nilArg, _ := ast.Unparen(call.Args[e]).(*ast.Ident); nilArg != nil && nilArg.Name == "nil" {
		if t := errorText(pass, ast.Unparen(call.Args[w])); t != nil {
			return "", t, true // ToolError(logger, err.Error(), nil): the error itself
		}
	}
	if !isError(pass, call.Args[e]) {
		return "", nil, false
	}
	switch a := ast.Unparen(call.Args[w]).(type) {
	case *ast.BasicLit:
		return src(pass, a), call.Args[e], a.Kind == token.STRING
	case *ast.CallExpr:
		if pkg, name := calleeName(pass, a); pkg != "fmt" || name != "Sprintf" || a.Ellipsis.IsValid() {
			return "", nil, false
		}
		for _, arg := range a.Args {
			if isError(pass, arg) || errorText(pass, ast.Unparen(arg)) != nil {
				return "", nil, false
			}
		}
		return src(pass, a), call.Args[e], true
	}
	return "", nil, false
}

// fileOf returns the file of pass that holds pos.
func fileOf(pass *analysis.Pass, pos token.Pos) *ast.File {
	for _, f := range pass.Files {
		if f.FileStart <= pos && pos < f.FileEnd {
			return f
		}
	}
	return nil
}

// handlerResults reports whether sig returns a *CallToolResult of either
// SDK and an error, with go-sdk's output between them, and whether ret
// returns nil as the error, or the two results of a helper's call
// (return ToolErrorf(logger, "...: %v", err)).
func handlerResults(pass *analysis.Pass, sig *types.Signature, ret *ast.ReturnStmt) bool {
	res := sig.Results()
	n := res.Len()
	if n != 2 && n != 3 {
		return false
	}
	if _, ok := res.At(0).Type().(*types.Pointer); !ok || !isSDKNamed(res.At(0).Type(), "CallToolResult") {
		return false
	}
	if !types.Identical(res.At(n-1).Type(), types.Universe.Lookup("error").Type()) {
		return false
	}
	if tuple, ok := pass.TypesInfo.TypeOf(ret.Results[0]).(*types.Tuple); ok {
		return len(ret.Results) == 1 && tuple.Len() == n
	}
	id, ok := ast.Unparen(ret.Results[len(ret.Results)-1]).(*ast.Ident)
	return len(ret.Results) == n && ok && id.Name == "nil"
}

// formatAt returns the index of the format parameter of the function x
// calls if it ends with (format string, args ...any), as a module's
// ToolErrorf does, and x does not pass a slice with ...; -1 otherwise.
func formatAt(pass *analysis.Pass, x *ast.CallExpr) int {
	sig, ok := pass.TypesInfo.TypeOf(x.Fun).(*types.Signature)
	if !ok || !sig.Variadic() || x.Ellipsis.IsValid() {
		return -1
	}
	p := sig.Params()
	n := p.Len()
	if n < 2 || len(x.Args) < n || !types.Identical(p.At(n-2).Type(), types.Typ[types.String]) {
		return -1
	}
	if elem, ok := p.At(n - 1).Type().(*types.Slice); !ok || !types.IsInterface(elem.Elem()) || elem.Elem().Underlying().(*types.Interface).NumMethods() != 0 {
		return -1
	}
	return n - 2
}

// resultText returns the expression of the text of the error result x: the
// argument of mcp-go's NewToolResultError, the format call of
// NewToolResultErrorf or of a helper that takes a format, a call of
// NewToolResultErrorFromErr as it is, the one argument of a helper, or the
// Text of the one text block of a CallToolResult literal; nil for any other
// form.
func resultText(pass *analysis.Pass, x ast.Expr) ast.Expr {
	x = ast.Unparen(x)
	if u, ok := x.(*ast.UnaryExpr); ok && u.Op == token.AND {
		x = ast.Unparen(u.X)
	}
	switch x := x.(type) {
	case *ast.CallExpr:
		if x.Ellipsis.IsValid() {
			return nil
		}
		switch pkg, name := calleeName(pass, x); {
		case pkg == pathMCPGo && (name == "NewToolResultErrorf" || name == "NewToolResultErrorFromErr"), formatAt(pass, x) >= 0:
			return x
		case len(x.Args) == 1:
			return x.Args[0]
		}
	case *ast.CompositeLit:
		for _, el := range x.Elts {
			kv, ok := el.(*ast.KeyValueExpr)
			if !ok {
				return nil
			}
			if key, _ := kv.Key.(*ast.Ident); key != nil && key.Name == "Content" {
				list, ok := kv.Value.(*ast.CompositeLit)
				if !ok || len(list.Elts) != 1 {
					return nil
				}
				return blockText(pass, list.Elts[0])
			}
		}
	}
	return nil
}

// blockText returns the text of a text block: &mcp.TextContent{Text: x},
// mcp.TextContent{Type: "text", Text: x} or mcp.NewTextContent(x).
func blockText(pass *analysis.Pass, x ast.Expr) ast.Expr {
	x = ast.Unparen(x)
	if u, ok := x.(*ast.UnaryExpr); ok && u.Op == token.AND {
		x = ast.Unparen(u.X)
	}
	switch x := x.(type) {
	case *ast.CallExpr:
		if pkg, name := calleeName(pass, x); pkg == pathMCPGo && name == "NewTextContent" && len(x.Args) == 1 {
			return x.Args[0]
		}
	case *ast.CompositeLit:
		for _, el := range x.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				if key, _ := kv.Key.(*ast.Ident); key != nil && key.Name == "Text" {
					return kv.Value
				}
			}
		}
	}
	return nil
}

// calleeName returns the package path and name of the function call x
// calls, if it is a function of a package.
func calleeName(pass *analysis.Pass, x *ast.CallExpr) (pkg, name string) {
	var id *ast.Ident
	switch f := ast.Unparen(x.Fun).(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	}
	if id == nil {
		return "", ""
	}
	fn, ok := pass.TypesInfo.Uses[id].(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Signature().Recv() != nil {
		return "", ""
	}
	return fn.Pkg().Path(), fn.Name()
}

// splitText reads x, the text of an error result, as the site's words (Go
// source: a quoted literal or a fmt.Sprintf call; "" when there are none)
// and the error they report.
func splitText(pass *analysis.Pass, x ast.Expr) (words string, cause ast.Expr, ok bool) {
	x = ast.Unparen(x)
	if e := errorText(pass, x); e != nil {
		return "", e, true
	}
	switch x := x.(type) {
	case *ast.BinaryExpr: // "failed to get issue: " + err.Error(), or message + ": " + err.Error()
		e := errorText(pass, ast.Unparen(x.Y))
		if x.Op != token.ADD || e == nil {
			return "", nil, false
		}
		if lit, isLit := literal(x.X); isLit {
			return quoted(lit), e, true
		}
		l, ok := ast.Unparen(x.X).(*ast.BinaryExpr)
		if !ok || l.Op != token.ADD {
			return "", nil, false
		}
		sep, isLit := literal(l.Y)
		id, isIdent := ast.Unparen(l.X).(*ast.Ident)
		if !isLit || strings.Trim(sep, " :;,-") != "" || !isIdent || !types.Identical(pass.TypesInfo.TypeOf(id), types.Typ[types.String]) {
			return "", nil, false
		}
		return id.Name, e, true
	case *ast.CallExpr:
		switch pkg, name := calleeName(pass, x); {
		case pkg == pathMCPGo && name == "NewToolResultErrorFromErr" && len(x.Args) == 2 && isError(pass, x.Args[1]):
			if _, isLit := literal(x.Args[0]); !isLit {
				return "", nil, false
			}
			return src(pass, x.Args[0]), x.Args[1], true
		case pkg == "fmt" && name == "Sprintf", pkg == pathMCPGo && name == "NewToolResultErrorf":
			if len(x.Args) < 2 || x.Ellipsis.IsValid() {
				return "", nil, false
			}
			return splitFormat(pass, x.Args[0], x.Args[1:])
		case formatAt(pass, x) >= 0:
			i := formatAt(pass, x)
			return splitFormat(pass, x.Args[i], x.Args[i+1:])
		}
	}
	return "", nil, false
}

// splitFormat reads a format and its arguments whose last verb, at the
// end of the format, prints an error: "failed to get %s: %v", name, err
// is the words fmt.Sprintf("failed to get %s", name) and the error err.
func splitFormat(pass *analysis.Pass, format ast.Expr, args []ast.Expr) (words string, cause ast.Expr, ok bool) {
	f, isLit := literal(format)
	if !isLit {
		return "", nil, false
	}
	verbs := 0
	last := -1
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		if i+1 < len(f) && f[i+1] == '%' {
			i++
			continue
		}
		j := i + 1
		for j < len(f) && strings.IndexByte("+-# 0", f[j]) >= 0 {
			j++
		}
		if j >= len(f) || !('a' <= f[j] && f[j] <= 'z' || 'A' <= f[j] && f[j] <= 'Z') {
			return "", nil, false // a width, precision or argument index: not mechanical
		}
		verbs++
		last = i
		i = j
	}
	if verbs != len(args) || last < 0 || !strings.Contains("vsw", f[len(f)-1:]) || last != len(f)-2 {
		return "", nil, false
	}
	e := args[len(args)-1]
	if t := errorText(pass, ast.Unparen(e)); t != nil {
		e = t
	}
	if !isError(pass, e) {
		return "", nil, false
	}
	rest := args[:len(args)-1]
	for _, a := range rest {
		if isError(pass, a) || errorText(pass, ast.Unparen(a)) != nil {
			return "", nil, false // two errors: not mechanical
		}
	}
	prefix := strings.TrimRight(f[:last], separators)
	if prefix == "" {
		return "", e, len(rest) == 0
	}
	if len(rest) == 0 {
		return quoted(strings.ReplaceAll(prefix, "%%", "%")), e, true
	}
	parts := []string{quoted(prefix)}
	for _, a := range rest {
		parts = append(parts, src(pass, a))
	}
	return "fmt.Sprintf(" + strings.Join(parts, ", ") + ")", e, true
}

// errorText returns e if x is e.Error() for an error e; nil otherwise.
func errorText(pass *analysis.Pass, x ast.Expr) ast.Expr {
	call, ok := x.(*ast.CallExpr)
	if !ok || len(call.Args) != 0 {
		return nil
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Error" || !isError(pass, sel.X) {
		return nil
	}
	return sel.X
}

// isError reports whether x's type is error, or implements it.
func isError(pass *analysis.Pass, x ast.Expr) bool {
	t := pass.TypesInfo.TypeOf(x)
	return t != nil && types.Implements(t, types.Universe.Lookup("error").Type().Underlying().(*types.Interface))
}

// literal returns the value of a string literal.
func literal(x ast.Expr) (string, bool) {
	lit, ok := ast.Unparen(x).(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

// separators are what joins a wrapper's words to the error's text after
// them: "failed to search issues: %v", "content:\n%s".
const separators = " :;,-\n\t"

// quoted returns s as a Go string literal, without the separator that
// joined it to the error's text.
func quoted(s string) string {
	return strconv.Quote(strings.TrimRight(s, separators))
}

// src returns the source of x.
func src(pass *analysis.Pass, x ast.Expr) string {
	var b bytes.Buffer
	if format.Node(&b, pass.Fset, x) != nil {
		return ""
	}
	return b.String()
}
