// Package faketb is a testing.TB that records what a test reports instead
// of failing, so that the tests of mcperr's test kit can assert that an
// assertion fails, and with what message. It is for those tests only.
package faketb

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// TB is a testing.TB that records what a test reports instead of
// failing, so that a test can assert that an assertion fails, and how.
// Methods it does not define panic (its embedded TB is nil).
type TB struct {
	testing.TB

	mu       sync.Mutex
	errors   []string
	fatals   []string
	logs     []string
	cleanups []func()
	failed   bool
}

// Helper implements testing.TB.
func (f *TB) Helper() {}

// Name implements testing.TB.
func (f *TB) Name() string { return "fake" }

// Context implements testing.TB.
func (f *TB) Context() context.Context { return context.Background() }

// Errorf implements testing.TB, recording instead of failing.
func (f *TB) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
	f.failed = true
}

// Error implements testing.TB, recording instead of failing.
func (f *TB) Error(args ...any) { f.Errorf("%s", fmt.Sprint(args...)) }

// Fatalf implements testing.TB, recording instead of failing.
func (f *TB) Fatalf(format string, args ...any) {
	f.mu.Lock()
	f.fatals = append(f.fatals, fmt.Sprintf(format, args...))
	f.failed = true
	f.mu.Unlock()
	runtime.Goexit()
}

// Fatal implements testing.TB, recording instead of failing.
func (f *TB) Fatal(args ...any) { f.Fatalf("%s", fmt.Sprint(args...)) }

// Fail implements testing.TB, recording instead of failing.
func (f *TB) Fail() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failed = true
}

// FailNow implements testing.TB, recording instead of failing.
func (f *TB) FailNow() { f.Fail(); runtime.Goexit() }

// Failed implements testing.TB.
func (f *TB) Failed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failed
}

// Logf implements testing.TB.
func (f *TB) Logf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.logs = append(f.logs, fmt.Sprintf(format, args...))
}

// Log implements testing.TB.
func (f *TB) Log(args ...any) { f.Logf("%s", fmt.Sprint(args...)) }

// Cleanup implements testing.TB.
func (f *TB) Cleanup(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cleanups = append(f.cleanups, fn)
}

// Run runs body as a test body under f, on a goroutine of its own so that
// Fatalf can end it, then runs f's cleanups, last first, as a test does
// when it ends.
func (f *TB) Run(body func(tb testing.TB)) {
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

// Reported returns everything f was told with Errorf and Fatalf.
func (f *TB) Reported() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(append(append([]string(nil), f.errors...), f.fatals...), "\n")
}

// Headline returns the lines of the first failure before what the client
// received: what an Example prints, and stays the same when a response
// gains a field.
func (f *TB) Headline() string {
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

// WantFailure fails t unless f reported exactly one failure holding every
// one of wants and trailer, the line that introduces what the client
// received.
func WantFailure(t *testing.T, f *TB, trailer string, wants ...string) {
	t.Helper()
	f.mu.Lock()
	n := len(f.errors) + len(f.fatals)
	f.mu.Unlock()
	got := f.Reported()
	if n != 1 {
		t.Fatalf("the assertion reported %d failures, want 1:\n%s", n, got)
	}
	for _, w := range append(wants, trailer) {
		if !strings.Contains(got, w) {
			t.Errorf("the failure message lacks %q:\n%s", w, got)
		}
	}
}

// WantPass fails t if f reported anything.
func WantPass(t *testing.T, f *TB) {
	t.Helper()
	if got := f.Reported(); got != "" {
		t.Errorf("the assertion failed on what it should accept:\n%s", got)
	}
}

// Fatals returns what f was told with Fatalf and Fatal.
func (f *TB) Fatals() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.fatals...)
}

// Logs returns what f was told with Logf and Log.
func (f *TB) Logs() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.logs...)
}
