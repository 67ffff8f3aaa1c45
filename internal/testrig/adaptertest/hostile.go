package adaptertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	crdb "github.com/cockroachdb/errors"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/toolerr"
)

// HostileCanary is planted in every error text and panic value of the
// hostile and load tests; no byte a client receives may hold it.
const HostileCanary = "hunter2-CANARY-hostile"

// HostileCallTimeout bounds every client call of the hostile tests, so that
// a call left unanswered fails its test instead of hanging the suite.
const HostileCallTimeout = 5 * time.Second

// NoAnswerWait is how long a test waits for the answer to a call that must
// go unanswered (HostileWant.NoAnswer) before it takes the silence for
// what it is.
const NoAnswerWait = 500 * time.Millisecond

// ErrNoAnswer is the ProtocolErr of a Result that CallOrNoAnswer returns
// for a call that got no answer.
var ErrNoAnswer = errors.New("adaptertest: the call got no answer")

// CallOrNoAnswer runs call on a goroutine of its own, with a context that
// expires after wait, and returns what it returned. When call has not
// returned by then, or ends its goroutine without returning (a
// runtime.Goexit in a handler that runs on the caller's goroutine, as with
// mcp-go's in-process client), it returns a Result whose ProtocolErr is
// ErrNoAnswer. A call that returns an error once its context has expired
// got no answer either.
func CallOrNoAnswer(wait time.Duration, call func(ctx context.Context) Result) Result {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	answer := make(chan Result, 1)
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		answer <- call(ctx)
	}()
	select {
	case <-ended:
		select {
		case r := <-answer:
			if r.ProtocolErr != nil && ctx.Err() != nil {
				return Result{ProtocolErr: fmt.Errorf("%w within %v: %w", ErrNoAnswer, wait, r.ProtocolErr)}
			}
			return r
		default:
			return Result{ProtocolErr: fmt.Errorf("%w: the calling goroutine ended", ErrNoAnswer)}
		}
	case <-ctx.Done():
		return Result{ProtocolErr: fmt.Errorf("%w within %v", ErrNoAnswer, wait)}
	}
}

// Unanswered reports whether r stands for a call that got no answer: a
// ProtocolErr of ErrNoAnswer or of an expired context.
func Unanswered(r Result) bool {
	return errors.Is(r.ProtocolErr, ErrNoAnswer) || errors.Is(r.ProtocolErr, context.DeadlineExceeded)
}

// MaskedTextRE is the one text of a masked error: it captures the tool's
// name and the ref.
var MaskedTextRE = regexp.MustCompile(`^Internal error in tool "([^"]*)" \(ref: ([0-9a-f]{16})\)\.$`)

// DerefError's Error dereferences its receiver: a typed nil of it panics.
type DerefError struct{ msg string }

// Error returns the message, and panics on a nil receiver.
func (e *DerefError) Error() string { return e.msg }

// FlakyError's Error panics the first time it is called, then works.
type FlakyError struct {
	mu    sync.Mutex
	calls int
}

// Error panics with the canary on its first call and returns it after.
func (e *FlakyError) Error() string {
	e.mu.Lock()
	e.calls++
	n := e.calls
	e.mu.Unlock()
	if n == 1 {
		panic("Error() panicked: " + HostileCanary)
	}
	return "flaky: " + HostileCanary
}

// SelfError unwraps to itself.
type SelfError struct{}

// Error returns a text with the canary.
func (e *SelfError) Error() string { return "self: " + HostileCanary }

// Unwrap returns e itself.
func (e *SelfError) Unwrap() error { return e }

// PairError is one of two errors that unwrap to each other; see NewPair.
type PairError struct {
	name  string
	other *PairError
}

// Error returns a text with the canary.
func (e *PairError) Error() string { return "pair " + e.name + ": " + HostileCanary }

// Unwrap returns the other error of the pair.
func (e *PairError) Unwrap() error { return e.other }

// JoinSelfError's Unwrap() []error holds itself.
type JoinSelfError struct{}

// Error returns a text with the canary.
func (e *JoinSelfError) Error() string { return "join self: " + HostileCanary }

// Unwrap returns e itself, as the only error it joins.
func (e *JoinSelfError) Unwrap() []error { return []error{e} }

// LayerError is one layer of a long chain; see LongChain.
type LayerError struct{ next error }

// Error returns the text of the layers below, prefixed.
func (e *LayerError) Error() string { return "layer: " + e.next.Error() }

// Unwrap returns the layer below.
func (e *LayerError) Unwrap() error { return e.next }

// HintedError is a third-party error that carries a hint meant for its own
// callers, not for a model.
type HintedError struct{}

// Error returns a text with the canary.
func (e *HintedError) Error() string { return "driver: " + HostileCanary }

// ErrorHint returns a hint with the canary, which must not reach a client.
func (e *HintedError) ErrorHint() string { return "secret driver hint: " + HostileCanary }

// NewPair returns one of two errors that unwrap to each other.
func NewPair() error {
	a, b := &PairError{name: "a"}, &PairError{name: "b"}
	a.other, b.other = b, a
	return a
}

// LongChain returns a chain of n wrappers around a plain error.
func LongChain(n int) error {
	var err error = errors.New("bottom: " + HostileCanary)
	for range n {
		err = &LayerError{next: err}
	}
	return err
}

// BrokenHandler is a slog.Handler that fails every record it is handed,
// after keeping its text: it panics, returns an error or ends its
// goroutine, as Mode says.
type BrokenHandler struct {
	Mode string // "panic", "error" or "goexit"
	mu   sync.Mutex
	seen []string
}

// Enabled reports true for every level.
func (h *BrokenHandler) Enabled(context.Context, slog.Level) bool { return true }

// WithAttrs returns h itself.
func (h *BrokenHandler) WithAttrs([]slog.Attr) slog.Handler { return h }

// WithGroup returns h itself.
func (h *BrokenHandler) WithGroup(string) slog.Handler { return h }

// Handle keeps the record's message and attributes as one text, then fails
// as h.Mode says.
func (h *BrokenHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	h.mu.Lock()
	h.seen = append(h.seen, b.String())
	h.mu.Unlock()
	switch h.Mode {
	case "panic":
		panic("log handler broke: " + HostileCanary)
	case "goexit":
		runtime.Goexit()
	}
	return errors.New("log handler failed: " + HostileCanary)
}

// Handed returns the texts of the records h was handed.
func (h *BrokenHandler) Handed() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.seen...)
}

// Reports is a reporter: a filter.Observer (its method Report) that looks
// at server failures only, those with a ref, as an error tracker does. It
// records the ref of each, then runs Inner, if set. Give it to a pipeline
// with filter.WithObserver(r.Report).
type Reports struct {
	mu    sync.Mutex
	refs  []string
	Inner func(filter.Failure)
}

// Report records the ref of f, a server failure, and runs r.Inner; it
// ignores a failure without a ref.
func (r *Reports) Report(_ context.Context, f filter.Failure) {
	if f.Envelope.Ref == "" {
		return
	}
	r.mu.Lock()
	r.refs = append(r.refs, f.Envelope.Ref)
	r.mu.Unlock()
	if r.Inner != nil {
		r.Inner(f)
	}
}

// Got returns the refs reported so far, in order.
func (r *Reports) Got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.refs...)
}

// StderrCapture holds what the pipeline's last-resort handler, which writes
// to standard error, wrote during a test: File is where standard error
// went.
type StderrCapture struct{ File *os.File }

// CaptureStderr points os.Stderr at a file until the test ends. A pipeline
// built meanwhile writes its last-resort records there.
func CaptureStderr(t *testing.T) *StderrCapture {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stderr
	os.Stderr = f
	t.Cleanup(func() {
		os.Stderr = old
		f.Close()
	})
	return &StderrCapture{File: f}
}

// Lines returns the non-empty lines written so far; none for a nil c.
func (c *StderrCapture) Lines(t *testing.T) []string {
	t.Helper()
	if c == nil {
		return nil
	}
	b, err := os.ReadFile(c.File.Name())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// HostileBehaviour is what a hostile tool does: return an error, or panic,
// or end its goroutine. A nil HostileBehaviour succeeds.
type HostileBehaviour func(ctx context.Context) error

// Fails returns a HostileBehaviour that returns err.
func Fails(err error) HostileBehaviour { return func(context.Context) error { return err } }

// PanicsWith returns a HostileBehaviour that panics with v.
func PanicsWith(v any) HostileBehaviour { return func(context.Context) error { panic(v) } }

// goexits is a HostileBehaviour that calls runtime.Goexit.
func goexits(context.Context) error { runtime.Goexit(); return nil }

// HostileWant is what the client must read for a failing call.
type HostileWant struct {
	// NoAnswer means the call must go unanswered (a runtime.Goexit), with
	// one record of it at error level with a ref; the other fields but
	// LogHas are then ignored. Make such a call with CallOrNoAnswer, or
	// with a context that expires after NoAnswerWait.
	NoAnswer bool
	// Text is the exact first text block; empty means the masked text of
	// tool "x" with a ref.
	Text string
	// Code is the envelope's code, INTERNAL_ERROR when empty.
	Code codes.Code
	// Hints are the exact Hint lines of the block after the message, each
	// "Hint: ...".
	Hints []string
	// Bounded asks only that the text be at most MaxMessage bytes long and
	// the hints at most MaxHints of MaxHint bytes, instead of exact texts.
	Bounded bool
	// LogHas are strings the failure's one record must hold.
	LogHas []string
}

// HostileCase is one hostile failure.
type HostileCase struct {
	Name string
	Do   HostileBehaviour
	// Filters are global on an installed server, the tool's own for Wrap.
	Filters []filter.Filter
	// Report runs inside the reporter (see Reports) of an installed
	// server, for each server failure.
	Report func(filter.Failure)
	// Options are more options of an installed server's pipeline, such as
	// a Renderer or an Observer.
	Options []filter.Option
	// LogMode breaks the logger: "panic", "error" or "goexit".
	LogMode string
	// LastResort means the failure's record goes to the pipeline's
	// last-resort handler, on standard error: a runtime.Goexit in a filter,
	// an observer or the renderer. See CapturesStderr.
	LastResort bool
	Want       HostileWant
	// SkipFor maps entry names to why the case does not apply there.
	SkipFor map[string]string
}

// CapturesStderr reports whether the test of c must capture standard error
// (CaptureStderr) before it builds a pipeline, to see the failure's record:
// the logger is broken, or the record goes to the last resort.
func (c HostileCase) CapturesStderr() bool { return c.LogMode != "" || c.LastResort }

// TypedNilFilter transforms every error into a typed nil whose Error
// panics.
var TypedNilFilter = filter.Catch(func(context.Context, filter.Call, error) (*filter.Response, error) {
	var e *DerefError
	return nil, e
})

// PanickingFilter panics on every error.
var PanickingFilter = filter.Catch(func(context.Context, filter.Call, error) (*filter.Response, error) {
	panic("filter broke: " + HostileCanary)
})

// GoexitFilter ends its goroutine on every error.
var GoexitFilter = filter.Catch(func(context.Context, filter.Call, error) (*filter.Response, error) {
	runtime.Goexit()
	return nil, nil
})

// WrapWithoutInstall is the name every adapter gives the entry point of a
// tool wrapped with Wrap on a server without Install: the one the cases'
// SkipFor name.
const WrapWithoutInstall = "Wrap without Install"

const noReporter = "the default configuration of a tool wrapped without Install has no observer to report with"

const noOptions = "the default configuration of a tool wrapped without Install has no renderer or observer of its own"

// HostileCases are the failures every entry point must answer.
func HostileCases() []HostileCase {
	plain := Fails(errors.New("db down: " + HostileCanary))
	var typedNil *DerefError
	return []HostileCase{
		{Name: "plain error", Do: plain},
		{Name: "typed nil whose Error panics", Do: Fails(typedNil)},
		// Its code and message are fixed, so its methods do not panic: it is
		// still a nil pointer, no answer the server meant.
		{Name: "typed nil domain.Authorization", Do: Fails((*domain.Authorization)(nil))},
		{Name: "Error panics once then works", Do: func(context.Context) error { return &FlakyError{} }},
		{Name: "chain cyclic through Unwrap() error on itself", Do: Fails(&SelfError{}), Want: HostileWant{LogHas: []string{"*adaptertest.SelfError"}}},
		{Name: "chain cyclic through two errors", Do: Fails(NewPair()), Want: HostileWant{LogHas: []string{"*adaptertest.PairError"}}},
		{Name: "chain cyclic through Unwrap() []error", Do: Fails(&JoinSelfError{}), Want: HostileWant{LogHas: []string{"*adaptertest.JoinSelfError"}}},
		{Name: "chain longer than MaxChain", Do: Fails(LongChain(MaxChain + 5)), Want: HostileWant{LogHas: []string{"*adaptertest.LayerError"}}},
		{Name: "panic", Do: PanicsWith("nil map write: " + HostileCanary), Want: HostileWant{LogHas: []string{"nil map write", "goroutine"}}},
		{Name: "panic with nil", Do: PanicsWith(nil), Want: HostileWant{LogHas: []string{"panic called with nil argument"}}},
		HostileHTTPCases()[0],
		HostileHTTPCases()[1],
		{Name: "filter panics", Do: plain, Filters: []filter.Filter{PanickingFilter}},
		{Name: "filter turns the error into a typed nil whose Error panics", Do: plain, Filters: []filter.Filter{TypedNilFilter}},
		// A runtime.Goexit in the pipeline ends the goroutine that serves the
		// call: the call goes unanswered, its one record is written by the
		// last resort, and the server goes on.
		{Name: "filter calls runtime.Goexit", Do: plain, Filters: []filter.Filter{GoexitFilter}, LastResort: true, Want: exited},
		{Name: "reporter panics", Do: plain, Report: func(filter.Failure) { panic("reporter broke: " + HostileCanary) },
			SkipFor: map[string]string{WrapWithoutInstall: noReporter}},
		{Name: "reporter calls runtime.Goexit", Do: plain, Report: func(filter.Failure) { runtime.Goexit() }, LastResort: true, Want: exited,
			SkipFor: map[string]string{WrapWithoutInstall: noReporter}},
		{Name: "renderer panics", Do: plain, Options: []filter.Option{filter.WithRenderer(func(filter.Envelope) []string {
			panic("renderer broke: " + HostileCanary)
		})}, SkipFor: map[string]string{WrapWithoutInstall: noOptions}},
		{Name: "renderer calls runtime.Goexit", Do: plain, Options: []filter.Option{filter.WithRenderer(func(filter.Envelope) []string {
			runtime.Goexit()
			return nil
		})}, LastResort: true, Want: exited, SkipFor: map[string]string{WrapWithoutInstall: noOptions}},
		{Name: "observer panics", Do: plain, Options: []filter.Option{filter.WithObserver(func(context.Context, filter.Failure) {
			panic("observer broke: " + HostileCanary)
		})}, SkipFor: map[string]string{WrapWithoutInstall: noOptions}},
		{Name: "observer calls runtime.Goexit", Do: plain, Options: []filter.Option{filter.WithObserver(func(context.Context, filter.Failure) {
			runtime.Goexit()
		})}, LastResort: true, Want: exited, SkipFor: map[string]string{WrapWithoutInstall: noOptions}},
		{Name: "log handler panics", Do: plain, LogMode: "panic"},
		{Name: "log handler returns an error", Do: plain, LogMode: "error"},
		{Name: "log handler calls runtime.Goexit", Do: plain, LogMode: "goexit", Want: exited},
		{Name: "issue link is not a hint", Do: Fails(crdb.WithIssueLink(errors.New("unsupported: "+HostileCanary),
			crdb.IssueLink{IssueURL: "https://example.invalid/" + HostileCanary, Detail: "detail " + HostileCanary}))},
		{Name: "third-party ErrorHint deep in the chain", Do: Fails(fmt.Errorf("query: %w", &HintedError{}))},
		{Name: "hint below a ToolError's cause", Do: Fails(toolerr.New("The order service failed.").
			WithCause(crdb.WithHint(errors.New("cause: "+HostileCanary), "secret hint: "+HostileCanary))),
			Want: HostileWant{Text: "The order service failed.", Code: codes.ToolFailed}},
		// A masked error has no hints at all.
		{Name: "hint at the top of a masked error does not reach the model", Do: Fails(crdb.WithHint(errors.New("db: "+HostileCanary), "Retry later."))},
		{Name: "oversized message and hints", Do: func(context.Context) error {
			e := toolerr.New(strings.Repeat("m", 3*MaxMessage)).WithHint(strings.Repeat("h", 4*MaxHint))
			return crdb.WithHint(crdb.WithHint(e, strings.Repeat("i", 2*MaxHint)), strings.Repeat("j", 2*MaxHint))
		}, Want: HostileWant{Code: codes.ToolFailed, Bounded: true}},
	}
}

// exited is what a call whose goroutine a runtime.Goexit ended must give:
// no answer, one record at error level with a ref.
var exited = HostileWant{NoAnswer: true}

// HostileHTTPCases are the failures that net/http treats specially:
// panic(http.ErrAbortHandler), which must get a masked answer, not a
// dropped connection; and runtime.Goexit in the handler, which leaves the
// call unanswered, as net/http does, logged once with a ref, the server
// serving on.
func HostileHTTPCases() []HostileCase {
	return []HostileCase{
		{Name: "panic with http.ErrAbortHandler", Do: PanicsWith(http.ErrAbortHandler),
			Want: HostileWant{LogHas: []string{http.ErrAbortHandler.Error()}}},
		{Name: "runtime.Goexit", Do: goexits,
			Want: HostileWant{NoAnswer: true, LogHas: []string{"the handler called runtime.Goexit"}}},
	}
}

// HostileRun is what one hostile call gave.
type HostileRun struct {
	R        Result
	Records  []map[string]any // the logger's records
	Handed   []string         // records handed to a broken log handler
	Fallback []string         // the last-resort handler's lines
	Reports  []string         // refs handed to the reporter (Reports.Got)
	// WantEnvelope means the result must carry the envelope; without it,
	// an envelope, if any, is still checked.
	WantEnvelope bool
}

// CheckHostile checks what one failing call of tool gave against want: one
// isError result without the canary, within the bounds of a message and
// its hints, with the texts, envelope and ref want says, logged once and
// reported at most once. With want.NoAnswer: no answer (see Unanswered),
// and one record at error level with a ref, reported at most once.
func CheckHostile(t *testing.T, tool string, want HostileWant, run HostileRun) {
	t.Helper()
	r := run.R
	if want.NoAnswer {
		if !Unanswered(r) {
			t.Errorf("want no answer, got %v %s", r.ProtocolErr, r.Raw)
		}
		checkOneRecord(t, run, "", want.LogHas, true)
		return
	}
	if r.ProtocolErr != nil {
		t.Fatalf("want one isError result, got a protocol error or no answer: %v", r.ProtocolErr)
	}
	if strings.Contains(string(r.Raw), HostileCanary) {
		t.Errorf("the canary reached the client: %s", r.Raw)
	}
	if !r.IsError || len(r.Texts) == 0 {
		t.Fatalf("want an isError result with text, got %s", r.Raw)
	}
	if len(r.Texts[0]) > MaxMessage {
		t.Errorf("message of %d bytes, more than MaxMessage", len(r.Texts[0]))
	}
	code := want.Code
	if code == "" {
		code = codes.InternalError
	}
	rest := ""
	switch {
	case len(r.Texts) > 2:
		t.Errorf("%d text blocks, want the message and at most one block of facts: %q", len(r.Texts), r.Texts)
	case len(r.Texts) == 2:
		rest = r.Texts[1]
		if !strings.HasPrefix(rest, "Code: "+string(code)+"\n") {
			t.Errorf("block of facts %.60q..., want it to start with the code %s", rest, code)
		}
	}
	hints := HintLines(rest)
	if len(hints) > MaxHints {
		t.Errorf("%d hints, more than MaxHints", len(hints))
	}
	for _, h := range hints {
		if len(h) > len("Hint: ")+MaxHint {
			t.Errorf("hint %.40q... of %d bytes: want at most MaxHint bytes", h, len(h))
		}
	}
	ref := ""
	switch {
	case want.Bounded:
	case want.Text == "":
		m := MaskedTextRE.FindStringSubmatch(r.Texts[0])
		if m == nil || m[1] != tool {
			t.Fatalf("text %q, want the masked text of tool %q with a ref", r.Texts[0], tool)
		}
		ref = m[2]
	case r.Texts[0] != want.Text:
		t.Errorf("text %q, want %q", r.Texts[0], want.Text)
	}
	if !want.Bounded && !slices.Equal(hints, want.Hints) {
		t.Errorf("hints %q, want %q", hints, want.Hints)
	}
	env := r.Envelope()
	switch {
	case env == nil && run.WantEnvelope:
		t.Errorf("no envelope in _meta[%q]: %s", filter.MetaKey, r.Raw)
	case env != nil:
		ValidateEnvelope(t, env)
		if env["error"] != true || env["code"] != string(code) || env["message"] != r.Texts[0] {
			t.Errorf("envelope %v, want code %s and the text as message", env, code)
		}
		if ref != "" && env["ref"] != ref {
			t.Errorf("envelope ref %v, text ref %q", env["ref"], ref)
		}
		if ref == "" { // a server failure in words of the tool's own
			ref, _ = env["ref"].(string)
		}
	}
	checkOneRecord(t, run, ref, want.LogHas, false)
}

// fallbackRefRE finds the ref and the level of a record of the last-resort
// handler, a text handler.
var (
	fallbackRefRE   = regexp.MustCompile(`(?:^| )ref=([0-9a-f]{16})(?: |$)`)
	fallbackLevelRE = regexp.MustCompile(`(?:^| )level=([A-Z]+)(?: |$)`)
)

// checkOneRecord checks that the failure was logged once: one "tool call
// failed" record, in the logger or, if the logger failed, in the
// last-resort handler, holding ref when there is one; and that the reporter
// was called at most once, with ref. With findRef, ref is not known from
// an answer: the record must be at error level with a ref, which must be
// in no other record.
func checkOneRecord(t *testing.T, run HostileRun, ref string, logHas []string, findRef bool) {
	t.Helper()
	failed := 0
	var text string // the failure's record
	for _, rec := range run.Records {
		if rec["msg"] == "tool call failed" {
			b, _ := json.Marshal(rec)
			failed++
			text = string(b)
			if findRef {
				ref, _ = rec["ref"].(string)
				if rec["level"] != "ERROR" {
					t.Errorf("the failure was logged at %v, want ERROR: %s", rec["level"], b)
				}
			}
		}
	}
	for _, l := range run.Fallback {
		if strings.Contains(l, `msg="tool call failed"`) {
			failed++
			text = l
			if findRef {
				ref = ""
				if m := fallbackRefRE.FindStringSubmatch(l); m != nil {
					ref = m[1]
				}
				if m := fallbackLevelRE.FindStringSubmatch(l); m == nil || m[1] != "ERROR" {
					t.Errorf("the failure was logged below ERROR: %s", l)
				}
			}
		}
	}
	if failed != 1 {
		t.Errorf("%d records of the failure, want 1: log %v, last resort %q", failed, run.Records, run.Fallback)
	}
	if findRef && failed == 1 && !timeoutRefRE.MatchString(ref) {
		t.Errorf("the failure's record has ref %q, want 16 hex digits: %s", ref, text)
	}
	withRef := 0
	if ref != "" {
		for _, rec := range run.Records {
			if b, _ := json.Marshal(rec); strings.Contains(string(b), ref) {
				withRef++
			}
		}
		for _, l := range run.Fallback {
			if strings.Contains(l, ref) {
				withRef++
			}
		}
	}
	if ref != "" && withRef != 1 {
		t.Errorf("ref %s is in %d records, want 1: log %v, last resort %q", ref, withRef, run.Records, run.Fallback)
	}
	for _, s := range logHas {
		if !strings.Contains(text, s) {
			t.Errorf("the failure's record lacks %q: %.3000s", s, text)
		}
	}
	if run.Handed != nil {
		n := 0
		for _, h := range run.Handed {
			if strings.Contains(h, ref) && strings.HasPrefix(h, "tool call failed") {
				n++
			}
		}
		if n != 1 {
			t.Errorf("the broken log handler was handed the failure %d times, want once: %q", n, run.Handed)
		}
	}
	if len(run.Reports) > 1 || len(run.Reports) == 1 && run.Reports[0] != ref {
		t.Errorf("reporter called with %q, want at most once with the failure's ref %q", run.Reports, ref)
	}
}

// CheckServing checks that r, the answer to a call of tool "ok" after a
// failure, is its one successful text: the server still serves.
func CheckServing(t *testing.T, r Result) {
	t.Helper()
	if r.ProtocolErr != nil || r.IsError || len(r.Texts) != 1 || r.Texts[0] != "all good" {
		t.Errorf("the server stopped serving: the next call got %v %s", r.ProtocolErr, r.Raw)
	}
}

// HintLines returns the "Hint: ..." lines of a block of facts that
// filter.RenderForModel made.
func HintLines(block string) []string {
	var out []string
	for _, line := range strings.Split(block, "\n") {
		if strings.HasPrefix(line, "Hint: ") {
			out = append(out, line)
		}
	}
	return out
}
