package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeRun writes one run of scenario under dir as the suite does.
func writeRun(t *testing.T, dir, scenario, stamp, checks string) {
	t.Helper()
	d := filepath.Join(dir, "server-"+scenario+"-2026-01-02T03-04-"+stamp+"Z")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "checks.json"), []byte(checks), 0o644); err != nil {
		t.Fatal(err)
	}
}

const (
	pass = `[{"id":"a","status":"INFO"},{"id":"x","status":"SUCCESS"}]`
	fail = `[{"id":"x","status":"FAILURE","errorMessage":"got 2"}]`
	warn = `[{"id":"x","status":"WARNING"}]`
	skip = `[{"id":"x","status":"SKIPPED"}]`
)

func configOf(t *testing.T, name string, runs ...[3]string) config {
	t.Helper()
	dir := t.TempDir()
	for _, r := range runs {
		writeRun(t, dir, r[0], r[1], r[2])
	}
	got, err := readResults(dir)
	if err != nil {
		t.Fatal(err)
	}
	return config{name, got}
}

func TestCompareSame(t *testing.T) {
	bare := configOf(t, "bare", [3]string{"ping", "05", pass}, [3]string{"tasks-x", "05", fail},
		[3]string{"flaky", "05", fail}, [3]string{"flaky", "06", pass})
	with := configOf(t, "default", [3]string{"ping", "05", pass}, [3]string{"tasks-x", "05", fail},
		[3]string{"flaky", "05", fail}, [3]string{"flaky", "06", fail}, [3]string{"flaky", "07", pass})
	var out strings.Builder
	if err := compare(&out, "t", []config{bare, with}, []string{"flaky"}); err != nil {
		t.Fatalf("compare = %v, want nil:\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "3 scenarios; 0 differ from bare") {
		t.Errorf("table:\n%s", out.String())
	}
}

func TestCompareDiffers(t *testing.T) {
	for name, other := range map[string]config{
		"fails":     configOf(t, "x", [3]string{"ping", "05", fail}),
		"warns":     configOf(t, "x", [3]string{"ping", "05", warn}),
		"skips":     configOf(t, "x", [3]string{"ping", "05", skip}),
		"no result": configOf(t, "x", [3]string{"other", "05", pass}),
		"one check more": configOf(t, "x", [3]string{"ping", "05",
			`[{"id":"x","status":"SUCCESS"},{"id":"y","status":"SUCCESS"}]`}),
	} {
		bare := configOf(t, "bare", [3]string{"ping", "05", pass})
		var out strings.Builder
		if err := compare(&out, "t", []config{bare, other}, nil); err != errDiffers {
			t.Errorf("%s: compare = %v, want errDiffers:\n%s", name, err, out.String())
		}
		if !strings.Contains(out.String(), "differs from bare") {
			t.Errorf("%s: the table does not say which scenario differs:\n%s", name, out.String())
		}
	}
}

func TestCell(t *testing.T) {
	c := configOf(t, "c", [3]string{"p", "05", pass}, [3]string{"f", "05", fail},
		[3]string{"w", "05", warn}, [3]string{"s", "05", skip})
	for scenario, want := range map[string]string{"p": "pass", "f": "FAIL 1/1", "w": "warn 1/1", "s": "skip 1/1"} {
		if got := best(c.runs[scenario]).cell(); got != want {
			t.Errorf("%s: cell %q, want %q", scenario, got, want)
		}
	}
}

func TestServerScenarios(t *testing.T) {
	const baseline = `# intermittent
client:
  - auth/dpop
server:
  # notifications
  - tools-call-with-logging
  - "tools-call-with-progress" # see #969
other:
  - nope
`
	got, err := serverScenarios(strings.NewReader(baseline))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"tools-call-with-logging", "tools-call-with-progress"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestCompareIntermittent(t *testing.T) {
	other := `[{"id":"y","status":"FAILURE"}]`
	bare := configOf(t, "bare", [3]string{"flaky", "05", pass}, [3]string{"flaky", "06", fail})
	for name, tc := range map[string]struct {
		c    config
		want error
	}{
		"passes once":         {configOf(t, "x", [3]string{"flaky", "05", fail}, [3]string{"flaky", "06", pass}), nil},
		"fails as bare did":   {configOf(t, "x", [3]string{"flaky", "05", fail}, [3]string{"flaky", "06", fail}), nil},
		"fails as bare never": {configOf(t, "x", [3]string{"flaky", "05", other}), errDiffers},
		"no result":           {configOf(t, "x", [3]string{"ping", "05", pass}), errDiffers},
	} {
		var out strings.Builder
		if err := compare(&out, "t", []config{bare, tc.c}, []string{"flaky"}); err != tc.want {
			t.Errorf("%s: compare = %v, want %v:\n%s", name, err, tc.want, out.String())
		}
	}
	// Not listed as intermittent, the same runs differ.
	var out strings.Builder
	c := configOf(t, "x", [3]string{"flaky", "05", fail})
	if err := compare(&out, "t", []config{bare, c}, nil); err != errDiffers {
		t.Errorf("not intermittent: compare = %v, want errDiffers:\n%s", err, out.String())
	}
}
