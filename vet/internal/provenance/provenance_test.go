package provenance

import (
	"bufio"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRouterServer runs the pass on a server of the shapes public servers
// hid their messages in: an action router dispatching through a generic
// wrapper to work functions of another package, required-field helpers of
// another package, a pass-through result helper, a package variable as a
// format argument, a message built in a loop over the arguments, model-safe
// upstream messages, a body-in-result helper, a DSN in a field around a
// sentinel, %v wrappers of the server's messages, of a ToolError and of a
// library's error about the arguments, a ToolError whose cause is the
// server's own advice, and a test double. It checks that the pass finds exactly the
// lines marked "// want: lost" and "// want: upstream", that its fixes
// build, leave no message lost, keep the retry advice a message gives, and
// touch no test file.
func TestRouterServer(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a module")
	}
	dir := copyFixture(t, "routerserver")
	res, err := Run(Config{Dir: dir, Patterns: []string{"./routerserver/..."}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, fx := range res.Fixes {
		got[rel(dir, Line(fx.Pos))+" lost"] = true
	}
	for _, fd := range res.Findings {
		kind := "lost"
		if fd.Kind == Upstream {
			kind = "upstream"
		}
		got[rel(dir, Line(fd.Pos))+" "+kind] = true
	}
	if want := marked(t, filepath.Join(dir, "routerserver")); !maps.Equal(got, want) {
		t.Fatalf("found %v\nwant %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
	}
	helper := false // a helper that returns only a result is told what fits it
	for _, fd := range res.Findings {
		if fd.Kind == Upstream && rel(dir, Line(fd.Pos)) == "routerserver/routerserver.go:45" {
			helper = strings.Contains(fd.Message, "returns only a result") && strings.Contains(fd.Message, "filter.WithHandBuilt(filter.MaskHandBuilt)")
		}
	}
	if !helper {
		t.Error("the result-only helper's report does not say it returns only a result, nor how to mask its tools' results until it is changed")
	}
	for _, fd := range res.Findings {
		// Only a library's error has no fix: its text is not the server's
		// to make a ToolError of; the report says how to keep it.
		if fd.Kind == Lost && !strings.Contains(fd.Message, "filter.Public[") {
			t.Errorf("a lost message without a fix: %s", fd.Message)
		}
	}

	testFile := filepath.Join(dir, "routerserver", "routerserver_test.go")
	before, _ := os.ReadFile(testFile)
	res = fixRounds(t, Config{Dir: dir, Patterns: []string{"./routerserver/..."}}, res)
	after, _ := os.ReadFile(testFile)
	if string(before) != string(after) {
		t.Error("the test file was rewritten")
	}
	// The library's error about the link, now wrapped, is left to
	// the server to declare public.
	suggested := false
	for _, fd := range res.Findings {
		suggested = suggested || strings.Contains(fd.Message, "uritemplate") && strings.Contains(fd.Message, "filter.Public[")
	}
	if !suggested {
		t.Errorf("after the fixes, no filter.Public suggestion for the link's parse error: %v", res.Findings)
	}
	work, _ := os.ReadFile(filepath.Join(dir, "routerserver", "work", "work.go"))
	for _, want := range []string{
		`toolerr.New("The project service could not be reached; retry later.").WithRetryable(true)`,
		`toolerr.New(fmt.Sprintf("at most %d labels", maxLabels))`,
		`toolerr.New(msg)`,
		`toolerr.New(fmt.Sprintf("invalid time_spent format: %v", err))`,
		`toolerr.Wrap(err, "invalid sprint")`,
		`toolerr.Wrap(err, fmt.Sprintf("ref %q", a.Ref))`,
		`toolerr.Wrap(err, "invalid link")`,
		// The server's words around an error (another's, a ToolError, a
		// library's about the arguments): the words kept, the error the
		// cause, read after them where it is public.
		`toolerr.Wrap(err, "log work")`,
		// The server's words around another's text: the text, now an
		// error, the cause.
		`toolerr.Wrap(errors.New(string(body)), fmt.Sprintf("log work failed with status %d", resp.StatusCode))`,
		`toolerr.Wrap(errors.New(resp.Status), fmt.Sprintf("log work failed with status %d", resp.StatusCode))`,
		`toolerr.Wrap(errors.New(string(location(resp.Header.Get("Location")))), "log work moved")`,
		`toolerr.Wrap(err, "ping")`,
		`toolerr.Wrap(err, fmt.Sprintf("delete %s", a.Name))`,
		`toolerr.New(fmt.Sprintf("ref: %v", errs.ErrRequiredString("ref")))`,
		`toolerr.Wrap(err, "sprint")`,
		// A ToolError's cause, which the model reads as a hint once public.
		`var errNoIndex = error(toolerr.New("the search index is not built yet; retry later").WithRetryable(true))`,
		`func (e *EndpointError) PublicMessage() string { return e.Error() }`,
		`fmt.Errorf("could not parse time: %s", s)`,
	} {
		if !strings.Contains(string(work), want) {
			t.Errorf("work.go after the fixes lacks %s", want)
		}
	}
	if !strings.Contains(string(work), `errors.New("region is not configured")`) {
		t.Error("the operator's configuration error was made a message for the model")
	}
	errsSrc, _ := os.ReadFile(filepath.Join(dir, "routerserver", "errs", "errs.go"))
	if !strings.Contains(string(errsSrc), "func (e *InputError) PublicMessage() string { return e.Error() }") {
		t.Error("the typed error of the server's words was not made public")
	}
	store, _ := os.ReadFile(filepath.Join(dir, "routerserver", "store", "store.go"))
	if !strings.Contains(string(store), `fmt.Errorf("query on %s: %w", db.DSN, ErrConn)`) {
		t.Error("the DSN's message was rewritten")
	}
	srv, _ := os.ReadFile(filepath.Join(dir, "routerserver", "routerserver.go"))
	if strings.Contains(string(srv), "toolerr.New(out.Errors") {
		t.Error("an upstream's GraphQL string was made a message for the model")
	}
	cmd := exec.Command("go", "vet", "./routerserver/...")
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the fixed server does not build: %v\n%s", err, out)
	}
}

// TestGoSDKServer runs the pass on a go-sdk server, whose CallToolRequest
// is an alias of a generic type: its typed and raw handlers return a
// message of another package, the server's words around an upstream's
// error, and a ToolError over the server's own sentinel. The pass finds
// exactly the marked lines and its fixes build.
func TestGoSDKServer(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a module")
	}
	dir := copyFixture(t, "gosdkserver")
	cfg := Config{Dir: dir, Patterns: []string{"./gosdkserver/..."}}
	res, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, fx := range res.Fixes {
		got[rel(dir, Line(fx.Pos))+" lost"] = true
	}
	for _, fd := range res.Findings {
		t.Errorf("a finding without a fix: %s: %s", Line(fd.Pos), fd.Message)
	}
	if want := marked(t, filepath.Join(dir, "gosdkserver")); !maps.Equal(got, want) {
		t.Fatalf("found %v\nwant %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
	}
	fixRounds(t, cfg, res)
	src, _ := os.ReadFile(filepath.Join(dir, "gosdkserver", "gosdkserver.go"))
	lookup, _ := os.ReadFile(filepath.Join(dir, "gosdkserver", "lookup", "lookup.go"))
	for _, c := range []struct{ file, want string }{
		{string(src), `toolerr.New("login is required")`},
		{string(src), `toolerr.Wrap(err, fmt.Sprintf("get user %s", in.Login))`},
		{string(lookup), `var ErrNoDirectory = error(toolerr.New("the user directory is not ready; retry later").WithRetryable(true))`},
		{string(lookup), `toolerr.New(fmt.Sprintf("login %q is longer than 39 characters", login))`},
	} {
		if !strings.Contains(c.file, c.want) {
			t.Errorf("after the fixes, no %s", c.want)
		}
	}
	cmd := exec.Command("go", "vet", "./gosdkserver/...")
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the fixed server does not build: %v\n%s", err, out)
	}
}

// fixRounds applies res's fixes and runs the pass again, as mcperrvet
// -fix does: a fix can bring another into view (an error type made public,
// then the wrapper that flattens it), in three rounds at most. It returns
// the last result, which has no fix.
func fixRounds(t *testing.T, cfg Config, res *Result) *Result {
	t.Helper()
	for round := 0; len(res.Fixes) > 0; round++ {
		if round == 3 {
			t.Fatalf("after %d rounds of fixes, %d sites still to fix", round, len(res.Fixes))
		}
		edits := map[string][]Edit{}
		for _, fx := range res.Fixes {
			edits[fx.Pos.Filename] = append(edits[fx.Pos.Filename], fx.Edits...)
		}
		for file, es := range edits {
			if _, err := Apply(file, es); err != nil {
				t.Fatal(err)
			}
		}
		var err error
		if res, err = Run(cfg); err != nil {
			t.Fatalf("the fixed server does not load: %v", err)
		}
	}
	return res
}

// copyFixture copies the fixture module's go.mod, go.sum and the package
// dir into a temporary directory, its replace pointing at mcperr.
func copyFixture(t *testing.T, pkg string) string {
	t.Helper()
	src, err := filepath.Abs("../../testdata/mod")
	if err != nil {
		t.Fatal(err)
	}
	root, _ := filepath.Abs("../../..")
	dst := t.TempDir()
	mod, err := os.ReadFile(filepath.Join(src, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	mod = []byte(strings.Replace(string(mod), "=> ../../..", "=> "+root, 1))
	must(t, os.WriteFile(filepath.Join(dst, "go.mod"), mod, 0o644))
	sum, _ := os.ReadFile(filepath.Join(src, "go.sum"))
	must(t, os.WriteFile(filepath.Join(dst, "go.sum"), sum, 0o644))
	must(t, os.CopyFS(filepath.Join(dst, pkg), os.DirFS(filepath.Join(src, pkg))))
	t.Setenv("GOWORK", "off")
	return dst
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func rel(dir, line string) string {
	r, err := filepath.Rel(dir, line)
	if err != nil {
		return line
	}
	return filepath.ToSlash(r)
}

// marked returns "file:line kind" for each line under dir marked
// "// want: kind".
func marked(t *testing.T, dir string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	root := filepath.Dir(dir)
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for n := 1; sc.Scan(); n++ {
			if _, kind, ok := strings.Cut(sc.Text(), "// want: "); ok {
				out[fmt.Sprintf("%s:%d %s", rel(root, path), n, strings.TrimSpace(kind))] = true
			}
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
