package adaptertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/toolerr"
)

// LoadCalls is the number of calls an adapter's TestLoad makes: 10,000, or
// 1,000 under the race detector, which race says is on, or -short.
func LoadCalls(race bool) int {
	if race || testing.Short() {
		return 1000
	}
	return 10000
}

const (
	// LoadClients is the number of clients, or client sessions, of an
	// adapter's TestLoad.
	LoadClients = 8
	// LoadWorkers is the number of concurrent callers per client.
	LoadWorkers = 16
)

// LoadTool is a tool of TestLoad and what each of its calls must answer.
type LoadTool struct {
	Name string
	// Code is the envelope's code; "" for success.
	Code codes.Code
	// Text is the first text block; "" for the masked text.
	Text string
	// Do is what the tool does; nil succeeds with "all good".
	Do HostileBehaviour
}

// LoadTools returns the tools of TestLoad, in the order calls cycle through
// them.
func LoadTools() []LoadTool {
	return []LoadTool{
		{"ok", "", "all good", nil},
		{"tool_error", codes.ToolFailed, "Out of stock.", Fails(toolerr.New("Out of stock.").
			WithCause(errors.New("stock db: " + HostileCanary)))},
		{"internal", codes.InternalError, "", func(context.Context) error {
			return fmt.Errorf("dial 10.0.0.5: password=%s refused", HostileCanary)
		}},
		{"panic", codes.InternalError, "", PanicsWith("nil map write: " + HostileCanary)},
		{"not_found", codes.NotFound, "Order not found: ord_1", Fails(domain.NewNotFound("Order", "ord_1"))},
	}
}

// hexRefRE finds what may be refs in a log record.
var hexRefRE = regexp.MustCompile(`[0-9a-f]{16}`)

// RefReporter is a reporter: its method Report is a filter.Observer that
// counts the server failures (those with a ref) of each ref. Give it to a
// pipeline with filter.WithObserver(r.Report).
type RefReporter struct {
	mu   sync.Mutex
	refs map[string]int
}

// Report counts the ref of f, a server failure; it ignores a failure
// without a ref.
func (r *RefReporter) Report(_ context.Context, f filter.Failure) {
	if f.Envelope.Ref == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.refs == nil {
		r.refs = map[string]int{}
	}
	r.refs[f.Envelope.Ref]++
}

// Refs returns how many times each ref was reported so far.
func (r *RefReporter) Refs() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.refs)
}

// RunLoad makes n calls from LoadClients clients, LoadWorkers at a time
// each: do(c, i) makes call i from client c, which is i modulo LoadClients.
// It returns when every call has.
func RunLoad(t *testing.T, n int, do func(c, i int)) {
	t.Helper()
	var wg sync.WaitGroup
	start := time.Now()
	for c := range LoadClients {
		next := make(chan int)
		for range LoadWorkers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					do(c, i)
				}
			}()
		}
		go func() {
			defer close(next)
			for i := c; i < n; i += LoadClients {
				next <- i
			}
		}()
	}
	wg.Wait()
	t.Logf("%d calls from %d clients in %v", n, LoadClients, time.Since(start))
}

// CheckLoad checks the results of TestLoad, call i of the tool LoadTools
// gives at i modulo their number: each what its tool must answer, without
// the canary; every masked failure with its own ref, in exactly one of the
// records log holds and reported once to rep; and one record per failing
// call.
func CheckLoad(t *testing.T, results []Result, log *Log, rep *RefReporter) {
	t.Helper()
	tools := LoadTools()
	refs := map[string]int{} // ref -> index of its call
	for i, r := range results {
		tool := tools[i%len(tools)]
		if r.ProtocolErr != nil {
			t.Fatalf("call %d (%s): %v", i, tool.Name, r.ProtocolErr)
		}
		if strings.Contains(string(r.Raw), HostileCanary) {
			t.Fatalf("call %d (%s): the canary reached the client: %s", i, tool.Name, r.Raw)
		}
		if len(r.Texts) == 0 {
			t.Fatalf("call %d (%s): no text: %s", i, tool.Name, r.Raw)
		}
		if tool.Code == "" {
			if r.IsError || r.Texts[0] != tool.Text {
				t.Fatalf("call %d (ok) failed: %s", i, r.Raw)
			}
			continue
		}
		env := r.Envelope()
		if !r.IsError || env == nil || env["code"] != string(tool.Code) {
			t.Fatalf("call %d (%s): %s, want an isError result with code %s", i, tool.Name, r.Raw, tool.Code)
		}
		ref, _ := env["ref"].(string) // a server failure's, in the tool's words or masked
		if tool.Text != "" {
			if r.Texts[0] != tool.Text {
				t.Fatalf("call %d (%s): text %q, want %q", i, tool.Name, r.Texts[0], tool.Text)
			}
		} else if m := MaskedTextRE.FindStringSubmatch(r.Texts[0]); m == nil || m[1] != tool.Name || ref != m[2] {
			t.Fatalf("call %d (%s): text %q, envelope ref %v: want the masked text and the same ref", i, tool.Name, r.Texts[0], env["ref"])
		}
		if ref == "" {
			continue
		}
		if j, dup := refs[ref]; dup {
			t.Fatalf("calls %d and %d got the same ref %s", j, i, ref)
		}
		refs[ref] = i
	}

	// Every failure is logged once; each ref is in exactly one record.
	n := len(results)
	records := log.Records(t)
	if want := n - (n+len(tools)-1)/len(tools); len(records) != want {
		t.Errorf("%d records, want one per failing call: %d", len(records), want)
	}
	inRecords := map[string]int{}
	for _, rec := range records {
		b, _ := json.Marshal(rec)
		seen := map[string]bool{}
		for _, h := range hexRefRE.FindAllString(string(b), -1) {
			if _, ok := refs[h]; ok && !seen[h] {
				seen[h] = true
				inRecords[h]++
			}
		}
	}
	reported := rep.Refs()
	for ref, i := range refs {
		if inRecords[ref] != 1 {
			t.Errorf("ref %s of call %d is in %d records, want 1", ref, i, inRecords[ref])
		}
		if reported[ref] != 1 {
			t.Errorf("ref %s of call %d reported %d times, want once", ref, i, reported[ref])
		}
	}
	if len(reported) != len(refs) {
		t.Errorf("%d refs reported, %d server failures", len(reported), len(refs))
	}
}

// BlockUntilDone returns a HostileBehaviour that closes started, if not
// nil, and returns its context's error, with the canary, once the context
// is done.
func BlockUntilDone(started chan<- struct{}) HostileBehaviour {
	return func(ctx context.Context) error {
		if started != nil {
			close(started)
		}
		<-ctx.Done()
		return fmt.Errorf("query %s: %w", HostileCanary, ctx.Err())
	}
}

// RetryUnknown is the Retry line of a failure that may have taken effect,
// on a tool not annotated read-only or idempotent.
const RetryUnknown = "Retry: not before checking; the outcome is unknown, and the tool may have done its work before it failed."

// timeoutRefRE is a whole ref.
var timeoutRefRE = regexp.MustCompile(`^[0-9a-f]{16}$`)

// CheckTimeout checks r, the answer to a call whose handler's own deadline
// expired, and recs, the failure records it logged: the TIMEOUT text
// without the canary, one TIMEOUT record at error level with a ref, and,
// when there is an envelope, which wantEnvelope requires, TIMEOUT with that
// ref. The tool has no annotations: it may have done its work, so the
// outcome is unknown and the call not retryable.
func CheckTimeout(t *testing.T, r Result, recs []map[string]any, wantEnvelope bool) {
	t.Helper()
	if r.ProtocolErr != nil || !r.IsError || strings.Contains(string(r.Raw), HostileCanary) {
		t.Fatalf("got %v %s, want an isError result without the canary", r.ProtocolErr, r.Raw)
	}
	if len(recs) != 1 || recs[0]["code"] != string(codes.Timeout) || recs[0]["level"] != "ERROR" {
		t.Fatalf("records %v, want one TIMEOUT record at error level", recs)
	}
	ref, _ := recs[0]["ref"].(string)
	if !timeoutRefRE.MatchString(ref) {
		t.Errorf("record ref %q, want 16 hex digits", ref)
	}
	// Without an envelope (go-sdk's Wrap alone on a typed tool), the SDK
	// sends the message alone.
	want := []string{"The tool did not finish in time, and may have done its work before it stopped (ref: " + ref + ")."}
	env := r.Envelope()
	if env != nil {
		want = append(want, "Code: TIMEOUT\n"+RetryUnknown)
	}
	if !slices.Equal(r.Texts, want) {
		t.Errorf("texts %q, want %q", r.Texts, want)
	}
	switch {
	case env == nil && wantEnvelope:
		t.Errorf("no envelope: %s", r.Raw)
	case env != nil:
		ValidateEnvelope(t, env)
		if env["code"] != string(codes.Timeout) || env["retryable"] != false || env["outcome"] != "unknown" || env["ref"] != ref {
			t.Errorf("envelope %v, want TIMEOUT, not retryable, outcome unknown, ref %s", env, ref)
		}
	}
}
