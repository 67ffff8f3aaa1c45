package mcperr_test

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeSnippetsCompile checks that every Go snippet in README.md and
// in docs/ is quoted, line for line, from a Go file of the module, which
// the build and go vet compile. A snippet that drifts from the code, or was
// never code, fails here.
func TestReadmeSnippetsCompile(t *testing.T) {
	readme := goBlocks(t, "README.md")
	if len(readme) < 5 {
		t.Fatalf("README.md has %d Go snippets; the tour alone has more", len(readme))
	}
	snippets := readme
	pages, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range pages {
		snippets = append(snippets, goBlocks(t, page)...)
	}
	var files [][]string
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && path != "readme_test.go" {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			files = append(files, normalize(string(b)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, sn := range snippets {
		if !quoted(normalize(sn.text), files) {
			t.Errorf("%s:%d: this Go snippet is not quoted from any Go file of the module:\n%s", sn.file, sn.line, sn.text)
		}
	}
}

type snippet struct {
	file string
	line int
	text string
}

// goBlocks returns the ```go blocks of the Markdown file name.
func goBlocks(t *testing.T, name string) []snippet {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []snippet
	var cur *snippet
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.TrimSpace(line) == "```go":
			cur = &snippet{file: name, line: n + 1}
		case cur != nil && strings.TrimSpace(line) == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.text += line + "\n"
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur != nil {
		t.Fatalf("%s:%d: a Go block is never closed", name, cur.line)
	}
	return out
}

// normalize splits text into lines without their indentation or trailing
// space, dropping blank lines.
func normalize(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// quoted reports whether lines appear, consecutively, in one of files.
func quoted(lines []string, files [][]string) bool {
	if len(lines) == 0 {
		return false
	}
	for _, f := range files {
	next:
		for i := 0; i+len(lines) <= len(f); i++ {
			for j, l := range lines {
				if f[i+j] != l {
					continue next
				}
			}
			return true
		}
	}
	return false
}

// readmeLines is the most lines README.md may have: what a Go developer who
// has never heard of mcperr reads first, the two commands, the tour on both
// SDKs and the behaviour table. Details live in docs/ and the packs'
// READMEs, linked from it.
const readmeLines = 300

// TestReadmeLength checks README.md against readmeLines.
func TestReadmeLength(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	n := bytes.Count(b, []byte("\n"))
	t.Logf("README.md: %d lines (limit %d)", n, readmeLines)
	if n > readmeLines {
		t.Errorf("README.md has %d lines, over the limit of %d: move the detail to docs/ and link it", n, readmeLines)
	}
}

// TestDocLinks checks that every relative link of README.md and docs/*.md
// names a file or folder of the checkout. Code is not links: a generic
// function instantiated and called, F[T](x), is left out.
func TestDocLinks(t *testing.T) {
	pages, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	link := regexp.MustCompile(`\]\(([^)#\s]+)(#[^)]*)?\)`)
	code := regexp.MustCompile("(?s)```.*?```|`[^`\n]*`")
	for _, page := range append(pages, "README.md") {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(code.ReplaceAllString(string(b), ""), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(page), target)); err != nil {
				t.Errorf("%s links to %s, which does not exist", page, target)
			}
		}
	}
}
