package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// errDiffers is compare's answer when a scenario differs from the first
// configuration, and passed's when no run passed: exit status 1.
var errDiffers = errors.New("differs")

// A check is one entry of the suite's checks.json.
type check struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	ErrorMessage string `json:"errorMessage"`
}

// A result is one run of one scenario.
type result struct {
	checks []check
	dir    string
}

// scored returns the checks that say something of the server: all but INFO,
// which records the traffic.
func (r result) scored() []check {
	var s []check
	for _, c := range r.checks {
		if c.Status != "INFO" {
			s = append(s, c)
		}
	}
	return s
}

// passed reports whether no check failed or warned: each succeeded, or the
// suite skipped it.
func (r result) passed() bool {
	for _, c := range r.scored() {
		if c.Status != "SUCCESS" && c.Status != "SKIPPED" {
			return false
		}
	}
	return true
}

// signature is what two runs must share to count as the same result: each
// scored check's id and status.
func (r result) signature() string {
	var s []string
	for _, c := range r.scored() {
		s = append(s, c.ID+"="+c.Status)
	}
	slices.Sort(s)
	return strings.Join(s, " ")
}

// cell is the result as the table shows it.
func (r result) cell() string {
	scored := r.scored()
	failed, warned, skipped := 0, 0, 0
	for _, c := range scored {
		switch c.Status {
		case "SUCCESS":
		case "SKIPPED":
			skipped++
		case "WARNING":
			warned++
		default:
			failed++
		}
	}
	switch {
	case failed > 0:
		return fmt.Sprintf("FAIL %d/%d", failed, len(scored))
	case warned > 0:
		return fmt.Sprintf("warn %d/%d", warned, len(scored))
	case skipped > 0:
		return fmt.Sprintf("skip %d/%d", skipped, len(scored))
	}
	return "pass"
}

// The suite names a result directory server-<scenario>-<UTC time>.
var resultDir = regexp.MustCompile(`^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:-\d{3})?Z$`)

// readResults returns the runs of each scenario under dir, in the order
// they ran.
func readResults(dir string) (map[string][]result, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	runs := map[string][]result{}
	for _, e := range entries { // sorted by name, so by time for one scenario
		m := resultDir.FindStringSubmatch(e.Name())
		if !e.IsDir() || m == nil {
			continue
		}
		path := filepath.Join(dir, e.Name(), "checks.json")
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		var checks []check
		if err := json.Unmarshal(b, &checks); err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		runs[m[1]] = append(runs[m[1]], result{checks: checks, dir: filepath.Join(dir, e.Name())})
	}
	return runs, nil
}

// best returns the first run that passed, else the first run.
func best(runs []result) result {
	for _, r := range runs {
		if r.passed() {
			return r
		}
	}
	return runs[0]
}

type config struct {
	name string
	runs map[string][]result
}

func compareCmd(args []string) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	title := fs.String("title", "", "the table's title")
	flaky := fs.String("flaky", "", "comma-separated scenarios the SDK's baseline lists as intermittent")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() < 2 {
		return errors.New("compare needs the bare configuration and at least one other, as name=dir")
	}
	var configs []config
	for _, a := range fs.Args() {
		name, dir, ok := strings.Cut(a, "=")
		if !ok {
			return fmt.Errorf("%q is not name=dir", a)
		}
		runs, err := readResults(dir)
		if err != nil {
			return err
		}
		configs = append(configs, config{name, runs})
	}
	if len(configs[0].runs) == 0 {
		return fmt.Errorf("%s: the suite left no results", configs[0].name)
	}
	var intermittent []string
	if *flaky != "" {
		intermittent = strings.Split(*flaky, ",")
	}
	return compare(os.Stdout, *title, configs, intermittent)
}

// same reports whether a configuration's runs of a scenario give the bare
// server's result. For a scenario the SDK's baseline lists as intermittent,
// a pass in any run counts as the bare server's result, and so does a
// failure the bare server also showed in one of its runs.
func same(runs, bare []result, intermittent bool) bool {
	if len(runs) == 0 || len(bare) == 0 {
		return len(runs) == len(bare)
	}
	r := best(runs)
	if r.signature() == best(bare).signature() {
		return true
	}
	if !intermittent {
		return false
	}
	if r.passed() {
		return true
	}
	for _, b := range bare {
		if b.signature() == r.signature() {
			return true
		}
	}
	return false
}

// compare prints the table of configs' results and the details of each
// scenario whose result differs from the first configuration's.
func compare(w io.Writer, title string, configs []config, intermittent []string) error {
	var scenarios []string
	for _, c := range configs {
		for s := range c.runs {
			if !slices.Contains(scenarios, s) {
				scenarios = append(scenarios, s)
			}
		}
	}
	slices.Sort(scenarios)
	width := len("scenario")
	for _, s := range scenarios {
		width = max(width, len(s))
	}
	fmt.Fprintf(w, "-- %s\n%-*s", title, width, "scenario")
	for _, c := range configs {
		fmt.Fprintf(w, "  %-10s", c.name)
	}
	fmt.Fprintln(w)
	var differ []string
	for _, s := range scenarios {
		fmt.Fprintf(w, "%-*s", width, s)
		base := configs[0].runs[s]
		flaky := slices.Contains(intermittent, s)
		differs := false
		for _, c := range configs {
			runs := c.runs[s]
			cell := "-"
			if len(runs) > 0 {
				cell = best(runs).cell()
			}
			if !same(runs, base, flaky) {
				differs = true
				cell += " *"
			}
			fmt.Fprintf(w, "  %-10s", cell)
		}
		if flaky {
			fmt.Fprint(w, "  intermittent, runs:")
			for _, c := range configs {
				fmt.Fprintf(w, " %d", len(c.runs[s]))
			}
		}
		if differs {
			differ = append(differ, s)
			fmt.Fprint(w, "  differs from "+configs[0].name)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%d scenarios; %d differ from %s\n", len(scenarios), len(differ), configs[0].name)
	if len(intermittent) > 0 {
		fmt.Fprintf(w, "intermittent in the SDK's baseline (%s): a pass in any run, or a failure %s showed too, counts as %s's result\n",
			strings.Join(intermittent, ", "), configs[0].name, configs[0].name)
	}
	for _, s := range differ {
		fmt.Fprintf(w, "\n%s:\n", s)
		for _, c := range configs {
			runs, ok := c.runs[s]
			if !ok {
				fmt.Fprintf(w, "  %s: no result\n", c.name)
				continue
			}
			r := best(runs)
			fmt.Fprintf(w, "  %s: %s (best of %d runs; %s)\n", c.name, r.cell(), len(runs), r.dir)
			for _, ch := range r.scored() {
				line := "    " + ch.Status + " " + ch.ID
				if ch.ErrorMessage != "" {
					line += ": " + ch.ErrorMessage
				}
				fmt.Fprintln(w, line)
			}
		}
	}
	if len(differ) > 0 {
		return errDiffers
	}
	return nil
}

func passedCmd(args []string) error {
	fs := flag.NewFlagSet("passed", flag.ContinueOnError)
	scenario := fs.String("scenario", "", "the scenario")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *scenario == "" || fs.NArg() != 1 {
		return errors.New("passed needs -scenario and one directory")
	}
	runs, err := readResults(fs.Arg(0))
	if err != nil {
		return err
	}
	if len(runs[*scenario]) == 0 {
		return fmt.Errorf("no run of %s in %s", *scenario, fs.Arg(0))
	}
	if !best(runs[*scenario]).passed() {
		return errDiffers
	}
	return nil
}

func flakyCmd(args []string) error {
	if len(args) != 1 {
		return errors.New("flaky needs one baseline file")
	}
	f, err := os.Open(args[0])
	if err != nil {
		return err
	}
	defer f.Close()
	names, err := serverScenarios(f)
	if err != nil {
		return err
	}
	for _, n := range names {
		fmt.Println(n)
	}
	return nil
}

// serverScenarios returns the entries of the top-level "server:" list of a
// conformance baseline file (YAML: a key per side, a list of scenarios).
func serverScenarios(r io.Reader) ([]string, error) {
	var names []string
	in := false
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "" || strings.HasPrefix(trimmed, "#"):
		case line[0] != ' ' && line[0] != '\t' && line[0] != '-':
			in = trimmed == "server:"
		case in && strings.HasPrefix(trimmed, "- "):
			name, _, _ := strings.Cut(strings.TrimPrefix(trimmed, "- "), " #")
			names = append(names, strings.Trim(strings.TrimSpace(name), `"'`))
		}
	}
	return names, sc.Err()
}
