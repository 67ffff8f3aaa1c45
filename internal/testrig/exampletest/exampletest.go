// Package exampletest holds the checks shared by the smoke tests of the
// example programs that print the same thing on both SDKs.
package exampletest

import (
	"regexp"
	"strings"
	"testing"
)

var maskedLookup = regexp.MustCompile(`^Internal error in tool "lookup" \(ref: ([0-9a-f]{16})\)\.$`)

// Quickstart checks the output of a quickstart program: the ToolError's
// message and the block of facts after it, then the masked internal error
// and its block, on stdout; the ref of the latter in exactly one log record
// on stderr, with the full error.
func Quickstart(t *testing.T, stdout, stderr string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	want := []string{"b must not be zero.", "  Code: TOOL_ERROR", "  Retry: no, not with the same arguments.", "", "  Code: INTERNAL_ERROR", "  Retry: no."}
	if len(lines) != len(want) {
		t.Fatalf("stdout = %q", stdout)
	}
	for i, w := range want {
		if w != "" && lines[i] != w {
			t.Errorf("line %d = %q, want %q", i+1, lines[i], w)
		}
	}
	m := maskedLookup.FindStringSubmatch(lines[3])
	if m == nil {
		t.Fatalf("line 4, %q, is not the masked internal error", lines[3])
	}
	if n := strings.Count(stderr, m[1]); n != 1 {
		t.Fatalf("ref %s appears %d times in the log, want once:\n%s", m[1], n, stderr)
	}
	for _, want := range []string{"level=ERROR", "tool=lookup", "ref=" + m[1], `error="connection refused by 10.0.0.12:5432"`} {
		if !strings.Contains(stderr, want) {
			t.Errorf("log lacks %s:\n%s", want, stderr)
		}
	}
	if strings.Contains(stdout, "10.0.0.12") {
		t.Error("the internal error reached the client")
	}
}
