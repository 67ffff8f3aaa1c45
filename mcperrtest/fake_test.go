package mcperrtest_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// fakeTB is a testing.TB that records what a test reports instead of
// failing, so that a test can assert that an assertion fails, and how.
// Methods it does not define panic (its embedded TB is nil).
type fakeTB struct {
	testing.TB

	mu       sync.Mutex
	errors   []string
	fatals   []string
	logs     []string
	cleanups []func()
	failed   bool
}

func (f *fakeTB) Helper()      {}
func (f *fakeTB) Name() string { return "fake" }

func (f *fakeTB) Context() context.Context { return context.Background() }

func (f *fakeTB) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
	f.failed = true
}

func (f *fakeTB) Error(args ...any) { f.Errorf("%s", fmt.Sprint(args...)) }

func (f *fakeTB) Fatalf(format string, args ...any) {
	f.mu.Lock()
	f.fatals = append(f.fatals, fmt.Sprintf(format, args...))
	f.failed = true
	f.mu.Unlock()
	runtime.Goexit()
}

func (f *fakeTB) Fatal(args ...any) { f.Fatalf("%s", fmt.Sprint(args...)) }

func (f *fakeTB) Fail() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failed = true
}

func (f *fakeTB) FailNow() { f.Fail(); runtime.Goexit() }

func (f *fakeTB) Failed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failed
}

func (f *fakeTB) Logf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.logs = append(f.logs, fmt.Sprintf(format, args...))
}

func (f *fakeTB) Log(args ...any) { f.Logf("%s", fmt.Sprint(args...)) }

func (f *fakeTB) Cleanup(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cleanups = append(f.cleanups, fn)
}

// run runs body as a test body under f, on a goroutine of its own so that
// Fatalf can end it, then runs f's cleanups, last first, as a test does
// when it ends.
func (f *fakeTB) run(body func(tb testing.TB)) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		body(f)
	}()
	<-done
	f.mu.Lock()
	cleanups := f.cleanups
	f.cleanups = nil
	f.mu.Unlock()
	for i := len(cleanups) - 1; i >= 0; i-- {
		cleanups[i]()
	}
}

// reported returns everything f was told with Errorf and Fatalf.
func (f *fakeTB) reported() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(append(append([]string(nil), f.errors...), f.fatals...), "\n")
}

// headline returns the lines of the first failure before what the client
// received: what an Example prints, and stays the same when a response
// gains a field.
func (f *fakeTB) headline() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	all := append(append([]string(nil), f.errors...), f.fatals...)
	if len(all) == 0 {
		return "(no failure)"
	}
	head, _, _ := strings.Cut(all[0], "\nthe client received, for")
	head, _, _ = strings.Cut(head, "\nthe server logged")
	return strings.ReplaceAll(strings.TrimRight(head, "\n"), "\t- ", "  - ")
}

// wantFailure fails t unless f reported exactly one failure holding every
// one of wants and what the client received.
func wantFailure(t *testing.T, f *fakeTB, wants ...string) {
	t.Helper()
	f.mu.Lock()
	n := len(f.errors) + len(f.fatals)
	f.mu.Unlock()
	got := f.reported()
	if n != 1 {
		t.Fatalf("the assertion reported %d failures, want 1:\n%s", n, got)
	}
	for _, w := range append(wants, "\nthe client received") {
		if !strings.Contains(got, w) {
			t.Errorf("the failure message lacks %q:\n%s", w, got)
		}
	}
}

// wantPass fails t if f reported anything.
func wantPass(t *testing.T, f *fakeTB) {
	t.Helper()
	if got := f.reported(); got != "" {
		t.Errorf("the assertion failed on what it should accept:\n%s", got)
	}
}
