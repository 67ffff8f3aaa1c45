package vet

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// importer adds the imports one fix needs to the file it edits, where
// goimports would put them: a package of the standard library in the first
// group of the import block that holds one, any other in the last group
// that holds a package outside the standard library, in sorted order; in a
// group of its own, before the others or after them, where there is no
// such group.
type importer struct {
	pass  *analysis.Pass
	file  *ast.File
	pos   token.Pos // where the fix refers to the packages
	paths []string  // the packages to import
}

func newImporter(pass *analysis.Pass, file *ast.File, pos token.Pos) *importer {
	return &importer{pass: pass, file: file, pos: pos}
}

// name returns the name under which the file refers to the package path at
// the fix's position, and imports it if the file does not yet; ok is false
// if want, the package's name, means something else there.
func (im *importer) name(path, want string) (name string, ok bool) {
	if name := importName(im.pass, im.file, path); name != "" {
		return name, true
	}
	if scope := im.pass.Pkg.Scope().Innermost(im.pos); scope != nil {
		if _, obj := scope.LookupParent(want, im.pos); obj != nil {
			return "", false
		}
	}
	if fs := im.pass.TypesInfo.Scopes[im.file]; fs != nil && fs.Lookup(want) != nil {
		return "", false
	}
	if !slices.Contains(im.paths, path) {
		im.paths = append(im.paths, path)
	}
	return want, true
}

// standard reports whether path is a package of the standard library: its
// first element has no dot.
func standard(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// edits returns the edits that import the packages name was asked for.
func (im *importer) edits() []analysis.TextEdit {
	if len(im.paths) == 0 {
		return nil
	}
	paths := slices.Sorted(slices.Values(im.paths))
	var block *ast.GenDecl
	for _, d := range im.file.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
			if block == nil || !block.Rparen.IsValid() && g.Rparen.IsValid() {
				block = g
			}
		}
	}
	if block == nil || !block.Rparen.IsValid() || len(block.Specs) == 0 {
		text := ""
		for _, p := range paths {
			text += "import " + strconv.Quote(p) + "\n"
		}
		if block != nil {
			// Before a one-line import, so that a comment on the package clause stays there.
			return []analysis.TextEdit{{Pos: block.Pos(), End: block.Pos(), NewText: []byte(text)}}
		}
		return []analysis.TextEdit{{Pos: im.file.Name.End(), End: im.file.Name.End(), NewText: []byte("\n\n" + strings.TrimSuffix(text, "\n"))}}
	}
	tf := im.pass.Fset.File(block.Pos())
	line := func(p token.Pos) int { return tf.Line(p) }
	// lineStart returns where the line of p starts, or, past the last line,
	// p's file's end.
	lineStart := func(l int) token.Pos {
		if l > tf.LineCount() {
			return token.Pos(tf.Base() + tf.Size())
		}
		return tf.LineStart(l)
	}
	// The groups of the block: specs apart from the one before by a blank
	// line, or by a comment.
	var groups [][]*ast.ImportSpec
	for i, s := range block.Specs {
		spec := s.(*ast.ImportSpec)
		start := spec.Pos()
		if spec.Doc != nil {
			start = spec.Doc.Pos()
		}
		if i == 0 || line(start) > line(block.Specs[i-1].End())+1 {
			groups = append(groups, nil)
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], spec)
	}
	specPath := func(s *ast.ImportSpec) string { p, _ := strconv.Unquote(s.Path.Value); return p }
	specStart := func(s *ast.ImportSpec) token.Pos {
		if s.Doc != nil {
			return lineStart(line(s.Doc.Pos()))
		}
		return lineStart(line(s.Pos()))
	}
	after := func(s *ast.ImportSpec) token.Pos { return lineStart(line(s.End()) + 1) }
	// Each path's place: a line within a group, or a new group before the
	// first one or after the last one.
	const (
		newFirst = iota // in this order where places share a position
		inGroup
		newLast
	)
	type place struct {
		pos  token.Pos
		kind int
	}
	var order []place
	at := map[place][]string{}
	for _, p := range paths {
		var group []*ast.ImportSpec
		for i := range groups {
			g := groups[i] // the standard library's: the first group that holds one
			if !standard(p) {
				g = groups[len(groups)-1-i] // another's: the last group that holds one
			}
			if slices.ContainsFunc(g, func(s *ast.ImportSpec) bool { return standard(specPath(s)) == standard(p) }) {
				group = g
				break
			}
		}
		var pl place
		switch {
		case group == nil && standard(p):
			pl = place{specStart(groups[0][0]), newFirst}
		case group == nil:
			last := groups[len(groups)-1]
			pl = place{after(last[len(last)-1]), newLast}
		default:
			pl = place{after(group[len(group)-1]), inGroup}
			for _, s := range group {
				if specPath(s) > p {
					pl.pos = specStart(s)
					break
				}
			}
		}
		if _, ok := at[pl]; !ok {
			order = append(order, pl)
		}
		at[pl] = append(at[pl], p)
	}
	// Places may share a position (the end of the last group and a new
	// group after it): a new first group, then a group's own lines, then a
	// new last group.
	slices.SortStableFunc(order, func(a, b place) int {
		if a.pos != b.pos {
			return int(a.pos - b.pos)
		}
		return a.kind - b.kind
	})
	var edits []analysis.TextEdit
	for _, pl := range order {
		text := ""
		for _, p := range at[pl] {
			text += "\t" + strconv.Quote(p) + "\n"
		}
		switch pl.kind {
		case newFirst:
			text += "\n"
		case newLast:
			text = "\n" + text
		}
		edits = append(edits, analysis.TextEdit{Pos: pl.pos, End: pl.pos, NewText: []byte(text)})
	}
	return edits
}

// importName returns the name under which the file holding n imports path,
// or "" when it does not, or imports it as _ or .
func importName(pass *analysis.Pass, n ast.Node, path string) string {
	for _, f := range pass.Files {
		if f.FileStart > n.Pos() || n.Pos() >= f.FileEnd {
			continue
		}
		for _, spec := range f.Imports {
			p, err := strconv.Unquote(spec.Path.Value)
			if err != nil || p != path {
				continue
			}
			if spec.Name != nil {
				if spec.Name.Name == "_" || spec.Name.Name == "." {
					return ""
				}
				return spec.Name.Name
			}
			if pn, ok := pass.TypesInfo.Implicits[spec].(*types.PkgName); ok {
				return pn.Name()
			}
			return ""
		}
	}
	return ""
}
