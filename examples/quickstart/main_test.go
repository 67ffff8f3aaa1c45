package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
)

func TestQuickstart(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 2 || lines[0] != "b must not be zero." {
		t.Fatalf("stdout = %q", stdout.String())
	}
	m := regexp.MustCompile(`^Internal error in tool "lookup" \(ref: ([0-9a-f]{16})\)\.$`).FindStringSubmatch(lines[1])
	if m == nil {
		t.Fatalf("second line %q is not the masked internal error", lines[1])
	}
	log := stderr.String()
	if strings.Count(log, m[1]) != 1 {
		t.Fatalf("ref %s appears %d times in the log, want once:\n%s", m[1], strings.Count(log, m[1]), log)
	}
	for _, want := range []string{"level=ERROR", "tool=lookup", "ref=" + m[1], `error="connection refused by 10.0.0.12:5432"`} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %s:\n%s", want, log)
		}
	}
	if strings.Contains(stdout.String(), "10.0.0.12") {
		t.Error("the internal error reached the client")
	}
}
