package adaptertest

import (
	"sync"
	"sync/atomic"
	"testing"
)

// RetryCase is one tool of the retry scenario both adapters run: a server
// that retries twice, whose tools fail with a transient error their first
// Fails calls (-1: every call), then succeed.
type RetryCase struct {
	Tool     string
	Success  bool  // the client reads a success in the end
	Attempts int64 // the calls of the tool for the one call of the client
}

// RetryFails says how many calls of each tool of RetryCases fail.
var RetryFails = map[string]int{"sdk_read": 2, "sdk_write": 1, "added_read": -1, "wrapped_read": 1, "timed_read": 1}

// RetryCases are the tools of the retry scenario: added with the SDK's own
// AddTool, read-only or not annotated; with the adapter's AddTool,
// idempotent; wrapped, read-only; and read-only under a deadline of 20 ms,
// shorter than the first wait.
var RetryCases = []RetryCase{
	{"sdk_read", true, 3},
	{"sdk_write", false, 1},
	{"added_read", false, 3},
	{"wrapped_read", true, 2},
	{"timed_read", false, 1},
}

// CheckRetried checks r, the answer to the one call of c's tool after
// calls calls of it, and recs, the failure records the call wrote: the
// success or the last failure, whose envelope says how many attempts; one
// record per failed attempt, numbered, sharing one ref and request id,
// which the last failure shows.
func CheckRetried(t *testing.T, c RetryCase, r Result, calls int64, recs []map[string]any) {
	t.Helper()
	if r.IsError == c.Success || calls != c.Attempts {
		t.Errorf("%s: isError %v after %d calls, want success %v after %d: %s", c.Tool, r.IsError, calls, c.Success, c.Attempts, r.Raw)
	}
	env := r.Envelope()
	if !c.Success {
		ValidateEnvelope(t, env)
		if want := map[bool]any{true: float64(c.Attempts), false: nil}[c.Attempts > 1]; env["attempts"] != want {
			t.Errorf("%s: envelope attempts %v, want %v", c.Tool, env["attempts"], want)
		}
	}
	failed := int(c.Attempts)
	if c.Success {
		failed--
	}
	if len(recs) != failed {
		t.Fatalf("%s: %d failure records, want one per failed attempt, %d: %v", c.Tool, len(recs), failed, recs)
	}
	for i, rec := range recs {
		if c.Attempts > 1 && (rec["attempt"] != float64(i+1) || rec["ref"] != recs[0]["ref"] || rec["request_id"] != recs[0]["request_id"]) {
			t.Errorf("%s: record %d %v, want attempt %d with the first's ref and request id", c.Tool, i, rec, i+1)
		}
	}
	if !c.Success && c.Attempts > 1 && env["ref"] != recs[0]["ref"] {
		t.Errorf("%s: the answer's ref %v does not name the attempts' records (%v)", c.Tool, env["ref"], recs[0]["ref"])
	}
}

// Flaky counts the calls of each tool, and says which fail: the first
// Fails[name] calls of the tool name (-1: every call).
type Flaky struct {
	Fails map[string]int
	calls sync.Map // tool name -> *atomic.Int64
}

// Fail counts a call of the tool name and reports whether it fails.
func (f *Flaky) Fail(name string) bool {
	n, _ := f.calls.LoadOrStore(name, new(atomic.Int64))
	k := n.(*atomic.Int64).Add(1)
	return f.Fails[name] < 0 || k <= int64(f.Fails[name])
}

// Calls returns how many times the tool name was called.
func (f *Flaky) Calls(name string) int64 {
	n, ok := f.calls.Load(name)
	if !ok {
		return 0
	}
	return n.(*atomic.Int64).Load()
}
