package main

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"regexp"
	"sort"
	"strings"
	"unicode"

	"golang.org/x/tools/go/packages"
)

// A message is one of the module's own texts, as a pattern: Source is how
// the module writes it (a format keeps its verbs), and re matches the texts
// it makes with every part that prints another's error left empty.
type message struct {
	Source string
	re     *regexp.Regexp
}

// ownWords is the set of the module's messages a text is matched against.
type ownWords []message

// match returns the module's message that text is made of, if any.
func (w ownWords) match(text string) (message, bool) {
	for _, m := range w {
		if m.re.MatchString(text) {
			return m, true
		}
	}
	return message{}, false
}

// Where the module's messages are written: the functions whose string
// argument (a format for those ending in f, and for fmt.Errorf) is the text
// a failure carries.
var messageFuncs = map[string]map[string]bool{
	"errors":                           {"New": true},
	"fmt":                              {"Errorf": true},
	"github.com/mcperr/mcperr/toolerr": {"New": true, "Wrap": true},
	"github.com/mark3labs/mcp-go/mcp":  {"NewToolResultError": true, "NewToolResultErrorf": true, "NewToolResultErrorFromErr": true},
}

// loadOwnWords loads the packages patterns name, from dir, and returns the
// messages they write (see the command's documentation for the rule).
func loadOwnWords(dir string, patterns []string) (ownWords, error) {
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo,
		Dir:  dir,
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, err
	}
	if n := packages.PrintErrors(pkgs); n > 0 {
		return nil, fmt.Errorf("%d errors loading %s", n, strings.Join(patterns, " "))
	}
	seen := map[string]bool{}
	var words ownWords
	add := func(source, pattern string) {
		if seen[pattern] || !hasWord(source) {
			return
		}
		seen[pattern] = true
		words = append(words, message{Source: source, re: regexp.MustCompile(`^(?s:` + pattern + `)$`)})
	}
	for _, pkg := range pkgs {
		c := collector{info: pkg.TypesInfo, add: add}
		for _, f := range pkg.Syntax {
			ast.Inspect(f, c.visit)
		}
	}
	// The most specific first: a text made of one message is named by it.
	sort.SliceStable(words, func(i, j int) bool { return len(words[i].Source) > len(words[j].Source) })
	return words, nil
}

// hasWord reports whether a message's own text has a word of three letters
// or more: "%s: %v" says nothing of its own, and would match every text.
func hasWord(source string) bool {
	run := 0
	for _, r := range source {
		if unicode.IsLetter(r) {
			if run++; run >= 3 {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

type collector struct {
	info *types.Info
	add  func(source, pattern string)
}

func (c collector) visit(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.CallExpr:
		pkg, name := c.callee(n)
		if !messageFuncs[pkg][name] || len(n.Args) == 0 {
			return true
		}
		switch {
		case name == "Wrap" && len(n.Args) == 2: // toolerr.Wrap(err, message)
			c.add(c.text(n.Args[1]))
		case pkg == "fmt" || strings.HasSuffix(name, "f"):
			if source, pattern, ok := c.format(n.Args[0], n.Args[1:]); ok {
				c.add(source, pattern)
			}
		default: // NewToolResultErrorFromErr's error, after its text, is another's
			c.add(c.text(n.Args[0]))
		}
	case *ast.CompositeLit: // a go-sdk &mcp.TextContent{Text: ...}
		if named, ok := types.Unalias(c.info.TypeOf(n)).(*types.Named); ok &&
			named.Obj().Name() == "TextContent" && named.Obj().Pkg() != nil &&
			named.Obj().Pkg().Path() == "github.com/modelcontextprotocol/go-sdk/mcp" {
			for _, e := range n.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok && isIdent(kv.Key, "Text") {
					c.add(c.text(kv.Value))
				}
			}
		}
	}
	return true
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// callee returns the package path and name of the function call calls, if
// it is a package-level function.
func (c collector) callee(call *ast.CallExpr) (pkg, name string) {
	var id *ast.Ident
	switch fn := ast.Unparen(call.Fun).(type) {
	case *ast.SelectorExpr:
		id = fn.Sel
	case *ast.Ident:
		id = fn
	default:
		return "", ""
	}
	f, ok := c.info.Uses[id].(*types.Func)
	if !ok || f.Pkg() == nil || f.Type().(*types.Signature).Recv() != nil {
		return "", ""
	}
	return f.Pkg().Path(), f.Name()
}

// text returns how e is written and its pattern: a constant as it is, a
// concatenation part by part, a fmt.Sprintf by its format, an error's
// Error() as nothing (another's text), anything else as any text.
func (c collector) text(e ast.Expr) (source, pattern string) {
	e = ast.Unparen(e)
	if tv, ok := c.info.Types[e]; ok && tv.Value != nil && tv.Value.Kind() == constant.String {
		s := constant.StringVal(tv.Value)
		return s, regexp.QuoteMeta(s)
	}
	switch e := e.(type) {
	case *ast.BinaryExpr:
		if e.Op == token.ADD {
			xs, xp := c.text(e.X)
			ys, yp := c.text(e.Y)
			return xs + ys, xp + yp
		}
	case *ast.CallExpr:
		if pkg, name := c.callee(e); pkg == "fmt" && name == "Sprintf" && len(e.Args) > 0 {
			if source, pattern, ok := c.format(e.Args[0], e.Args[1:]); ok {
				return source, pattern
			}
		}
		if sel, ok := ast.Unparen(e.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == "Error" && len(e.Args) == 0 && c.isError(sel.X) {
			return "%v", ""
		}
	}
	return "%v", ".*"
}

var errorType = types.Universe.Lookup("error").Type().Underlying().(*types.Interface)

func (c collector) isError(e ast.Expr) bool {
	t := c.info.TypeOf(e)
	return t != nil && types.Implements(t, errorType)
}

// format returns the pattern of a constant format given args: each verb
// any text, but %w and a verb given an error, which print another's text,
// nothing; %% a percent sign.
func (c collector) format(f ast.Expr, args []ast.Expr) (source, pattern string, ok bool) {
	tv, ok := c.info.Types[ast.Unparen(f)]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
		return "", "", false
	}
	source = constant.StringVal(tv.Value)
	var b strings.Builder
	arg := 0
	for i := 0; i < len(source); i++ {
		if source[i] != '%' {
			b.WriteString(regexp.QuoteMeta(source[i : i+1]))
			continue
		}
		j := i + 1
		for j < len(source) && strings.IndexByte("+-# 0123456789.*[]", source[j]) >= 0 {
			j++
		}
		if j == len(source) {
			b.WriteString("%")
			break
		}
		verb := source[j]
		i = j
		if verb == '%' {
			b.WriteString("%")
			continue
		}
		foreign := verb == 'w' || arg < len(args) && c.isError(args[arg])
		arg++
		if !foreign {
			b.WriteString(".*")
		}
	}
	return source, b.String(), true
}
