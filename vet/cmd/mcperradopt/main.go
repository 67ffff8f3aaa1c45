// Command mcperradopt is the adoption report: before a server enforces
// mcperr, it reads the records mcperr wrote in report-only mode
// (filter.WithReportOnly(true)) and prints, tool by tool, what the model
// would gain and lose when mcperr enforces.
//
//	mcperradopt [-C dir] [-pkgs patterns] [-after file] [-json] [file ...]
//
// It reads the records of failures from the files named, or from standard
// input: one a line, as slog.NewJSONHandler or slog.NewTextHandler writes
// them; every other line is skipped, and so is the record of an attempt the
// server called again (retry_in), the request's failure being its last. It
// prints one line per tool (or resource, prompt, completion), then the
// totals:
//
//   - FAILURES: the failures recorded;
//   - RAW REMOVED: failures mcperr would mask whose text, the one the bare
//     server sent (the record's error), is not the module's own words: a
//     library's or an upstream's error the model stops reading;
//   - RAW KEPT: error results the handler built itself (hand_built) that
//     mcperr passes as they are, whose text is not the module's own words:
//     raw text the model still reads (filter.WithHandBuilt, mcperrvet -fix);
//   - MESSAGES MASKED: the distinct messages of the module that mcperr would
//     mask (a failure of the module's own words returned as a plain error,
//     such as "service_name is required"): what the model would lose unless
//     they become ToolErrors, which mcperrvet -fix writes;
//   - KEPT: failures the model still reads in words written for it: a
//     ToolError, a domain error, a filter's answer, a refusal of arguments,
//     an error result of the module's own words.
//
// With -after, a second file of records of the same calls made after the
// migration (mcperrvet -fix), it prints each column before and after, side
// by side. -json prints the same as JSON.
//
// The module's own words are the messages written in the packages that
// -pkgs names (default ./...), loaded from the directory -C names (default
// the current one): the text argument of errors.New, toolerr.New, mcp-go's
// mcp.NewToolResultError and mcp.NewToolResultErrorFromErr, the format of
// fmt.Errorf and mcp.NewToolResultErrorf, and the Text of a go-sdk
// mcp.TextContent literal. An argument may be a constant, a concatenation,
// or a fmt.Sprintf of a constant format. Each becomes an anchored pattern:
// a verb, or a part that is not constant, stands for any text, but a %w
// verb, a verb given an error, and an error's Error() stand for another's
// text, and must match nothing: a text is the module's own words only if a
// pattern matches it with every such part empty. "get user: %w" makes
// "get user: dial tcp 10.0.0.5" raw, and "unknown format %q" makes
// `unknown format "x"` the module's own. A message without a word of three
// letters or more of its own ("%s: %v") is not a pattern. Records written
// under filter.WithRedaction hold no text to match: their failures count as
// raw.
//
// It exits 0, or 2 when an input cannot be read or the packages cannot be
// loaded.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the command, its exit status returned.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcperradopt", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("C", "", "load the module's packages from `dir`")
	pkgs := fs.String("pkgs", "./...", "the `patterns` of the packages whose messages are the module's own words")
	after := fs.String("after", "", "a `file` of records of the same calls after the migration")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	words, err := loadOwnWords(*dir, strings.Fields(*pkgs))
	if err != nil {
		fmt.Fprintln(stderr, "mcperradopt:", err)
		return 2
	}
	before, err := readInputs(fs.Args(), stdin)
	if err != nil {
		fmt.Fprintln(stderr, "mcperradopt:", err)
		return 2
	}
	rep := report{Before: tally(before, words)}
	if *after != "" {
		recs, err := readInputs([]string{*after}, stdin)
		if err != nil {
			fmt.Fprintln(stderr, "mcperradopt:", err)
			return 2
		}
		rep.After = tally(recs, words)
	}
	if *asJSON {
		err = rep.writeJSON(stdout)
	} else {
		err = rep.writeTable(stdout)
	}
	if err != nil {
		fmt.Fprintln(stderr, "mcperradopt:", err)
		return 2
	}
	return 0
}

// readInputs reads the records of the files names, or of stdin if there
// are none ("-" is stdin too).
func readInputs(names []string, stdin io.Reader) ([]record, error) {
	if len(names) == 0 {
		names = []string{"-"}
	}
	var out []record
	for _, name := range names {
		recs, err := readInput(name, stdin)
		if err != nil {
			return nil, err
		}
		out = append(out, recs...)
	}
	return out, nil
}

func readInput(name string, stdin io.Reader) ([]record, error) {
	r := stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	recs, err := readRecords(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return recs, nil
}

// counts are one tool's figures (see the command's documentation).
type counts struct {
	Failures       int `json:"failures"`
	RawRemoved     int `json:"rawRemoved"`
	RawKept        int `json:"rawKept"`
	MessagesMasked int `json:"messagesMasked"`
	Kept           int `json:"kept"`

	masked map[string]bool // the messages masked, by how the module writes them
}

// tally classifies recs by tool; "" holds the totals.
func tally(recs []record, words ownWords) map[string]*counts {
	out := map[string]*counts{"": {masked: map[string]bool{}}}
	for _, rec := range recs {
		c := out[rec.target()]
		if c == nil {
			c = &counts{masked: map[string]bool{}}
			out[rec.target()] = c
		}
		for _, c := range []*counts{c, out[""]} {
			c.add(rec, words)
		}
	}
	return out
}

func (c *counts) add(rec record, words ownWords) {
	c.Failures++
	masked := rec.is("masked")
	if _, reported := rec["report_only"]; !reported { // enforcing, or answered in report-only mode
		masked = rec.str("code") == "INTERNAL_ERROR"
	}
	own, isOwn := words.match(rec.str("error"))
	switch {
	case masked && isOwn:
		c.masked[own.Source] = true
		c.MessagesMasked = len(c.masked)
	case masked:
		c.RawRemoved++
	case rec.is("hand_built") && !isOwn:
		c.RawKept++
	default:
		c.Kept++
	}
}

// report is what the command prints: the figures of the records, and of
// those after the migration if given.
type report struct {
	Before, After map[string]*counts
}

// tools returns the tools of the report, sorted.
func (r report) tools() []string {
	var names []string
	for _, m := range []map[string]*counts{r.Before, r.After} {
		for name := range m {
			if name != "" && !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	slices.Sort(names)
	return names
}

var columns = []string{"FAILURES", "RAW REMOVED", "RAW KEPT", "MESSAGES MASKED", "KEPT"}

func (c *counts) values() []int {
	if c == nil {
		return make([]int, len(columns))
	}
	return []int{c.Failures, c.RawRemoved, c.RawKept, c.MessagesMasked, c.Kept}
}

func (r report) writeTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(name string, cells ...string) { fmt.Fprintln(tw, name+"\t"+strings.Join(cells, "\t")) }
	if r.After == nil {
		row("TOOL", columns...)
	} else {
		var heads, sides []string
		for _, c := range columns {
			heads, sides = append(heads, c, ""), append(sides, "before", "after")
		}
		row("TOOL", heads[:len(heads)-1]...)
		row("", sides...)
	}
	line := func(name, key string) {
		var cells []string
		before, after := r.Before[key].values(), r.After[key].values()
		for i := range columns {
			cells = append(cells, fmt.Sprint(before[i]))
			if r.After != nil {
				cells = append(cells, fmt.Sprint(after[i]))
			}
		}
		row(name, cells...)
	}
	for _, name := range r.tools() {
		line(name, name)
	}
	line("total", "")
	return tw.Flush()
}

// jsonTool is a tool's line as JSON: its counts, or before and after.
type jsonTool struct {
	Tool string `json:"tool,omitempty"`
	*counts
	Before *counts `json:"before,omitempty"`
	After  *counts `json:"after,omitempty"`
}

func (r report) writeJSON(w io.Writer) error {
	entry := func(name, key string) jsonTool {
		if r.After == nil {
			return jsonTool{Tool: name, counts: orZero(r.Before[key])}
		}
		return jsonTool{Tool: name, Before: orZero(r.Before[key]), After: orZero(r.After[key])}
	}
	out := struct {
		Tools []jsonTool `json:"tools"`
		Total jsonTool   `json:"total"`
	}{Tools: []jsonTool{}, Total: entry("", "")}
	for _, name := range r.tools() {
		out.Tools = append(out.Tools, entry(name, name))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func orZero(c *counts) *counts {
	if c == nil {
		return &counts{}
	}
	return c
}
