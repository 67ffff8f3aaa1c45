package provenance

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/tools/go/ast/astutil"
)

const (
	toolerrPath = "github.com/mcperr/mcperr/toolerr"
	codesPath   = "github.com/mcperr/mcperr/codes"
)

// Edit replaces the bytes [Start, End) of a file with New.
type Edit struct {
	Start, End int
	New        string
}

// lostEdits returns the edits that make fd's errors.New or fmt.Errorf a
// ToolError of the same words.
func (p *program) lostEdits(fd Finding) ([]Edit, bool) {
	file := p.syntax(fd.Pos.Filename)
	call := p.callAt(fd.Pos.Filename, fd.call.Pos())
	if call == nil {
		return nil, false
	}
	off := func(pos token.Pos) int { return p.fset.Position(pos).Offset }
	_, name := funcPath(fd.call.Common().StaticCallee())
	conv := false
	if path, _ := astutil.PathEnclosingInterval(file, call.Pos(), call.End()); len(path) > 1 {
		conv = untypedDecl(path[1]) // the variable stays an error
	}
	sprintf := name == "Errorf" && len(call.Args) > 1
	open, closing := "toolerr.New", ""
	if conv {
		open = "error(" + open
	}
	end := off(call.Fun.End())
	if sprintf {
		open += "(fmt.Sprintf("
		end = off(call.Lparen) + 1
		closing = ")"
	}
	if saysRetry(fd.text) {
		closing += ".WithRetryable(true)"
	}
	if conv {
		closing += ")"
	}
	es := []Edit{{off(call.Fun.Pos()), end, open}}
	if closing != "" {
		es = append(es, Edit{off(call.Rparen) + 1, off(call.Rparen) + 1, closing})
	}
	return es, true
}

// wrapEdits returns the edit that makes the verb of fd's fmt.Errorf for
// its argument fd.mend a %w: a plain %v or %s, in a string literal
// written at the call, whose verbs take their arguments in order.
func (p *program) wrapEdits(fd Finding) ([]Edit, bool) {
	call := p.callAt(fd.Pos.Filename, fd.call.Pos())
	if call == nil || len(call.Args) < 2 {
		return nil, false
	}
	lit, ok := call.Args[0].(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return nil, false
	}
	at := verbAt(lit.Value, fd.mend)
	if at < 0 {
		return nil, false
	}
	off := p.fset.Position(lit.Pos()).Offset + at
	return []Edit{{off, off + 1, "w"}}, true
}

// verbAt returns the offset in a format's source of the verb letter of
// its n-th verb (from 1) when it is a plain %v or %s and every verb
// before it is plain too, else -1.
func verbAt(src string, n int) int {
	k := 0
	for i := 0; i < len(src); i++ {
		if src[i] != '%' {
			continue
		}
		if i+1 >= len(src) {
			return -1
		}
		if src[i+1] == '%' {
			i++
			continue
		}
		j := i + 1
		for j < len(src) && strings.IndexByte("+-# 0123456789.", src[j]) >= 0 {
			j++
		}
		if j >= len(src) || src[j] == '*' || src[j] == '[' {
			return -1
		}
		k++
		if k == n {
			if j == i+1 && (src[j] == 'v' || src[j] == 's') {
				return j
			}
			return -1
		}
		i = j
	}
	return -1
}

// typedEdits returns the edit that gives fd's error type PublicMessage and
// ErrorCode methods after its Error method.
func (p *program) typedEdits(fd Finding) ([]Edit, bool) {
	file := p.syntax(fd.Pos.Filename)
	if file == nil {
		return nil, false
	}
	var decl *ast.FuncDecl
	for _, d := range file.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Pos() == fd.typed.Pos() && fn.Recv != nil && len(fn.Recv.List) == 1 {
			decl = fn
		}
	}
	if decl == nil {
		return nil, false
	}
	field := decl.Recv.List[0]
	name := "e"
	if len(field.Names) == 1 && field.Names[0].Name != "_" {
		name = field.Names[0].Name
	}
	src, err := os.ReadFile(fd.Pos.Filename)
	if err != nil {
		return nil, false
	}
	typ := string(src[p.fset.Position(field.Type.Pos()).Offset:p.fset.Position(field.Type.End()).Offset])
	recv := "(" + name + " " + typ + ")"
	text := "\n\n// PublicMessage returns the error's text, written for the model: mcperr\n// sends it as written.\n" +
		"func " + recv + " PublicMessage() string { return " + name + ".Error() }\n\n" +
		"// ErrorCode is the code mcperr answers the error with.\n" +
		"func " + recv + " ErrorCode() codes.Code { return codes.ToolFailed }"
	end := p.fset.Position(decl.End()).Offset
	return []Edit{{end, end, text}}, true
}

// syntax returns the module's file named file.
func (p *program) syntax(file string) *ast.File {
	pkg := p.files[file]
	if pkg == nil {
		return nil
	}
	for _, f := range pkg.Syntax {
		if p.fset.Position(f.Package).Filename == file {
			return f
		}
	}
	return nil
}

// callAt returns the call of the module's file whose left parenthesis is
// at lparen, as SSA places a call.
func (p *program) callAt(file string, lparen token.Pos) *ast.CallExpr {
	f := p.syntax(file)
	if f == nil {
		return nil
	}
	var call *ast.CallExpr
	ast.Inspect(f, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && c.Lparen == lparen {
			call = c
		}
		return call == nil
	})
	return call
}

// untypedDecl reports whether parent declares a variable whose type call
// decides (x := errors.New(...), var x = errors.New(...)).
func untypedDecl(parent ast.Node) bool {
	switch n := parent.(type) {
	case *ast.AssignStmt:
		return n.Tok == token.DEFINE
	case *ast.ValueSpec:
		return n.Type == nil
	}
	return false
}

// saysRetry reports whether a message tells the model to try again later,
// which a ToolError must then not contradict with "Retry: no".
func saysRetry(words string) bool {
	w := strings.ToLower(words)
	if strings.Contains(w, "not retry") || strings.Contains(w, "n't retry") || strings.Contains(w, "not try again") {
		return false
	}
	return strings.Contains(w, "retry") || strings.Contains(w, "try again") || strings.Contains(w, "temporarily unavailable")
}

// Apply makes the edits in file, the same edit given twice made once and
// one that overlaps an edit made before it left out, then imports toolerr
// where the file now uses it, drops an import left unused and formats the
// file. It returns how many edits it made.
func Apply(file string, es []Edit) (int, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return 0, err
	}
	slices.SortStableFunc(es, func(a, b Edit) int { return a.Start - b.Start })
	var keep []Edit
	seen := map[Edit]bool{}
	for _, e := range es {
		if seen[e] {
			continue
		}
		seen[e] = true
		if n := len(keep); n > 0 {
			last := keep[n-1]
			if e.Start < last.End || e.Start == last.Start && last.End > last.Start {
				continue
			}
		}
		keep = append(keep, e)
	}
	for i := len(keep) - 1; i >= 0; i-- {
		e := keep[i]
		if e.Start < 0 || e.End > len(src) || e.Start > e.End {
			return 0, fmt.Errorf("%s: an edit out of the file's bounds", file)
		}
		src = slices.Concat(src[:e.Start], []byte(e.New), src[e.End:])
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.ParseComments)
	if err != nil {
		return 0, fmt.Errorf("%s: the rewrite does not parse: %v", file, err)
	}
	for _, path := range []string{"errors", "fmt"} {
		if !astutil.UsesImport(f, path) {
			astutil.DeleteImport(fset, f, path)
		}
	}
	if usesName(f, "errors") && !imports(f, "errors") {
		astutil.AddImport(fset, f, "errors") // another's text, now an error: the cause of a Wrap
	}
	var buf bytes.Buffer
	if err := format.Node(&buf, fset, f); err != nil {
		return 0, err
	}
	out := buf.Bytes()
	for name, path := range map[string]string{"toolerr": toolerrPath, "codes": codesPath} {
		if usesName(f, name) && !imports(f, path) {
			if out, err = addImport(out, path); err != nil {
				return 0, fmt.Errorf("%s: %v", file, err)
			}
		}
	}
	return len(keep), os.WriteFile(file, out, 0o644)
}

func imports(f *ast.File, path string) bool {
	for _, s := range f.Imports {
		if s.Path.Value == strconv.Quote(path) {
			return true
		}
	}
	return false
}

// addImport adds path to src's imports as goimports would: in the last
// group of imports that are not the standard library's, or in a group of
// its own after them.
func addImport(src []byte, path string) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ImportsOnly|parser.ParseComments)
	if err != nil {
		return nil, err
	}
	spec := strconv.Quote(path)
	var last *ast.GenDecl
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
			last = g
		}
	}
	var at int
	var text string
	switch {
	case last == nil:
		at, text = fset.Position(f.Name.End()).Offset, "\n\nimport "+spec+"\n"
	case !last.Lparen.IsValid():
		at = fset.Position(last.Pos()).Offset
		end := fset.Position(last.End()).Offset
		one := string(src[fset.Position(last.Specs[0].Pos()).Offset:end])
		return format.Source(slices.Concat(src[:at], []byte("import (\n\t"+one+"\n\n\t"+spec+"\n)"), src[end:]))
	default:
		lastSpec := last.Specs[len(last.Specs)-1].(*ast.ImportSpec)
		at = fset.Position(lastSpec.End()).Offset
		text = "\n\n\t" + spec
		if p, _ := strconv.Unquote(lastSpec.Path.Value); strings.Contains(strings.SplitN(p, "/", 2)[0], ".") {
			text = "\n\t" + spec // the last group is already not the standard library's
		}
	}
	return format.Source(slices.Concat(src[:at], []byte(text), src[at:]))
}

// usesName reports whether f refers to the package name in a selector.
func usesName(f *ast.File, name string) bool {
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		if s, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := s.X.(*ast.Ident); ok && id.Name == name {
				found = true
			}
		}
		return !found
	})
	return found
}

// verbRE matches a verb of a format.
var verbRE = regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z%]`)

// wrapperWords returns the source of a format literal, quotes included,
// without its last verb and the separator before it ("get user %s: %w"
// gives "get user %s"), when that verb is a plain %v, %s or %w ending the
// format, the verb of the last of its nargs arguments, and words are left.
func wrapperWords(lit string, nargs int) (string, bool) {
	if len(lit) < 2 {
		return "", false
	}
	q, inner := lit[:1], lit[1:len(lit)-1]
	n, last := 0, -1
	for i := 0; i < len(inner); i++ {
		if inner[i] != '%' {
			continue
		}
		if i+1 < len(inner) && inner[i+1] == '%' {
			i++
			continue
		}
		j := i + 1
		for j < len(inner) && strings.IndexByte("+-# 0123456789.", inner[j]) >= 0 {
			j++
		}
		if j >= len(inner) || inner[j] == '*' || inner[j] == '[' {
			return "", false
		}
		n, last, i = n+1, i, j
	}
	if n != nargs || last < 0 || last+2 != len(inner) || strings.IndexByte("vsw", inner[last+1]) < 0 {
		return "", false
	}
	words := trimSeparator(inner[:last])
	if !strings.ContainsFunc(verbRE.ReplaceAllString(words, ""), unicode.IsLetter) {
		return "", false // no word of the server's: "%s: %w"
	}
	return q + words + q, true
}

// trimSeparator returns the words of a format before its last verb, as
// they appear in the literal, without what separates them from it: spaces,
// punctuation, and new lines and tabs, raw or escaped ("content:\\n").
func trimSeparator(words string) string {
	for {
		w := strings.TrimRight(words, " :-,;\n\t")
		if (strings.HasSuffix(w, `\n`) || strings.HasSuffix(w, `\t`)) && escaped(w[:len(w)-1]) {
			w = w[:len(w)-2]
		}
		if w == words {
			return w
		}
		words = w
	}
}

// escaped reports whether the backslash that ends s starts an escape: it
// follows an even number of backslashes.
func escaped(s string) bool {
	n := len(s) - len(strings.TrimRight(s, `\`))
	return n%2 == 1
}

// wrapperEdits returns the edit that makes fd's fmt.Errorf, the server's
// words around another's error or text or a flat wrapper's error (see
// flattened) when that error is last, a ToolError of the words over the
// error, or over an error of the text (errors.New(resp.Status)),
// which the model reads after them where it is public:
// fmt.Errorf("get user %s: %w", login, err) becomes
// toolerr.Wrap(err, fmt.Sprintf("get user %s", login)).
func (p *program) wrapperEdits(fd Finding) ([]Edit, bool) {
	file := p.syntax(fd.Pos.Filename)
	call := p.callAt(fd.Pos.Filename, fd.call.Pos())
	if call == nil || len(call.Args) < 2 || call.Ellipsis.IsValid() || fd.mend > 0 && fd.mend != len(call.Args)-1 {
		return nil, false // a flat wrapper's error is not the last argument: %w mends it
	}
	lit, ok := call.Args[0].(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return nil, false
	}
	words, ok := wrapperWords(lit.Value, len(call.Args)-1)
	if !ok {
		return nil, false
	}
	src, err := os.ReadFile(fd.Pos.Filename)
	if err != nil {
		return nil, false
	}
	text := func(n ast.Node) string {
		return string(src[p.fset.Position(n.Pos()).Offset:p.fset.Position(n.End()).Offset])
	}
	msg := words
	if rest := call.Args[1 : len(call.Args)-1]; len(rest) > 0 || strings.Contains(words, "%") {
		parts := []string{words}
		for _, a := range rest {
			parts = append(parts, text(a))
		}
		msg = "fmt.Sprintf(" + strings.Join(parts, ", ") + ")"
	}
	last := call.Args[len(call.Args)-1]
	cause := text(last)
	if m, ok := last.(*ast.CallExpr); ok && len(m.Args) == 0 && fd.textArg == stringArg {
		if sel, ok := m.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Error" {
			fd.textArg, cause = noText, text(sel.X) // err.Error(): err itself is the cause
		}
	}
	switch fd.textArg {
	case stringArg:
		cause = "errors.New(" + cause + ")"
	case convArg:
		cause = "errors.New(string(" + cause + "))"
	}
	repl := "toolerr.Wrap(" + cause + ", " + msg + ")"
	if path, _ := astutil.PathEnclosingInterval(file, call.Pos(), call.End()); len(path) > 1 && untypedDecl(path[1]) {
		repl = "error(" + repl + ")" // the variable stays an error
	}
	return []Edit{{p.fset.Position(call.Pos()).Offset, p.fset.Position(call.End()).Offset, repl}}, true
}
