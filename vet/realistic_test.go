package vet_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestRealisticServerMigrates runs the three steps of adoption on two
// servers written as the public servers mcperrvet was measured on are, and
// drives them:
//
//   - dsserver, on mcp-go, as Grafana's, GitHub's and Terraform's are: a
//     framework whose handler turns every error into a result, the result
//     helpers of another package, a format helper, arguments checked in a
//     method, messages for the model as plain errors;
//   - kubeserver, on go-sdk, as the Kubernetes server is: handlers of the
//     server's own shape put every failure, message or upstream error, in
//     their result's Error field, which one adapter turns into the SDK's
//     result from the error's text; the arguments' messages are written in
//     the framework's package.
//
// For each:
//
//   - mcperrvet reports exactly the lines marked "// want: leak" or
//     "// want: masked";
//   - mcperrvet -fix fixes every one it can, and exits 0 when it has fixed
//     them all; the findings it leaves each name a message of another
//     package, at file:line, and doing there what they say (toolerr.New
//     with the same words) leaves none;
//   - the server as written and the migrated one with mcperr installed,
//     enforcing, are called through their SDK's client: the migrated one
//     sends no upstream text, keeps each message written for the model
//     (without the prefix a wrapper added), and answers every success as
//     before.
func TestRealisticServerMigrates(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mcperrvet and the servers")
	}
	t.Parallel()
	tool := buildTool(t)
	for _, srv := range realisticServers {
		t.Run(srv.pkg, func(t *testing.T) {
			t.Parallel()
			// The server as written is checked and built where it is, which
			// nothing here writes to; the copy is what -fix rewrites.
			bare, fixed := testdata(t), copyModule(t, srv.pkg)
			pattern := "./" + srv.pkg + "/..."

			out, code := run(t, bare, nil, tool, "-test=false", pattern)
			if code != 3 {
				t.Fatalf("mcperrvet: exit status %d, want 3 (findings)\n%s", code, out)
			}
			found := map[string]bool{}
			for sc := bufio.NewScanner(bytes.NewReader(out)); sc.Scan(); {
				if m := findingRE.FindStringSubmatch(sc.Text()); m != nil {
					found[filepath.Base(m[1])+":"+m[2]] = true
				}
			}
			if want := markedLines(t, filepath.Join(bare, srv.pkg)); !maps.Equal(found, want) {
				t.Errorf("mcperrvet reports %v, want the marked lines %v\n%s", slices.Sorted(maps.Keys(found)), slices.Sorted(maps.Keys(want)), out)
			}

			out, code = run(t, fixed, nil, tool, "-test=false", "-fix", pattern)
			for round := 0; code == 3 && round < 3; round++ {
				followReports(t, filepath.Join(fixed, srv.pkg), out)
				out, code = run(t, fixed, nil, tool, "-test=false", pattern)
			}
			if code != 0 {
				t.Fatalf("mcperrvet after -fix and the reports followed: exit status %d, want 0\n%s", code, out)
			}
			bareDrive, fixedDrive := driveBinary(t, bare, srv.pkg), driveBinary(t, fixed, srv.pkg)
			before := drive(t, bareDrive, "")
			after := drive(t, fixedDrive, "1")
			checkAdoptionSteps(t, srv.migrated, srv.leaking, []step{
				{"bare", before}, {"report-only", drive(t, bareDrive, "report")},
				{"-fix, report-only", drive(t, fixedDrive, "report")}, {"enforcing", after}})

			kept := 0
			for name, b := range before {
				a := after[name]
				raw, _ := json.Marshal(a)
				if bytes.Contains(raw, []byte("CANARY")) || bytes.Contains(raw, []byte("127.0.0.1")) {
					t.Errorf("%s: the migrated server sent upstream text: %s", name, raw)
				}
				if !b.IsError && b.RPC == "" {
					if !slices.Equal(a.Texts, b.Texts) || a.IsError {
						t.Errorf("%s: a success changed: %q, was %q", name, a.Texts, b.Texts)
					}
					continue
				}
				w, ok := srv.migrated[name]
				if !ok {
					t.Errorf("%s: no expectation for the failure %q", name, b.Texts)
					continue
				}
				env, _ := a.Meta["io.github.mcperr/error"].(map[string]any)
				if len(a.Texts) == 0 || a.Texts[0] != w.text || env["code"] != w.code && w.code != "" || w.code == "" && env != nil {
					t.Errorf("%s: the migrated server answers %q %v, want %q %s", name, a.Texts, env["code"], w.text, w.code)
				}
				if len(b.Texts) > 0 && strings.HasSuffix(b.Texts[0], w.text) && !strings.HasPrefix(w.text, "Internal error") {
					kept++
				}
			}
			if kept != srv.kept {
				t.Errorf("%d of the server's messages for the model kept, want %d", kept, srv.kept)
			}
			for _, name := range srv.leaking {
				if raw, _ := json.Marshal(before[name]); !bytes.Contains(raw, []byte("CANARY")) {
					t.Errorf("%s: the server as written does not leak the upstream's text, so the test proves nothing: %s", name, raw)
				}
			}
		})
	}
}

// step is one step of the adoption the README gives, and the answers of
// the server at it.
type step struct {
	name    string
	answers map[string]answer
}

// checkAdoptionSteps checks that no step of the adoption sends raw upstream
// text in more answers, or keeps fewer of the server's messages for the
// model, than the step before: a message is kept at a step when the answer
// holds its words, as the migrated server's expectation has them.
func checkAdoptionSteps(t *testing.T, migrated map[string]expect, leaking []string, steps []step) {
	t.Helper()
	var leaks, kept []int
	for _, s := range steps {
		l, k := 0, 0
		for name, a := range s.answers {
			raw, _ := json.Marshal(a)
			if bytes.Contains(raw, []byte("CANARY")) || bytes.Contains(raw, []byte("127.0.0.1")) {
				l++
			}
			if w, ok := migrated[name]; ok && !strings.HasPrefix(w.text, "Internal error") &&
				strings.Contains(strings.Join(a.Texts, "\n"), w.text) {
				k++
			}
		}
		leaks, kept = append(leaks, l), append(kept, k)
	}
	t.Logf("adoption steps %v: answers with upstream text %v, messages for the model kept %v", stepNames(steps), leaks, kept)
	if leaks[0] < len(leaking) {
		t.Errorf("the bare server leaks in %d answers, fewer than the %d known to leak: the measure is off", leaks[0], len(leaking))
	}
	for i := 1; i < len(steps); i++ {
		if leaks[i] > leaks[i-1] || kept[i] < kept[i-1] {
			t.Errorf("%s: %d answers with upstream text and %d messages kept, after %d and %d at %s",
				steps[i].name, leaks[i], kept[i], leaks[i-1], kept[i-1], steps[i-1].name)
		}
	}
	if leaks[len(leaks)-1] != 0 {
		t.Errorf("enforcing, %d answers still carry upstream text", leaks[len(leaks)-1])
	}
}

func stepNames(steps []step) []string {
	var names []string
	for _, s := range steps {
		names = append(names, s.name)
	}
	return names
}

// expect is what the migrated server answers a failing call of the drive
// with: the first text block, and the envelope's code ("" for a result
// the handler built itself, passed as it is).
type expect struct{ text, code string }

// realisticServers are the servers TestRealisticServerMigrates migrates:
// their package, what each failing call is answered with once migrated,
// how many of the server's own messages are kept, and calls that leak
// upstream text before.
var realisticServers = []struct {
	pkg      string
	migrated map[string]expect
	kept     int
	leaking  []string
}{{
	pkg: "dsserver",
	migrated: map[string]expect{
		"datasource_no_uid":       {"uid is required", "VALIDATION_ERROR"},
		"datasource_gone":         {"datasource with UID 'gone' not found. Please check if the datasource exists and is accessible", "TOOL_ERROR"},
		"datasource_failing":      {"get datasource by uid flaky", "TOOL_ERROR"},
		"query_no_expr":           {"query_prometheus: expr is required", "VALIDATION_ERROR"}, // the wrapper's words before the ToolError's, as the bare server sent them
		"query_datasource_gone":   {"getting backend: datasource with UID 'gone' not found. Please check if the datasource exists and is accessible", "TOOL_ERROR"},
		"query_bad_start":         {`parsing start time: parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"`, "VALIDATION_ERROR"}, // a parser's text, declared public as -fix suggests, after the wrapper's words
		"query_failing":           {"querying Prometheus", "TOOL_ERROR"},                                                                                                   // the words of its wrapper, the error in the log
		"rules_get_no_uid":        {"uid is required for 'get' operation", "TOOL_ERROR"},
		"rules_unknown_operation": {`unknown operation "delete", must be one of: list, get`, "TOOL_ERROR"},
		"rules_get_failing":       {"getting rule r9", "TOOL_ERROR"},
		"search_no_query":         {`required argument "query" not found`, ""},
		"search_failing":          {"failed to search dashboards", "TOOL_ERROR"},
		"silences_bad_state":      {"invalid state: bogus - must be 'active' or 'expired'", ""},
		"silences_failing":        {"failed to list silences", "TOOL_ERROR"},
	},
	kept:    9, // the parser's text about the tool's own start time included
	leaking: []string{"datasource_failing", "search_failing", "silences_failing"},
}, {
	pkg: "kubeserver",
	migrated: map[string]expect{
		"pods_get_no_name":      {"name parameter required", "TOOL_ERROR"},
		"pods_get_number":       {"name parameter must be a string", "TOOL_ERROR"},
		"pods_get_failing":      {`Internal error in tool "pods_get" (ref: `, "INTERNAL_ERROR"},
		"pods_log_no_container": {"failed to get pod log, missing argument container", "TOOL_ERROR"},
		"pods_log_failing":      {"failed to get pod log", "TOOL_ERROR"},
		"nodes_top_failing":     {"failed to get nodes top", "TOOL_ERROR"},
		"scale_bad_kind":        {"cannot scale a Pod: only Deployment and StatefulSet scale", "TOOL_ERROR"},
		"scale_no_replicas":     {"replicas is required", "VALIDATION_ERROR"},
		"scale_failing":         {`Internal error in tool "resources_scale" (ref: `, "INTERNAL_ERROR"},
	},
	kept:    5,
	leaking: []string{"pods_get_failing", "pods_log_failing", "nodes_top_failing", "scale_failing"},
}}

// elsewhereRE matches a finding that names a message for the model written
// in another package: ("<format>", at <file>:<line>).
var elsewhereRE = regexp.MustCompile(`\(".*", at (\S+\.go):(\d+)\)`)

// followReports does what the findings in out that -fix could not fix
// ask: each names a message of another package, fmt.Errorf(format,
// args...) at file:line under dir, which becomes toolerr.New(fmt.Sprintf(
// format, args...)), as a developer would write it.
func followReports(t *testing.T, dir string, out []byte) {
	t.Helper()
	edited := map[string]bool{}
	for sc := bufio.NewScanner(bytes.NewReader(out)); sc.Scan(); {
		if !findingRE.MatchString(sc.Text()) {
			continue // what -fix rewrote, and the count
		}
		if p := publicRE.FindStringSubmatch(sc.Text()); p != nil {
			if !edited[p[1]] {
				declarePublic(t, dir, p[1], p[2])
			}
			edited[p[1]] = true
			continue
		}
		m := elsewhereRE.FindStringSubmatch(sc.Text())
		if m == nil {
			t.Fatalf("mcperrvet -fix left a finding that names no message to change:\n%s", out)
		}
		if edited[m[1]+":"+m[2]] {
			continue
		}
		edited[m[1]+":"+m[2]] = true
		var path string
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && filepath.Base(p) == m[1] {
				path = p
			}
			return err
		})
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		n, _ := strconv.Atoi(m[2])
		line := lines[n-1]
		i := strings.Index(line, "fmt.Errorf(")
		j := strings.LastIndex(line, ")")
		if i < 0 || j < i {
			t.Fatalf("%s:%d: no fmt.Errorf to change: %s", m[1], n, line)
		}
		lines[n-1] = line[:i] + "toolerr.New(fmt.Sprintf(" + line[i+len("fmt.Errorf("):j] + "))" + line[j+1:]
		src := strings.Join(lines, "\n")
		if !strings.Contains(src, `"github.com/mcperr/mcperr/toolerr"`) {
			src = strings.Replace(src, "import (\n", "import (\n\t\"github.com/mcperr/mcperr/toolerr\"\n", 1)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

var findingRE = regexp.MustCompile(`^(\S+\.go):(\d+):\d+: `)

// publicRE matches a finding that suggests declaring a library's error
// type public: the type, and its package's import path as the test knows it.
var publicRE = regexp.MustCompile(`filter\.Public\[(\*(\w+)\.\w+)\]\(codes\.ValidationError\)`)

// declarePublic does what a finding suggests: it gives each pipeline the
// module makes (its command's, its drive's) filter.Public[typ] for the
// whole server.
func declarePublic(t *testing.T, dir, typ, pkg string) {
	t.Helper()
	paths := map[string]string{"time": "time", "strconv": "strconv", "json": "encoding/json", "url": "net/url"}
	if paths[pkg] == "" {
		t.Fatalf("a suggestion for a type of package %s, which the test does not know", pkg)
	}
	n := 0
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		b, _ := os.ReadFile(p)
		if err != nil || d.IsDir() || !bytes.Contains(b, []byte("filter.New(")) {
			return err
		}
		n++
		src := strings.Replace(string(b), "filter.New(", "filter.New(filter.WithFilters(filter.Public["+typ+"](codes.ValidationError)), ", 1)
		for _, imp := range []string{paths[pkg], "github.com/mcperr/mcperr/codes"} {
			if !strings.Contains(src, strconv.Quote(imp)) {
				src = strings.Replace(src, "import (\n", "import (\n\t"+strconv.Quote(imp)+"\n", 1)
			}
		}
		return os.WriteFile(p, []byte(src), 0o644)
	})
	if n == 0 {
		t.Fatal("no file of the module makes the pipeline")
	}
}

// answer is what the drive recorded of one call.
type answer struct {
	Name    string         `json:"name"`
	IsError bool           `json:"isError"`
	Texts   []string       `json:"texts"`
	Meta    map[string]any `json:"meta"`
	RPC     string         `json:"rpc"`
}

// driver is the test binary of a server's package, built once, whose
// TestDrive calls every tool.
type driver struct {
	bin, dir string
}

// driveBinary builds the test binary of the package pkg in the module dir.
func driveBinary(t *testing.T, dir, pkg string) driver {
	t.Helper()
	bin := filepath.Join(t.TempDir(), pkg+".test")
	// Without a symbol table or DWARF, which only a debugger reads: the
	// link takes a fraction of the time.
	if out, code := run(t, dir, nil, "go", "test", "-c", "-ldflags=-s -w", "-o", bin, "./"+pkg); code != 0 {
		t.Fatalf("go test -c ./%s: exit status %d\n%s", pkg, code, out)
	}
	return driver{bin, filepath.Join(dir, pkg)}
}

// drive runs the TestDrive of d, with mcperr installed as install says
// ("": not; "1": enforcing; "report": report-only), and returns its
// answers by name. A masked answer's text is cut before its ref, which
// differs from run to run.
func drive(t *testing.T, d driver, install string) map[string]answer {
	t.Helper()
	file := filepath.Join(t.TempDir(), "answers.json")
	env := withEnv(moduleEnv, "DRIVE_OUT="+file)
	if install != "" {
		env = append(env, "DRIVE_INSTALL="+install)
	}
	if out, code := run(t, d.dir, env, d.bin, "-test.run", "^TestDrive$", "-test.count=1"); code != 0 {
		t.Fatalf("%s: exit status %d\n%s", filepath.Base(d.bin), code, out)
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
