package vet_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestRealisticServerMigrates runs the three steps of adoption on
// dsserver, a server written as the public servers mcperrvet was measured
// on are (a framework whose handler turns every error into a result, the
// result helpers of another package, a format helper, arguments checked in
// a method, messages for the model as plain errors), and drives it:
//
//   - mcperrvet reports exactly the lines marked "// want: leak" or
//     "// want: masked";
//   - mcperrvet -fix fixes every one of them and exits 0;
//   - the server as written and the migrated one with mcperr installed,
//     enforcing, are called through mcp-go's client: the migrated one sends
//     no upstream text, keeps each message written for the model (without
//     the prefix a wrapper added), and answers every success as before.
func TestRealisticServerMigrates(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mcperrvet and the server")
	}
	tool := buildTool(t)
	bare, fixed := copyModule(t, "dsserver"), copyModule(t, "dsserver")

	out, code := run(t, bare, nil, tool, "-test=false", "./dsserver/...")
	if code != 3 {
		t.Fatalf("mcperrvet: exit status %d, want 3 (findings)\n%s", code, out)
	}
	found := map[string]bool{}
	for sc := bufio.NewScanner(bytes.NewReader(out)); sc.Scan(); {
		if m := findingRE.FindStringSubmatch(sc.Text()); m != nil {
			found[filepath.Base(m[1])+":"+m[2]] = true
		}
	}
	if want := markedLines(t, filepath.Join(bare, "dsserver")); !maps.Equal(found, want) {
		t.Errorf("mcperrvet reports %v, want the marked lines %v\n%s", slices.Sorted(maps.Keys(found)), slices.Sorted(maps.Keys(want)), out)
	}

	if out, code := run(t, fixed, nil, tool, "-test=false", "-fix", "./dsserver/..."); code != 0 {
		t.Fatalf("mcperrvet -fix: exit status %d, want 0 (every finding fixed)\n%s", code, out)
	}
	before := drive(t, bare, false)
	after := drive(t, fixed, true)

	kept := 0
	for name, b := range before {
		a := after[name]
		raw, _ := json.Marshal(a)
		if bytes.Contains(raw, []byte("CANARY")) || bytes.Contains(raw, []byte("127.0.0.1")) {
			t.Errorf("%s: the migrated server sent upstream text: %s", name, raw)
		}
		if !b.IsError {
			if !slices.Equal(a.Texts, b.Texts) || a.IsError {
				t.Errorf("%s: a success changed: %q, was %q", name, a.Texts, b.Texts)
			}
			continue
		}
		w, ok := migrated[name]
		if !ok {
			t.Errorf("%s: no expectation for the failure %q", name, b.Texts)
			continue
		}
		env, _ := a.Meta["io.github.mcperr/error"].(map[string]any)
		if len(a.Texts) == 0 || a.Texts[0] != w.text || env["code"] != w.code && w.code != "" || w.code == "" && env != nil {
			t.Errorf("%s: the migrated server answers %q %v, want %q %s", name, a.Texts, env["code"], w.text, w.code)
		}
		if strings.HasSuffix(b.Texts[0], w.text) && !strings.HasPrefix(w.text, "Internal error") {
			kept++
		}
	}
	if kept != 8 {
		t.Errorf("%d of the server's messages for the model kept, want 8", kept)
	}
	for _, name := range []string{"datasource_failing", "search_failing", "silences_failing"} {
		if raw, _ := json.Marshal(before[name]); !bytes.Contains(raw, []byte("CANARY")) {
			t.Errorf("%s: the server as written does not leak the upstream's text, so the test proves nothing: %s", name, raw)
		}
	}
}

// migrated is what the migrated server answers each failing call of the
// drive with: the first text block, and the envelope's code ("" for a
// result the handler built itself, passed as it is).
var migrated = map[string]struct{ text, code string }{
	"datasource_no_uid":       {"uid is required", "VALIDATION_ERROR"},
	"datasource_gone":         {"datasource with UID 'gone' not found. Please check if the datasource exists and is accessible", "TOOL_ERROR"},
	"datasource_failing":      {`Internal error in tool "get_datasource" (ref: `, "INTERNAL_ERROR"},
	"query_no_expr":           {"expr is required", "VALIDATION_ERROR"}, // was "query_prometheus: expr is required"
	"query_datasource_gone":   {"datasource with UID 'gone' not found. Please check if the datasource exists and is accessible", "TOOL_ERROR"},
	"query_bad_start":         {`Internal error in tool "query_prometheus" (ref: `, "INTERNAL_ERROR"}, // a parser's text
	"query_failing":           {`Internal error in tool "query_prometheus" (ref: `, "INTERNAL_ERROR"},
	"rules_get_no_uid":        {"uid is required for 'get' operation", "TOOL_ERROR"},
	"rules_unknown_operation": {`unknown operation "delete", must be one of: list, get`, "TOOL_ERROR"},
	"rules_get_failing":       {`Internal error in tool "manage_rules" (ref: `, "INTERNAL_ERROR"},
	"search_no_query":         {`required argument "query" not found`, ""},
	"search_failing":          {"failed to search dashboards", "TOOL_ERROR"},
	"silences_bad_state":      {"invalid state: bogus - must be 'active' or 'expired'", ""},
	"silences_failing":        {"failed to list silences", "TOOL_ERROR"},
}

var findingRE = regexp.MustCompile(`^(\S+\.go):(\d+):\d+: `)

// answer is what the drive recorded of one call.
type answer struct {
	Name    string         `json:"name"`
	IsError bool           `json:"isError"`
	Texts   []string       `json:"texts"`
	Meta    map[string]any `json:"meta"`
	RPC     string         `json:"rpc"`
}

// drive runs dsserver's TestDrive in the module dir, with mcperr installed
// if install, and returns its answers by name. A masked answer's text is
// cut before its ref, which differs from run to run.
func drive(t *testing.T, dir string, install bool) map[string]answer {
	t.Helper()
	file := filepath.Join(t.TempDir(), "answers.json")
	env := []string{"DRIVE_OUT=" + file}
	if install {
		env = append(env, "DRIVE_INSTALL=1")
	}
	if out, code := run(t, dir, env, "go", "test", "-count=1", "-run", "^TestDrive$", "./dsserver"); code != 0 {
		t.Fatalf("go test ./dsserver: exit status %d\n%s", code, out)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var list []answer
	if err := json.Unmarshal(b, &list); err != nil {
		t.Fatal(err)
	}
	byName := map[string]answer{}
	for _, a := range list {
		if a.RPC != "" {
			a.Texts = []string{"rpc: " + a.RPC}
		}
		if len(a.Texts) > 0 {
			if i := strings.Index(a.Texts[0], "(ref: "); i >= 0 {
				a.Texts[0] = a.Texts[0][:i+len("(ref: ")]
			}
		}
		byName[a.Name] = a
	}
	return byName
}

// run runs the command name in dir with env added, and returns its
// combined output and exit status.
func run(t *testing.T, dir string, env []string, name string, args ...string) ([]byte, int) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return out, exit.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out, 0
}

// copyModule copies the test module's go.mod and go.sum, with mcperr
// replaced by this repository, and the package tree pkg, to a new
// directory, and returns it.
func copyModule(t *testing.T, pkg string) string {
	t.Helper()
	src := testdata(t)
	dir, _ := fixModule(t)
	err := filepath.WalkDir(filepath.Join(src, pkg), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// markedLines returns the lines of the non-test Go files under dir that end
// with "// want: leak" or "// want: masked", as file:line.
func markedLines(t *testing.T, dir string) map[string]bool {
	t.Helper()
	want := map[string]bool{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, "// want: leak") || strings.Contains(line, "// want: masked") {
				want[filepath.Base(path)+":"+strconv.Itoa(i+1)] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return want
}
