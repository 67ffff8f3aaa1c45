package vet

import (
	"os"
	"path/filepath"
	"testing"
)

// TestImportsMcperr checks which files of a module count when deciding
// whether the module has mcperr: as go mod tidy reads them.
func TestImportsMcperr(t *testing.T) {
	t.Parallel()
	const uses = "package x\n\nimport _ \"github.com/mcperr/mcperr/toolerr\"\n"
	for _, tc := range []struct {
		name   string
		files  map[string]string
		ignore []string
		want   bool
	}{
		{"a command", map[string]string{"cmd/server/main.go": uses}, nil, true},
		{"a test file", map[string]string{"tools/tools_test.go": uses}, nil, true},
		{"none", map[string]string{"tools/tools.go": "package tools\n\nimport _ \"fmt\"\n"}, nil, false},
		{"testdata", map[string]string{"tools/testdata/x.go": uses}, nil, false},
		{"vendor", map[string]string{"vendor/x/x.go": uses}, nil, false},
		{"hidden", map[string]string{".cache/x.go": uses, "_old/x.go": uses}, nil, false},
		{"a nested module", map[string]string{"sub/go.mod": "module sub\n", "sub/x.go": uses}, nil, false},
		{"built only with ignore", map[string]string{"gen.go": "//go:build ignore\n\n" + uses}, nil, false},
		{"built with another tag", map[string]string{"gen.go": "//go:build linux\n\n" + uses}, nil, true},
		{"ignored from the root", map[string]string{"web/x.go": uses}, []string{"./web"}, false},
		{"ignored at any depth", map[string]string{"a/node_modules/x.go": uses}, []string{"node_modules"}, false},
		{"ignored elsewhere", map[string]string{"a/web/x.go": uses}, []string{"./web"}, true},
	} {
		root := t.TempDir()
		for name, src := range tc.files {
			path := filepath.Join(root, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if got := importsMcperr(root, tc.ignore); got != tc.want {
			t.Errorf("%s: importsMcperr = %v, want %v", tc.name, got, tc.want)
		}
	}
}
