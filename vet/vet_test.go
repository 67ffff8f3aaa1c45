package vet_test

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/mcperr/mcperr/vet"
	"golang.org/x/tools/go/analysis/analysistest"
)

func TestPublicErrorText(t *testing.T) {
	t.Parallel()
	analysistest.Run(t, testdata(t), vet.PublicErrorText, "./publictext")
}

func TestSDKErrorText(t *testing.T) {
	t.Parallel()
	analysistest.RunWithSuggestedFixes(t, testdata(t), vet.SDKErrorText, "./sdktext")
}

// TestMigrate checks the fixes that migrate a server's error results,
// against golden files, and that the sites with no mechanical fix are
// still reported.
func TestMigrate(t *testing.T) {
	t.Parallel()
	analysistest.RunWithSuggestedFixes(t, testdata(t), vet.SDKErrorText, "./migrate")
}

// TestMaskedMessage checks the messages for the model that handlers return
// as plain errors, and their fixes against golden files.
func TestMaskedMessage(t *testing.T) {
	t.Parallel()
	analysistest.RunWithSuggestedFixes(t, testdata(t), vet.MaskedMessage, "./masked", "./middleware", "./stdimports")
}

// TestBareModule checks, in a module that does not require mcperr, the
// errors tool handlers return or hand to SetError whose text may be a
// library's or an upstream's, which the SDK sends as written; a message,
// a sentinel, an argument accessor's error, the errors of another
// package's function that returns only those, and a middleware's answer
// are not reported.
func TestBareModule(t *testing.T) {
	t.Parallel()
	dir, err := filepath.Abs(filepath.Join("testdata", "bare"))
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, vet.SDKErrorText, "./handlers", "./provider")
	analysistest.Run(t, dir, vet.NotInstalled, "./server")
}

// TestTidiedModule checks a module whose go.mod does not require mcperr,
// as after go mod tidy ran before mcperr was imported, though a package of
// it imports mcperr: the module has mcperr, so the errors its handlers
// return are not reported as sent by the SDK as written, and a server
// without Install is reported.
func TestTidiedModule(t *testing.T) {
	t.Parallel()
	dir, err := filepath.Abs(filepath.Join("testdata", "tidy"))
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, vet.SDKErrorText, "./handlers")
	analysistest.Run(t, dir, vet.NotInstalled, "./cmd/bareserver")
}

// TestMaskedMessageOfAnotherPackage checks the errors a handler returns
// from functions of another package of the module that return messages
// for the model, found by a fact: as they are, wrapped with %w, and through
// a function of that package; a library's error is not reported.
func TestMaskedMessageOfAnotherPackage(t *testing.T) {
	t.Parallel()
	analysistest.Run(t, testdata(t), vet.MaskedMessage, "./maskedlib", "./maskedremote")
}

// TestFields checks an error's text kept in a field of a struct of the
// function, through a pointer or a value, before it reaches an error
// result; a field that holds a message is not reported.
func TestFields(t *testing.T) {
	t.Parallel()
	analysistest.Run(t, testdata(t), vet.SDKErrorText, "./fields")
}

// TestHelpersOfAnotherPackage checks the helpers of one package of a
// module that put their arguments' text into an error result, found by a
// fact, and the calls of another package that give them an error's text,
// reported there, though it imports no SDK: a helper, one formatting its
// arguments, a helper of a helper; a deliberate message and a success are
// not reported.
func TestHelpersOfAnotherPackage(t *testing.T) {
	t.Parallel()
	analysistest.Run(t, testdata(t), vet.SDKErrorText, "./helpers", "./crosspkg")
}

// TestReslicedLocalFinishes runs the analyzers that follow error text over
// a local re-sliced forty times, whose paths back to each other made the
// search exponential (twelve took minutes): each value is now computed
// once a question, within a bound on the steps, and the leak is found.
func TestReslicedLocalFinishes(t *testing.T) {
	t.Parallel()
	analysistest.Run(t, testdata(t), vet.SDKErrorText, "./reslice")
}

func TestStructuredHandler(t *testing.T) {
	t.Parallel()
	analysistest.RunWithSuggestedFixes(t, testdata(t), vet.StructuredHandler, "./structured", "./structurednoadapter", "./structuredrenamed")
}

func TestNotInstalled(t *testing.T) {
	t.Parallel()
	analysistest.Run(t, testdata(t), vet.NotInstalled, "./install", "./installnomcperr", "./installreg", "./installcmd", "./installfield", "./cmd/gendocs")
}

// TestDriversAgree runs mcperrvet both ways a user does, directly and under
// go vet -vettool (which also runs it over every dependency, the standard
// library included, for their facts), over the test module's packages, one
// that imports crypto/x509 and net/http, the packages of a module without
// mcperr, and those of a module whose go.mod lost mcperr to go mod tidy:
// both finish, and report the same findings.
func TestDriversAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mcperrvet and runs go vet")
	}
	t.Parallel()
	mod := testdata(t)
	tool := buildTool(t)
	findings := func(dir, name string, args ...string) map[string]bool {
		t.Helper()
		out, code := run(t, dir, nil, args[0], args[1:]...)
		if code != 0 {
			t.Fatalf("%s: exit status %d\n%s", name, code, out)
		}
		got := map[string]bool{}
		// go vet writes a "# package" line before each package's JSON.
		dec := json.NewDecoder(bytes.NewReader(regexp.MustCompile(`(?m)^#.*$`).ReplaceAll(out, nil)))
		for {
			var byPkg map[string]map[string][]struct{ Posn, Message string }
			if err := dec.Decode(&byPkg); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("%s: reading the JSON: %v\n%s", name, err, out)
			}
			for _, byAnalyzer := range byPkg {
				for analyzer, ds := range byAnalyzer {
					for _, d := range ds {
						got[analyzer+" "+d.Posn+" "+d.Message] = true
					}
				}
			}
		}
		return got
	}
	for _, m := range []struct {
		dir  string
		pkgs []string
	}{
		{mod, []string{"./sdktext", "./publictext", "./reslice", "./install", "./stdlib"}},
		{filepath.Join(filepath.Dir(mod), "bare"), []string{"./handlers", "./provider"}},
		{filepath.Join(filepath.Dir(mod), "tidy"), []string{"./handlers", "./cmd/bareserver"}},
	} {
		direct := findings(m.dir, "mcperrvet", append([]string{tool, "-json"}, m.pkgs...)...)
		vet := findings(m.dir, "go vet", append([]string{"go", "vet", "-vettool=" + tool, "-json"}, m.pkgs...)...)
		if len(direct) == 0 {
			t.Fatalf("mcperrvet found nothing in %s", m.dir)
		}
		for f := range direct {
			if !vet[f] {
				t.Errorf("only mcperrvet reports: %s", f)
			}
		}
		for f := range vet {
			if !direct[f] {
				t.Errorf("only go vet reports: %s", f)
			}
		}
		t.Logf("%s: %d findings, the same from both drivers", filepath.Base(m.dir), len(direct))
	}
}

// TestFixNeverHides runs mcperrvet -fix on a copy of a package with
// findings of both kinds: the fix is applied, and every finding without
// one is printed, with the exit status of a finding (3). It used to print
// nothing and exit 0.
func TestFixNeverHides(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mcperrvet")
	}
	t.Parallel()
	dir, files := fixModule(t, "install/install.go")
	out, code := run(t, dir, nil, buildTool(t), "-fix", "./sdktext")
	if code != 3 {
		t.Fatalf("mcperrvet -fix: exit status %d, want 3\n%s", code, out)
	}
	if !bytes.Contains(out, []byte("nofix.go:12:40: mcp.NewToolResultErrorFromErr appends")) {
		t.Errorf("the finding without a fix is not printed:\n%s", out)
	}
	if !regexp.MustCompile(`mcperrvet -fix rewrote [1-9]\d* site\(s\), mcperrsdktext [1-9]`).Match(out) ||
		!regexp.MustCompile(`(?m)^\s+\S*sdktext\.go\s+mcperrsdktext [1-9]`).Match(out) {
		t.Errorf("what -fix rewrote, per kind and per file, is not printed:\n%s", out)
	}
	fixed, err := os.ReadFile(filepath.Join(dir, "sdktext", "sdktext.go"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(fixed, files["sdktext/sdktext.go"]) {
		t.Error("-fix changed nothing")
	}
}

// TestFixNeedsInstall runs mcperrvet -fix in a module where no package
// imports mcperr's adapter: it refuses (exit status 2), says to install
// mcperr first, and changes nothing, since the errors its fixes return
// would reach the client as the SDK sends them.
func TestFixNeedsInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mcperrvet")
	}
	t.Parallel()
	dir, files := fixModule(t)
	out, code := run(t, dir, nil, buildTool(t), "-fix", "./...")
	if code != 2 || !bytes.Contains(out, []byte("install mcperr first")) {
		t.Fatalf("mcperrvet -fix: exit status %d, want 2 and what to do\n%s", code, out)
	}
	if fixed, err := os.ReadFile(filepath.Join(dir, "sdktext", "sdktext.go")); err != nil || !bytes.Equal(fixed, files["sdktext/sdktext.go"]) {
		t.Errorf("-fix changed the file (%v)", err)
	}
}

// TestFixTakesBackWhatDoesNotBuild runs mcperrvet -fix where one of its
// rewrites cannot build: a handler's local variable named toolerr hides
// the package its fix names. -fix must not leave the module half
// rewritten: it says so, exits 1, and every file is as it was, the other
// package's rewrite taken back too.
func TestFixTakesBackWhatDoesNotBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mcperrvet")
	}
	t.Parallel()
	shadow := []byte(`package shadow

import (
	"context"
	"errors"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type in struct{ Query string }

// Search returns a message for the model as a plain error, beside a
// local variable of the package's name.
func Search(ctx context.Context, req *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
	toolerr := strings.TrimSpace(a.Query)
	if toolerr == "" {
		return nil, nil, errors.New("the query is empty: give a word to search for")
	}
	return nil, nil, nil
}
`)
	dir, files := fixModule(t, "install/install.go")
	files["shadow/shadow.go"] = shadow
	if err := os.MkdirAll(filepath.Join(dir, "shadow"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "shadow", "shadow.go"), shadow, 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := run(t, dir, nil, buildTool(t), "-fix", "./sdktext", "./shadow", "./install")
	if code != 1 || !bytes.Contains(out, []byte("took back its rewrites")) {
		t.Fatalf("mcperrvet -fix: exit status %d, want 1 and that it took its rewrites back\n%s", code, out)
	}
	for name, want := range files {
		if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is not as it was (%v)", name, err)
		}
	}
}

// fixModule writes a copy of the test module's go.mod, go.sum and the
// sdktext package, with the files extra, to a new directory, and returns it
// with what it wrote.
func fixModule(t *testing.T, extra ...string) (string, map[string][]byte) {
	t.Helper()
	src := testdata(t)
	dir := t.TempDir()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(src, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	mod = bytes.ReplaceAll(mod, []byte("=> ../../.."), []byte("=> "+root))
	files := map[string][]byte{"go.mod": mod}
	for _, name := range append([]string{"go.sum", "sdktext/sdktext.go", "sdktext/nofix.go"}, extra...) {
		if files[name], err = os.ReadFile(filepath.Join(src, name)); err != nil {
			t.Fatal(err)
		}
	}
	for name, b := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, files
}

// TestFrameworkMessages checks the messages for the model that the handlers
// of a server's own tool framework put in their result's error field, and
// their fixes against golden files.
func TestFrameworkMessages(t *testing.T) {
	t.Parallel()
	analysistest.RunWithSuggestedFixes(t, testdata(t), vet.MaskedMessage, "./fwapi", "./fwtools")
}
