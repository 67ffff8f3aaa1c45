package mcpgo_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestOptionsInTheWrongPlaceDoNotCompile checks that options are typed by
// where they apply: a per-tool option given to Install, and an option of
// the whole server's pipeline given to AddTool, are type errors pointing at
// the misplaced argument, while the same options in their places compile.
// The packages live under testdata, which ./... leaves out.
func TestOptionsInTheWrongPlaceDoNotCompile(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH")
	}
	tests := []struct {
		pkg string
		// arg is the misplaced argument as written in the package; the
		// error must point at it. Empty for the control package.
		arg string
		// says are what the error must name besides its position.
		says []string
	}{
		{"installwithfilters", "filter.WithFilters(noop)", []string{"too many arguments in call to mcpgo.Install", "filter.ToolOption"}},
		{"addtoolwithpipelineoption", "filter.WithRedaction(true)", []string{
			"cannot use filter.WithRedaction(true)", "filter.Option", "as filter.ToolOption value in argument to mcpgo.AddTool"}},
		{"control", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.pkg, func(t *testing.T) {
			dir := filepath.Join("testdata", "wrongscope", tt.pkg)
			cmd := exec.Command(goCmd, "vet", "./"+filepath.ToSlash(dir))
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			if tt.arg == "" {
				if err != nil {
					t.Fatalf("go vet of the control package: %v\n%s", err, out.Bytes())
				}
				return
			}
			if err == nil {
				t.Fatalf("go vet passed; want a type error for %s:\n%s", tt.arg, out.Bytes())
			}
			if _, ok := err.(*exec.ExitError); !ok {
				t.Fatalf("go vet did not run: %v", err)
			}
			where := argPosition(t, filepath.Join(dir, "scope.go"), tt.arg)
			for _, s := range append([]string{where}, tt.says...) {
				if !strings.Contains(out.String(), s) {
					t.Errorf("go vet says\n%s\nwant it to say %q", out.Bytes(), s)
				}
			}
		})
	}
}

// argPosition returns "scope.go:line:column" of the one occurrence of arg
// in the file at path, columns counted in bytes from 1, as the compiler
// reports them.
func argPosition(t *testing.T, path, arg string) string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(src, []byte(arg)); n != 1 {
		t.Fatalf("%s holds %q %d times, want once", path, arg, n)
	}
	i := bytes.Index(src, []byte(arg))
	line := bytes.Count(src[:i], []byte("\n")) + 1
	col := i - bytes.LastIndexByte(src[:i], '\n')
	return fmt.Sprintf("%s:%d:%d", filepath.Base(path), line, col)
}
