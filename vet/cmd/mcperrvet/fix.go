package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/mcperr/mcperr/vet/internal/provenance"
)

// diagnostic is one finding of an analyzer, as -json prints it.
type diagnostic struct {
	Posn    string `json:"posn"`
	Message string `json:"message"`
	Fixes   []struct {
		Edits []struct {
			Filename   string `json:"filename"`
			Start, End int
			New        string `json:"new"`
		} `json:"edits"`
	} `json:"suggested_fixes"`
	analyzer string
}

// finding is what the migration prints of a site left.
type finding struct{ posn, kind, message string }

// migrate runs the migration that -fix (args[i]) asks for: the analyzers'
// fixes and the whole-program pass's, decided on the code as it is, made
// once; then both look again, and every site left is printed. It prints
// what it rewrote, per file and kind, and exits 0 only when nothing is left
// that would leak or be lost, 3 when something is.
// memoryLimit is the soft memory limit of -fix and of the analyzers it
// runs, unless GOMEMLIMIT sets one.
const memoryLimit = 1400 << 20

func migrate(args []string, i int) int {
	if !installs() {
		os.Stderr.WriteString("mcperrvet: -fix turns error results into returned errors, which only mcperr keeps from the client, " +
			"and no package of this module imports gosdk or mcpgo: install mcperr first (gosdk.Install or mcpgo.Install, " +
			"report-only is enough), then run -fix\n")
		return 2
	}
	args = slices.Delete(slices.Clone(args), i, i+1)
	if !slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(strings.TrimLeft(a, "-"), "test") }) {
		args = append([]string{"-test=false"}, args...) // tests build bare servers on purpose: never rewritten
	}
	var patterns []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			patterns = append(patterns, a)
		}
	}

	if os.Getenv("GOMEMLIMIT") == "" {
		// A large module's syntax, types and SSA are most of the heap: a
		// soft limit makes the collector work harder rather than let the
		// heap double (gopls's module: 2.1 GB without it, 1.5 GB with).
		debug.SetMemoryLimit(memoryLimit)
	}
	diags, code := analyze(args)
	if code != 0 {
		return code
	}
	prov, err := provenance.Run(provenance.Config{Dir: ".", Patterns: patterns})
	if err != nil {
		fmt.Fprintf(os.Stderr, "mcperrvet: %v\n", err)
		return 1
	}
	edits := map[string][]provenance.Edit{}
	done := map[string]map[string]int{}
	count := func(file, kind string) {
		if done[file] == nil {
			done[file] = map[string]int{}
		}
		done[file][kind]++
	}
	fixedLines := map[string]bool{}
	for _, d := range diags {
		if len(d.Fixes) == 0 || keepAsWritten(d, prov) {
			continue
		}
		fixedLines[lineOf(d.Posn)] = true
		file := d.Fixes[0].Edits[0].Filename
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		for _, e := range d.Fixes[0].Edits {
			edits[e.Filename] = append(edits[e.Filename], provenance.Edit{Start: e.Start, End: e.End, New: e.New})
		}
		count(file, d.analyzer)
	}
	for _, fx := range prov.Fixes {
		if fixedLines[provenance.Line(fx.Pos)] {
			continue // an analyzer's fix rewrites the same call
		}
		edits[fx.Pos.Filename] = append(edits[fx.Pos.Filename], fx.Edits...)
		count(fx.Pos.Filename, string(fx.Kind))
	}
	changed := len(edits) > 0
	// What -fix writes, it can take back: a rewrite after which the
	// packages no longer build puts every file back as it was.
	written := originals{}
	if err := written.applyAll(edits); err != nil {
		return written.restore(err)
	}
	// A fix can bring a message into view: a handler that now returns an
	// error, or gives it to SetError, where it built a result of its text,
	// makes that error's messages the model's to lose.
	settled := !changed // prov already says what is left
	for range 2 {
		if settled {
			break
		}
		prov, err = provenance.Run(provenance.Config{Dir: ".", Patterns: patterns})
		if err != nil {
			return written.restore(err)
		}
		if settled = len(prov.Fixes) == 0; settled {
			break
		}
		changed = true
		edits = map[string][]provenance.Edit{}
		for _, fx := range prov.Fixes {
			edits[fx.Pos.Filename] = append(edits[fx.Pos.Filename], fx.Edits...)
			count(fx.Pos.Filename, string(fx.Kind))
		}
		if err := written.applyAll(edits); err != nil {
			return written.restore(err)
		}
	}
	if !settled {
		if prov, err = provenance.Run(provenance.Config{Dir: ".", Patterns: patterns}); err != nil {
			return written.restore(err)
		}
	}
	printRewritten(done)

	// Look again: what is left, by both; the analyzers' findings stand as
	// they are where nothing was rewritten.
	if changed {
		if diags, code = analyze(args); code != 0 {
			return code
		}
	}
	var left []finding
	seen := map[string]bool{}
	for _, fd := range prov.Findings {
		posn := fmt.Sprintf("%s:%d:%d", fd.Pos.Filename, fd.Pos.Line, fd.Pos.Column)
		seen[provenance.Line(fd.Pos)] = true
		left = append(left, finding{posn, string(fd.Kind), fd.Message})
	}
	for _, d := range diags {
		if keepAsWritten(d, prov) || seen[lineOf(d.Posn)] || strings.Contains(d.Posn, "_test.go:") {
			continue
		}
		left = append(left, finding{d.Posn, d.analyzer, d.Message})
	}
	slices.SortFunc(left, func(a, b finding) int { return cmp.Compare(a.posn, b.posn) })
	for _, f := range left {
		fmt.Fprintf(os.Stderr, "%s: %s\n", relPath(f.posn), f.message)
	}
	if len(left) > 0 {
		fmt.Fprintf(os.Stderr, "mcperrvet: %d site(s) left that would leak another's text or lose a message of the server's: each says what to write\n", len(left))
		return 3
	}
	return 0
}

// originals holds each file -fix rewrote as it was before.
type originals map[string][]byte

// applyAll makes the edits, file by file, keeping each file as it was
// before its first edit.
func (o originals) applyAll(edits map[string][]provenance.Edit) error {
	for _, file := range slices.Sorted(maps.Keys(edits)) {
		if _, ok := o[file]; !ok {
			src, err := os.ReadFile(file)
			if err != nil {
				return err
			}
			o[file] = src
		}
		if _, err := provenance.Apply(file, edits[file]); err != nil {
			return err
		}
	}
	return nil
}

// restore puts every file back as it was, after err (the rewritten
// packages do not load, a file could not be written), says so and returns
// the exit status 1: -fix leaves a module that built before as it was,
// never half rewritten.
func (o originals) restore(err error) int {
	fmt.Fprintf(os.Stderr, "mcperrvet: %v\n", err)
	var failed []string
	for _, file := range slices.Sorted(maps.Keys(o)) {
		if werr := os.WriteFile(file, o[file], 0o644); werr != nil {
			failed = append(failed, fmt.Sprintf("%s: %v", relPath(file), werr))
		}
	}
	switch {
	case len(failed) > 0:
		fmt.Fprintf(os.Stderr, "mcperrvet -fix could not put back %d file(s) as they were:\n\t%s\n", len(failed), strings.Join(failed, "\n\t"))
	case len(o) > 0:
		fmt.Fprintf(os.Stderr, "mcperrvet -fix took back its rewrites: the %d file(s) it changed are as they were; "+
			"a rewrite that does not build is a defect of mcperrvet: report it with the error above\n", len(o))
	}
	return 1
}

// keepAsWritten reports whether the whole-program pass decides an
// analyzer's finding otherwise: a result built by hand whose text is the
// server's own on every path (the answer is already the model's, as
// written); a message the analyzer takes for the model's whose text holds
// another's value (fmt.Errorf("query on %s: %w", db.DSN, ErrConn)), which
// mcperr is right to mask; a fix that would make another's text (an
// upstream's string) a ToolError's message.
func keepAsWritten(d diagnostic, prov *provenance.Result) bool {
	line := lineOf(d.Posn)
	if d.analyzer == "mcperrsdktext" && prov.Own[line] {
		return true
	}
	if d.analyzer == "mcperrmasked" && prov.NotOwn[line] {
		return true // its text holds another's value: masked is right
	}
	if prov.Upstream[line] {
		for _, fx := range d.Fixes {
			for _, e := range fx.Edits {
				if strings.Contains(e.New, "toolerr.New(") {
					return true
				}
			}
		}
	}
	return false
}

// lineOf returns "file:line" of "file:line:col".
func lineOf(posn string) string {
	if i := strings.LastIndex(posn, ":"); i > 0 {
		if _, err := strconv.Atoi(posn[i+1:]); err == nil {
			return posn[:i]
		}
	}
	return posn
}

// analyze runs the analyzers with -json on args and returns their
// findings; a status other than 0 when they could not run.
func analyze(args []string) ([]diagnostic, int) {
	cmd := exec.Command(os.Args[0], append([]string{"-json"}, args...)...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	if os.Getenv("GOMEMLIMIT") == "" {
		cmd.Env = append(cmd.Env, fmt.Sprintf("GOMEMLIMIT=%d", memoryLimit))
	}
	var out bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, &out, os.Stderr
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			io.Copy(os.Stdout, &out)
			return nil, exit.ExitCode()
		}
		fmt.Fprintf(os.Stderr, "mcperrvet: %v\n", err)
		return nil, 1
	}
	var tree map[string]map[string]json.RawMessage
	if err := json.Unmarshal(out.Bytes(), &tree); err != nil {
		fmt.Fprintf(os.Stderr, "mcperrvet: the analyzers' findings cannot be read: %v\n", err)
		return nil, 1
	}
	var diags []diagnostic
	for _, pkg := range slices.Sorted(maps.Keys(tree)) {
		for _, name := range slices.Sorted(maps.Keys(tree[pkg])) {
			var ds []diagnostic
			if json.Unmarshal(tree[pkg][name], &ds) != nil {
				var e struct{ Error string }
				if json.Unmarshal(tree[pkg][name], &e) == nil && e.Error != "" {
					fmt.Fprintf(os.Stderr, "mcperrvet: %s: %s: %s\n", pkg, name, e.Error)
					return nil, 1
				}
				continue
			}
			for i := range ds {
				ds[i].analyzer = name
			}
			diags = append(diags, ds...)
		}
	}
	return diags, 0
}

// printRewritten prints the sites rewritten, per file and kind.
func printRewritten(done map[string]map[string]int) {
	total := 0
	kinds := map[string]int{}
	for _, byKind := range done {
		for k, n := range byKind {
			total += n
			kinds[k] += n
		}
	}
	fmt.Fprintf(os.Stderr, "mcperrvet -fix rewrote %d site(s)", total)
	for _, k := range slices.Sorted(maps.Keys(kinds)) {
		fmt.Fprintf(os.Stderr, ", %s %d", k, kinds[k])
	}
	fmt.Fprintln(os.Stderr)
	tw := tabwriter.NewWriter(os.Stderr, 0, 4, 2, ' ', 0)
	for _, file := range slices.Sorted(maps.Keys(done)) {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(done[file])) {
			parts = append(parts, fmt.Sprintf("%s %d", k, done[file][k]))
		}
		fmt.Fprintf(tw, "\t%s\t%s\n", relPath(file), strings.Join(parts, ", "))
	}
	tw.Flush()
}

// relPath returns path relative to the working directory when it is under
// it, as go vet names the files it reports.
func relPath(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	rel, err := filepath.Rel(wd, path)
	if err != nil || !filepath.IsAbs(path) || strings.HasPrefix(rel, "..") {
		return path
	}
	return rel
}
