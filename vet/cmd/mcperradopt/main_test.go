package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/toolerr"
)

// The tools' failures, before and after the migration: the words of
// testdata/server, whose package is loaded as the module's own words.
var (
	required  = "either trace_id or service_name must be provided"
	beforeFix = map[string]func() error{
		"validate":    func() error { return errors.New(required) },
		"get_user":    func() error { return fmt.Errorf("get user: %w", errors.New("dial tcp 10.0.0.5: password=x")) },
		"close_order": func() error { return toolerr.New("Order 7 is closed.") },
	}
	afterFix = map[string]func() error{
		"validate":    func() error { return toolerr.New(required) },
		"get_user":    func() error { return toolerr.New("get user").WithCause(errors.New("dial tcp 10.0.0.5: password=x")) },
		"close_order": func() error { return toolerr.New("Order 7 is closed.") },
	}
)

// records runs a go-sdk server with mcperr installed in report-only mode,
// its tools failing as fails says, calls each tool once through the SDK's
// client, and returns what mcperr logged through newHandler.
func records(t *testing.T, fails map[string]func() error, newHandler func(*bytes.Buffer) slog.Handler) []byte {
	t.Helper()
	var buf bytes.Buffer
	p, err := filter.New(filter.WithLogger(slog.New(newHandler(&buf))), filter.WithReportOnly(true))
	if err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "adopt", Version: "1.0.0"}, nil)
	if err := gosdk.Install(s, p); err != nil {
		t.Fatal(err)
	}
	for name, fail := range fails {
		h := func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
			return nil, nil, fail()
		}
		if err := gosdk.AddTool(s, &mcp.Tool{Name: name}, h); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0.0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name := range fails {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
		if err == nil && !res.IsError {
			t.Fatalf("%s succeeded", name)
		}
	}
	cs.Close()
	ss.Wait()
	return buf.Bytes()
}

func jsonHandler(b *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(b, nil) }

func textHandler(b *bytes.Buffer) slog.Handler { return slog.NewTextHandler(b, nil) }

// file writes b to a file of its own and returns its name.
func file(t *testing.T, name string, b []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o666); err != nil {
		t.Fatal(err)
	}
	return path
}

// report runs the command with -json and decodes what it prints.
func reportOf(t *testing.T, args ...string) map[string]any {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run(append([]string{"-C", "testdata/server", "-json"}, args...), strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.Bytes())
	}
	var out struct {
		Tools []map[string]any `json:"tools"`
		Total map[string]any   `json:"total"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("%v: %s", err, stdout.Bytes())
	}
	byTool := map[string]any{"total": out.Total}
	for _, tool := range out.Tools {
		byTool[tool["tool"].(string)] = tool
	}
	return byTool
}

// figures is what a report says of one tool: failures, raw removed, raw
// kept, messages masked, kept.
type figures [5]float64

func figuresOf(t *testing.T, v any) figures {
	t.Helper()
	m, _ := v.(map[string]any)
	var f figures
	for i, k := range []string{"failures", "rawRemoved", "rawKept", "messagesMasked", "kept"} {
		f[i], _ = m[k].(float64)
	}
	return f
}

func TestReport(t *testing.T) {
	path := file(t, "records.jsonl", append([]byte("a line that is not a record\n"), records(t, beforeFix, jsonHandler)...))
	got := reportOf(t, path)
	for tool, want := range map[string]figures{
		"validate":    {1, 0, 0, 1, 0}, // the module's message, masked
		"get_user":    {1, 1, 0, 0, 0}, // another's text behind %w: raw, removed
		"close_order": {1, 0, 0, 0, 1}, // a ToolError: kept
		"total":       {3, 1, 0, 1, 1},
	} {
		if f := figuresOf(t, got[tool]); f != want {
			t.Errorf("%s: %v, want %v (failures, raw removed, raw kept, messages masked, kept)", tool, f, want)
		}
	}
}

// TestReportAfter checks the report of the records of the same calls
// before and after the migration, these written by slog.NewTextHandler.
func TestReportAfter(t *testing.T) {
	before := file(t, "before.jsonl", records(t, beforeFix, jsonHandler))
	after := file(t, "after.log", records(t, afterFix, textHandler))
	got := reportOf(t, "-after", after, before)
	for tool, want := range map[string][2]figures{
		"validate": {{1, 0, 0, 1, 0}, {1, 0, 0, 0, 1}},
		"get_user": {{1, 1, 0, 0, 0}, {1, 0, 0, 0, 1}},
		"total":    {{3, 1, 0, 1, 1}, {3, 0, 0, 0, 3}},
	} {
		m, _ := got[tool].(map[string]any)
		if b, a := figuresOf(t, m["before"]), figuresOf(t, m["after"]); b != want[0] || a != want[1] {
			t.Errorf("%s: before %v, after %v, want %v", tool, b, a, want)
		}
	}

	var table bytes.Buffer
	if code := run([]string{"-C", "testdata/server", "-after", after, before}, nil, &table, os.Stderr); code != 0 {
		t.Fatalf("exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(table.String()), "\n")
	if len(lines) != 6 || !strings.HasPrefix(lines[0], "TOOL") || !strings.Contains(lines[1], "before  after") ||
		strings.Join(strings.Fields(lines[5]), " ") != "total 3 3 1 0 0 0 1 0 1 3" {
		t.Errorf("the table:\n%s", table.String())
	}
}

// TestOwnWords checks the rule that tells the module's words from another's.
func TestOwnWords(t *testing.T) {
	words, err := loadOwnWords("testdata/server", []string{"./..."})
	if err != nil {
		t.Fatal(err)
	}
	for text, own := range map[string]bool{
		required: true,
		`unknown format "x": must be full or compact`: true,
		"get user: dial tcp 10.0.0.5":                 false, // the part %w prints is another's
		"get user: ":                                  true,
		"Order 7 is closed.":                          true,
		"lookup failed: dial tcp 10.0.0.5":            false, // err.Error() is another's
		"dial tcp 10.0.0.5: password=x":               false,
	} {
		if _, ok := words.match(text); ok != own {
			t.Errorf("%q: own words %v, want %v", text, ok, own)
		}
	}
}

func TestUnreadableInput(t *testing.T) {
	var stderr bytes.Buffer
	if code := run([]string{"-C", "testdata/server", filepath.Join(t.TempDir(), "missing.jsonl")}, nil, &bytes.Buffer{}, &stderr); code != 2 {
		t.Errorf("exit %d, want 2 (%s)", code, stderr.Bytes())
	}
}
