package filter

import (
	"github.com/google/uuid"

	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/internal/errgen"
)

// FuzzHandle throws generated errors, filters, reporters, log handlers and
// ref generators at Pipeline.Handle and checks what the pipeline promises:
// it returns, in bounded time, one well-formed Response with a registered
// code; a masked one reads exactly the masked message with a ref that names
// exactly one log record; nothing private reaches the client; exactly one
// "tool call failed" record is written; every logged value is bounded.
//
// The input is decoded by errgen: first the pipeline's configuration, then
// the error, then the tool's and the global filters, then the call.
//
//	go test -run='^$' -fuzz='^FuzzHandle$' -fuzztime=2m ./filter
func FuzzHandle(f *testing.F) {
	for _, seed := range fzSeeds() {
		f.Add(seed)
	}
	f.Fuzz(fzHandleOnce)
}

// TestFuzzHandleSeedsCoverEveryOperation checks that the seeds of FuzzHandle
// use every operation of the generator and every kind of filter.
func TestFuzzHandleSeedsCoverEveryOperation(t *testing.T) {
	used := map[string]bool{}
	for _, seed := range fzSeeds() {
		c := fzDecode(seed)
		for op := range c.gen.Used {
			used[op] = true
		}
	}
	for kind, n := range map[string]int{"leaf": errgen.NumLeaves, "wrap": errgen.NumWraps, "hostile": errgen.NumHostile, "filter": fzNumFilters} {
		for i := range n {
			if !used[fmt.Sprint(kind, "/", i)] {
				t.Errorf("no seed uses %s/%d", kind, i)
			}
		}
	}
}

// fzTimeout bounds one call of Handle: far more than any call needs, so
// that only a hang trips it.
const fzTimeout = 10 * time.Second

// fzLogSlack is how much longer than MaxLogValue a logged value may be: a
// short prefix, such as "a method of the error panicked: ", before a
// bounded text.
const fzLogSlack = 100

// Log handler modes.
const (
	fzLogOK            = iota
	fzLogPanics        // Handle panics
	fzLogFails         // Handle returns an error
	fzLogEnabledPanics // Enabled panics
	fzLogWarnPanics    // Handle panics on WARN records only
	fzLogErrorFails    // Handle fails on ERROR records only
	fzLogModes
)

// Reporter modes.
const (
	fzReportNone = iota
	fzReportOK
	fzReportPanics      // panics with the canary
	fzReportPanicsBadly // panics with a value whose Error panics
	fzReportModes
)

// Ref generator modes.
const (
	fzRefDefault   = iota
	fzRefCustom    // valid and unique
	fzRefEmpty     // ""
	fzRefSame      // "same", valid, every time
	fzRefMalformed // "has space\n"
	fzRefPanics
	fzRefTooLong // 65 bytes
	fzRefCanary  // malformed, and private
	fzRefModes
)

// Filter kinds.
const (
	fzFilterPass      = iota
	fzFilterTransform // returns a generated error
	fzFilterRespond   // answers with a Response, its Ref "forged"
	fzFilterPanic
	fzFilterTypedNil // returns a typed nil error
	fzFilterCatch    // filter.Catch of *domain.NotFound
	fzFilterInspect  // calls Error, errors.Is and errors.As, passes
	fzFilterRewrap   // wraps the error with fmt.Errorf
	fzNumFilters
)

// Renderer modes.
const (
	fzRenderDefault = iota
	fzRenderMessage // RenderMessageOnly
	fzRenderCustom  // two fixed blocks
	fzRenderPanics  // panics with the canary
	fzRenderNothing // returns no block
	fzRenderTooMuch // 40 blocks of more than MaxMessage
	fzRenderWrites  // writes the canary into the Response it gets
	fzRenderModes
)

// Observer modes.
const (
	fzObserveNone   = iota
	fzObserveOK     // records what it is told
	fzObservePanics // panics with the canary
	fzObserveWrites // writes the canary into the Response it gets
	fzObserveModes
)

// fzCase is one decoded input.
type fzCase struct {
	gen                   *errgen.Gen
	redact, registry      bool
	reporter, log, refGen int
	render, observe       int
	err                   error
	toolFilters, global   []Filter
	call                  Call
}

// fzDecode reads the configuration, the error, the filters and the call.
func fzDecode(data []byte) *fzCase {
	src := errgen.NewSource(data)
	panicked := func(v any) error { return &PanicError{Value: v, Stack: debug.Stack()} }
	c := &fzCase{gen: errgen.New(src, errgen.Config{Panic: panicked, ChainLimit: MaxChain})}
	c.redact = src.Op(2) == 1
	c.reporter = src.Op(fzReportModes)
	c.registry = src.Op(2) == 1
	c.log = src.Op(fzLogModes)
	c.refGen = src.Op(fzRefModes)
	c.err = c.gen.Error()
	c.toolFilters = fzFilters(c.gen)
	c.global = fzFilters(c.gen)
	c.call = Call{Tool: src.Text(80), RequestID: src.Text(20), SessionID: src.Text(20)}
	// Read last, so that inputs made before they existed keep their
	// meaning: an exhausted source reads as the first mode.
	c.render = src.Op(fzRenderModes)
	c.observe = src.Op(fzObserveModes)
	if src.Op(2) == 1 {
		// A tool name longer than a log value may be.
		c.call.Tool = strings.Repeat(c.call.Tool+"t", (MaxLogValue+MaxLogValue/2)/(len(c.call.Tool)+1))
	}
	return c
}

func fzMark(g *errgen.Gen, kind string, i int) int {
	if g.Used == nil {
		g.Used = map[string]bool{}
	}
	g.Used[fmt.Sprint(kind, "/", i)] = true
	return i
}

func fzFilters(g *errgen.Gen) []Filter {
	n := g.Source().Op(4)
	fs := make([]Filter, 0, n)
	for range n {
		fs = append(fs, fzFilter(g))
	}
	return fs
}

func fzFilter(g *errgen.Gen) Filter {
	src := g.Source()
	switch fzMark(g, "filter", src.Op(fzNumFilters)) {
	case fzFilterTransform:
		next := g.Error()
		return Func(func(context.Context, Call, error) (*Response, error) { return nil, next })
	case fzFilterRespond:
		resp := &Response{Code: g.ResponseCode(), Message: fzMessage(g), Details: g.Details(), Ref: "forged", RequestID: "forged"}
		for range src.Op(12) {
			resp.Hints = append(resp.Hints, fzHint(g))
		}
		if src.Op(2) == 1 {
			retry := src.Bool()
			resp.Retryable = &retry
		}
		return Func(func(context.Context, Call, error) (*Response, error) { return resp, nil })
	case fzFilterPanic:
		v := g.PanicValue()
		return Func(func(context.Context, Call, error) (*Response, error) { panic(v) })
	case fzFilterTypedNil:
		var next error = (*fzPanicky)(nil)
		if src.Op(2) == 1 {
			next = (*domain.NotFound)(nil)
		}
		return Func(func(context.Context, Call, error) (*Response, error) { return nil, next })
	case fzFilterCatch:
		return Catch(func(_ context.Context, _ Call, e *domain.NotFound) (*Response, error) {
			return &Response{Code: codes.NotFound, Message: "No such " + e.Resource + "."}, nil
		})
	case fzFilterInspect:
		return Func(func(_ context.Context, _ Call, err error) (*Response, error) {
			_ = err.Error()
			var pe *PanicError
			_ = errors.Is(err, context.Canceled) || errors.As(err, &pe)
			return nil, nil
		})
	case fzFilterRewrap:
		return Func(func(_ context.Context, _ Call, err error) (*Response, error) {
			return nil, fmt.Errorf("filter %s: %w", errgen.Canary, err)
		})
	}
	return Func(func(context.Context, Call, error) (*Response, error) { return nil, nil })
}

// fzMessage reads the public message of a filter's Response: any text,
// empty, or about MaxMessage long, in bytes of one or two.
func fzMessage(g *errgen.Gen) string {
	switch g.Source().Op(4) {
	case 1:
		return ""
	case 2:
		return strings.Repeat("m", MaxMessage+g.Source().Intn(3)-1)
	case 3:
		return strings.Repeat("é", MaxMessage/2+g.Source().Intn(3)-1)
	}
	return g.Public(80)
}

// fzHint reads a public hint of a filter's Response.
func fzHint(g *errgen.Gen) string {
	switch g.Source().Op(3) {
	case 1:
		return ""
	case 2:
		return strings.Repeat("é", MaxHint/2+g.Source().Intn(3)-1)
	}
	return g.Public(60)
}

// fzPanicky is an error whose Error panics, even on a nil receiver.
type fzPanicky struct{}

func (*fzPanicky) Error() string { panic("Error() of " + errgen.Canary) }

// fzHandler is a log handler that fails as its mode says.
type fzHandler struct {
	next slog.Handler
	mode int
}

func (h fzHandler) Enabled(context.Context, slog.Level) bool {
	if h.mode == fzLogEnabledPanics {
		panic("Enabled " + errgen.Canary)
	}
	return true
}

func (h fzHandler) Handle(ctx context.Context, r slog.Record) error {
	switch {
	case h.mode == fzLogPanics, h.mode == fzLogWarnPanics && r.Level == slog.LevelWarn:
		panic("Handle " + errgen.Canary)
	case h.mode == fzLogFails, h.mode == fzLogErrorFails && r.Level == slog.LevelError:
		return errors.New("disk full " + errgen.Canary)
	}
	return h.next.Handle(ctx, r)
}

func (h fzHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return fzHandler{h.next.WithAttrs(as), h.mode}
}

func (h fzHandler) WithGroup(name string) slog.Handler {
	return fzHandler{h.next.WithGroup(name), h.mode}
}

// fzReporter records its incidents and fails as its mode says.
type fzReporter struct {
	mode      int
	incidents []Incident
}

func (r *fzReporter) Report(_ context.Context, in Incident) {
	r.incidents = append(r.incidents, in)
	switch r.mode {
	case fzReportPanics:
		panic("reporter " + errgen.Canary)
	case fzReportPanicsBadly:
		panic(&fzPanicky{})
	}
}

func fzRefGenerator(mode int) func() string {
	switch mode {
	case fzRefCustom:
		return func() string { return "custom-" + rand.Text() }
	case fzRefEmpty:
		return func() string { return "" }
	case fzRefSame:
		return func() string { return "same" }
	case fzRefMalformed:
		return func() string { return "has space\n" }
	case fzRefPanics:
		return func() string { panic("ref generator " + errgen.Canary) }
	case fzRefTooLong:
		return func() string { return strings.Repeat("r", 65) }
	case fzRefCanary:
		return func() string { return "ref-" + errgen.Canary }
	}
	return nil
}

// fzHandleOnce runs one input.
func fzHandleOnce(t *testing.T, data []byte) {
	fzRun(t, fzDecode(data))
}

// TestFuzzHandleRenderersAndObservers runs every seed of FuzzHandle with
// every renderer and observer mode, so that each is exercised on every run
// of the tests, not only when fuzzing finds it.
func TestFuzzHandleRenderersAndObservers(t *testing.T) {
	for _, seed := range fzSeeds() {
		for render := range fzRenderModes {
			for observe := range fzObserveModes {
				c := fzDecode(seed)
				c.render, c.observe = render, observe
				fzRun(t, c)
			}
		}
	}
}

// fzRun runs one decoded input and checks every invariant.
func fzRun(t *testing.T, c *fzCase) {
	var logs, last bytes.Buffer
	all := &slog.HandlerOptions{Level: slog.LevelDebug}
	opts := []Option{
		WithLogger(slog.New(fzHandler{slog.NewJSONHandler(&logs, all), c.log})),
		WithRedaction(c.redact),
		WithExposedErrors(false), // exposed errors leak on purpose
	}
	var registry *codes.Registry
	if c.registry {
		registry = errgen.Registry()
		opts = append(opts, WithRegistry(registry))
	}
	if len(c.global) > 0 {
		opts = append(opts, WithFilters(c.global...))
	}
	rep := &fzReporter{mode: c.reporter}
	if c.reporter != fzReportNone {
		opts = append(opts, WithReporter(rep))
	}
	if gen := fzRefGenerator(c.refGen); gen != nil {
		opts = append(opts, WithRefGenerator(gen))
	}
	if fn := fzRenderer(c.render); fn != nil {
		opts = append(opts, WithRenderer(fn))
	}
	obs := &fzObserver{mode: c.observe}
	if c.observe != fzObserveNone {
		opts = append(opts, WithObserver(obs))
	}
	p, err := New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	p.fallback = slog.NewJSONHandler(&last, all)

	var r *Response
	var panicked any
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { panicked = recover() }()
		r = p.Handle(context.Background(), c.call, c.err, c.toolFilters...)
	}()
	select {
	case <-done:
	case <-time.After(fzTimeout):
		t.Fatalf("Handle did not return within %v for %s", fzTimeout, fzDescribe(c))
	}
	if panicked != nil {
		t.Fatalf("Handle panicked with %s for %s", errgen.Cut(fmt.Sprint(panicked)), fzDescribe(c))
	}
	recs, err := errgen.Records(append(logs.Bytes(), last.Bytes()...))
	if err != nil {
		t.Fatal(err)
	}
	fzCheck(t, c, registry, r, rep, recs)
	fzCheckRendering(t, c, r, obs, recs)
}

// fzAsJSON is s as a JSON log record holds it: each invalid UTF-8 byte
// replaced by U+FFFD.
func fzAsJSON(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r)
	}
	return b.String()
}

// fzRenderer returns the Renderer of mode, or nil for the default.
func fzRenderer(mode int) Renderer {
	switch mode {
	case fzRenderMessage:
		return RenderMessageOnly
	case fzRenderCustom:
		return func(r *Response) []string { return []string{r.Message, "[" + string(r.Code) + "]"} }
	case fzRenderPanics:
		return func(*Response) []string { panic("renderer " + errgen.Canary) }
	case fzRenderNothing:
		return func(*Response) []string { return nil }
	case fzRenderTooMuch:
		return func(*Response) []string {
			out := make([]string, 40)
			for i := range out {
				out[i] = strings.Repeat("x", MaxMessage+10)
			}
			return out
		}
	case fzRenderWrites:
		return func(r *Response) []string {
			r.Message, r.Details = errgen.Canary, map[string]any{"k": errgen.Canary}
			return []string{"written"}
		}
	}
	return nil
}

// fzObserver records what it is told and fails as its mode says.
type fzObserver struct {
	mode     int
	failures []Failure
}

func (o *fzObserver) Observe(_ context.Context, f Failure) {
	o.failures = append(o.failures, f)
	switch o.mode {
	case fzObservePanics:
		panic("observer " + errgen.Canary)
	case fzObserveWrites:
		f.Response.Message, f.Response.Code, f.Response.Ref = errgen.Canary, "HACKED", "forged"
	}
}

// fzCheckRendering checks the blocks the model reads and what observers
// were told, whatever the renderer and observers did.
func fzCheckRendering(t *testing.T, c *fzCase, r *Response, obs *fzObserver, recs []errgen.Record) {
	t.Helper()
	if r == nil {
		return
	}
	what := fzDescribe(c)
	texts := r.Texts()
	if len(texts) == 0 || len(texts) > maxBlocks {
		t.Errorf("%d text blocks, want 1 to %d, for %s", len(texts), maxBlocks, what)
	}
	for _, b := range texts {
		if len(b) > MaxMessage+len("…") {
			t.Fatalf("a block of %d bytes, more than MaxMessage, for %s", len(b), what)
		}
	}
	switch c.render {
	case fzRenderDefault, fzRenderPanics, fzRenderNothing:
		if len(texts) != 2 || texts[0] != r.Message || !strings.HasPrefix(texts[1], "Code: "+string(r.Code)+"\n") {
			t.Errorf("texts %q, want the message and the block of RenderForModel, for %s", texts, what)
		}
	case fzRenderMessage:
		if texts[0] != r.Message || len(texts) != 1+len(r.Hints) {
			t.Errorf("texts %q, want the message and one block a hint, for %s", texts, what)
		}
	case fzRenderWrites:
		if r.Message == errgen.Canary || r.Details["k"] == errgen.Canary {
			t.Errorf("the renderer's writes reached the Response, for %s", what)
		}
	}
	if n := len(obs.failures); n > 1 {
		t.Errorf("the observer was told %d times, for %s", n, what)
	}
	if c.observe == fzObserveWrites && (r.Code == "HACKED" || r.Ref == "forged") {
		t.Errorf("the observer's writes reached the Response, for %s", what)
	}
	// An observer learns the error as the record holds it, redacted or
	// not, and nothing more.
	for _, f := range obs.failures {
		for _, rec := range recs {
			if rec.Str("msg") == logMessage && rec.Str("error") != fzAsJSON(f.ErrorText) {
				t.Errorf("the observer was told %q, the record holds %q, for %s", errgen.Cut(f.ErrorText), errgen.Cut(rec.Str("error")), what)
			}
		}
	}
}

// fzDescribe names what a failing input was made of, for the report.
func fzDescribe(c *fzCase) string {
	return fmt.Sprintf("error %T (%d tool and %d global filters, redact=%v, reporter=%d, log=%d, refGen=%d, registry=%v, render=%d, observe=%d, tool of %d bytes)",
		c.err, len(c.toolFilters), len(c.global), c.redact, c.reporter, c.log, c.refGen, c.registry, c.render, c.observe, len(c.call.Tool))
}

// fzCheck checks the invariants of one call.
func fzCheck(t *testing.T, c *fzCase, registry *codes.Registry, r *Response, rep *fzReporter, recs []errgen.Record) {
	t.Helper()
	what := fzDescribe(c)
	if r == nil {
		t.Fatalf("Handle returned nil for %s", what)
	}
	info, known := registry.Lookup(r.Code)
	if !known {
		t.Errorf("code %q is not registered, for %s", errgen.Cut(string(r.Code)), what)
	}
	if r.Message == "" || len(r.Message) > MaxMessage {
		t.Errorf("message of %d bytes, want 1 to %d, for %s", len(r.Message), MaxMessage, what)
	}
	if len(r.Hints) > MaxHints {
		t.Errorf("%d hints, want at most %d, for %s", len(r.Hints), MaxHints, what)
	}
	for _, h := range r.Hints {
		if h == "" || len(h) > MaxHint {
			t.Errorf("a hint of %d bytes, want 1 to %d, for %s", len(h), MaxHint, what)
		}
	}
	if r.Details != nil {
		b, err := json.Marshal(r.Details)
		if err != nil || len(b) > MaxDetails {
			t.Errorf("details of %d bytes of JSON (%v), want at most %d, for %s", len(b), err, MaxDetails, what)
		}
	}
	if r.Retryable == nil {
		t.Errorf("Retryable is nil, for %s", what)
	}
	switch id, err := uuid.Parse(r.RequestID); {
	case r.Timestamp.IsZero():
		t.Errorf("no timestamp, for %s", what)
	case c.call.RequestID != "" && r.RequestID != c.call.RequestID:
		t.Errorf("request id %q, want the call's %q, for %s", r.RequestID, c.call.RequestID, what)
	case c.call.RequestID == "" && (err != nil || id.Version() != 7):
		t.Errorf("request id %q, want a minted UUID v7 for a call without one, for %s", r.RequestID, what)
	}
	server := info.Category == codes.Server
	switch {
	case server && !fzValidRef(r.Ref):
		t.Errorf("the %s error has ref %q, want a valid one, for %s", r.Code, r.Ref, what)
	case !server && r.Ref != "":
		t.Errorf("the %s error has ref %q, want none, for %s", r.Code, r.Ref, what)
	}
	if r.Code == codes.InternalError && !c.gen.PublicInternal {
		want := fmt.Sprintf("Internal error in tool %q (ref: %s).", c.call.Tool, r.Ref)
		if len(want) > MaxMessage && strings.HasSuffix(r.Message, "…") && strings.HasPrefix(want, strings.TrimSuffix(r.Message, "…")) {
			want = r.Message // cut, as it must be
		}
		if r.Message != want {
			t.Errorf("masked message %q, want %q, for %s", errgen.Cut(r.Message), errgen.Cut(want), what)
		}
	}
	client, err := json.Marshal(r)
	if err != nil {
		t.Fatalf("the response cannot be encoded: %v, for %s", err, what)
	}
	seen := string(client) + "\n" + strings.Join(r.Texts(), "\n")
	if errgen.Leaked(seen) {
		i := strings.IndexByte(seen, errgen.Marker)
		t.Errorf("the canary reached the client, at %q, for %s", errgen.Cut(seen[max(0, i-100):]), what)
	}

	// Reporter: at most once, with the ref, for a server error.
	if n := len(rep.incidents); n > 1 {
		t.Errorf("the reporter was called %d times, for %s", n, what)
	} else if n == 1 && (rep.incidents[0].Ref != r.Ref || !server) {
		t.Errorf("the reporter got ref %q for a %s response with ref %q, for %s", rep.incidents[0].Ref, r.Code, r.Ref, what)
	}

	// Records: one "tool call failed", at most one warning of each kind.
	var failed []errgen.Record
	warnCode, warnRef, withRef, mentionRef := 0, 0, 0, 0
	for _, rec := range recs {
		switch msg := rec.Str("msg"); {
		case msg == "tool call failed":
			failed = append(failed, rec)
		case msg == "mcperr: unregistered error code":
			warnCode++
		case strings.HasPrefix(msg, "mcperr: WithRefGenerator"):
			warnRef++
		default:
			t.Errorf("unexpected record %s, for %s", errgen.Cut(rec.Raw), what)
		}
		if r.Ref != "" && rec.Str("ref") == r.Ref {
			withRef++
		}
		if r.Ref != "" && strings.Contains(rec.Raw, r.Ref) {
			mentionRef++
		}
		if n, where := errgen.Longest(rec.Fields); n > MaxLogValue+fzLogSlack {
			t.Errorf("a logged value of %d runes, more than MaxLogValue+%d: %s, in a %q record, for %s", n, fzLogSlack, where, rec.Str("msg"), what)
		}
	}
	if len(failed) != 1 {
		t.Fatalf("%d \"tool call failed\" records, want 1, for %s", len(failed), what)
	}
	if warnCode > 1 || warnRef > 1 {
		t.Errorf("%d warnings of unregistered codes and %d of the ref generator, want at most 1 each, for %s", warnCode, warnRef, what)
	}
	rec := failed[0]
	if rec.Str("ref") != r.Ref || rec.Str("code") != string(r.Code) {
		t.Errorf("the record has ref %q and code %q, the response %q and %q, for %s", rec.Str("ref"), rec.Str("code"), r.Ref, r.Code, what)
	}
	if want := map[bool]string{true: "ERROR", false: "INFO"}[server]; rec.Str("level") != want {
		t.Errorf("the record of a %s response is at level %s, want %s, for %s", r.Code, rec.Str("level"), want, what)
	}
	if r.Ref != "" {
		// A ref from the default or a custom generator is random and long:
		// nothing else can mention it by chance. "same" can.
		if withRef != 1 || len(r.Ref) >= 16 && mentionRef != 1 {
			t.Errorf("ref %s is the ref of %d records and appears in %d, want exactly one, for %s", r.Ref, withRef, mentionRef, what)
		}
	}
}

// fzValidRef reports whether ref is 1 to 64 ASCII letters, digits, '-', '_'
// or '.', as WithRefGenerator documents.
func fzValidRef(ref string) bool {
	if ref == "" || len(ref) > 64 {
		return false
	}
	for _, c := range []byte(ref) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// fzSeed assembles a seed: the configuration (redact, reporter, registry,
// log handler, ref generator), then the rest of the structure, then the
// parameters.
func fzSeed(cfg [5]byte, ops []byte, params ...byte) []byte {
	return errgen.Encode(append(cfg[:], ops...), params)
}

// fzSeeds are the hand-picked inputs: each operation of the generator, each
// kind of filter, each failing log handler, reporter and ref generator.
func fzSeeds() [][]byte {
	var plain [5]byte
	registered := [5]byte{0, fzReportOK, 1, 0, 0}
	seeds := [][]byte{
		fzSeed(plain, []byte{0, errgen.LeafText}, 6, 'd', 'i', 'a', 'l', ' ', 'x', 1),
		fzSeed(plain, []byte{1, errgen.LeafCanceled, errgen.WrapFmt}),
		fzSeed(plain, []byte{1, errgen.LeafDeadline, errgen.WrapHint}, 0, 0, 6, 'R', 'e', 't', 'r', 'y', '.'),
		fzSeed(plain, []byte{0, errgen.LeafPanic, 0}),
		fzSeed(plain, []byte{0, errgen.LeafNotFound, 1}, 5, 'O', 'r', 'd', 'e', 'r', 5, 'o', 'r', 'd', '_', '1'),
		fzSeed(plain, []byte{0, errgen.LeafValidation, 1, 0, 1, 2}),
		fzSeed(plain, []byte{0, errgen.LeafAuthorization}),
		fzSeed(registered, []byte{0, errgen.LeafBusinessRule, 11, 4}),
		fzSeed(plain, []byte{0, errgen.LeafConflict}),
		fzSeed(plain, []byte{1, errgen.LeafUnauthenticated, errgen.WrapJoin, 1, 0, errgen.LeafRateLimited, 1, 0}),
		fzSeed(registered, []byte{0, errgen.LeafToolError, 1, 31, 12, 1}, 0, 0, 3, 'N', 'o', '.'),
		fzSeed(plain, []byte{0, errgen.LeafDeep, 4, 0}),
		fzSeed(plain, []byte{0, errgen.LeafDeep, 2, 1}),
		fzSeed(plain, []byte{0, errgen.LeafHuge, 7}),
		fzSeed(plain, []byte{0, errgen.LeafHuge, 2}),
		fzSeed(plain, []byte{0, errgen.LeafHugePublic, 5}),
		fzSeed(plain, []byte{2, errgen.LeafCockroach, 0, errgen.WrapCrdb, errgen.WrapStack}),
		fzSeed([5]byte{1}, []byte{2, errgen.LeafCockroach, 1, errgen.WrapCrdb, errgen.WrapStack}),
		fzSeed(plain, []byte{1, errgen.LeafText, errgen.WrapFmt2, 0, errgen.LeafNotFound, 0}),
		fzSeed(plain, []byte{2, errgen.LeafText, errgen.WrapIssueLink, errgen.WrapCrdbMisc, 0}),
		fzSeed(plain, []byte{1, errgen.LeafText, errgen.WrapToolError, 1, 14}, 0, 0, 3, 'N', 'o', '.'),
		fzSeed(plain, []byte{1, errgen.LeafText, errgen.WrapToolError, 1, 18}, 0, 0, 3, 'N', 'o', '.'),
		fzSeed(plain, []byte{1, errgen.LeafText, errgen.WrapToolErrorf}, 0, 0, 9, 'D', 'o', 'w', 'n', ':', ' ', '%', 'w', '!'),
		fzSeed(plain, []byte{1, errgen.LeafText, errgen.WrapHintBelow, 1, 0}),
		fzSeed(plain, []byte{1, errgen.LeafPanic, 0, errgen.WrapDomain, 0}),
		fzSeed(plain, []byte{1, errgen.LeafNotFound, 0, errgen.WrapPanic}),
		fzSeed(plain, []byte{2, errgen.LeafNotFound, 0, errgen.WrapCustom, 1, errgen.WrapCustom, 0}),
		fzSeed(plain, []byte{1, errgen.LeafValidation, 0, 0, errgen.WrapDeep, 5, 0}),
		fzSeed(plain, []byte{2, errgen.LeafToolError, 0, 2, errgen.WrapStack, errgen.WrapHint}, 3, 'N', 'o', '.', 4, 'A', 's', 'k', '.', 6, 'R', 'e', 't', 'r', 'y', '.'),
	}
	for k := range 3 {
		seeds = append(seeds, fzSeed(plain, []byte{1, errgen.LeafText, errgen.WrapCycle, byte(k)}))
	}
	for k := range 6 {
		seeds = append(seeds, fzSeed(plain, []byte{1, errgen.LeafText, errgen.WrapCrdbMisc, byte(k)}))
	}
	for k := range errgen.NumHostile {
		ops := []byte{0, errgen.LeafHostile, byte(k)}
		if k == errgen.HostileBadDetails {
			ops = append(ops, 0, 3) // the empty code, details with a channel
		}
		seeds = append(seeds, fzSeed(plain, ops))
	}
	// Filters: after the error, the tool's filters, then the global ones.
	filters := [][]byte{
		{3, fzFilterPass, fzFilterInspect, fzFilterRewrap, 1, fzFilterCatch},
		{1, fzFilterTransform, 0, errgen.LeafHostile, errgen.HostileSelf},
		{1, fzFilterRespond, 4, 0, 0, 2, 0, 0, 1},
		{1, fzFilterRespond, 1, 1},
		{1, fzFilterRespond, 3, 2, 3, 9, 2, 2, 2, 0, 0, 0, 0, 0, 0},
		{1, fzFilterPanic, 0},
		{1, fzFilterTypedNil, 0},
		{0, 2, fzFilterInspect, fzFilterTypedNil, 1},
	}
	for _, fs := range filters {
		seeds = append(seeds, fzSeed(plain, append([]byte{0, errgen.LeafNotFound, 0}, fs...),
			5, 'O', 'r', 'd', 'e', 'r', 1, 'x', 5, 'D', 'o', 'w', 'n', '.', 4, 'T', 'r', 'y', '1', 4, 'T', 'r', 'y', '2', 1))
	}
	// Failing log handlers, reporters and ref generators, with a masked
	// error and with an unregistered code.
	for mode := range fzLogModes {
		seeds = append(seeds,
			fzSeed([5]byte{0, 0, 0, byte(mode)}, []byte{0, errgen.LeafText}),
			fzSeed([5]byte{0, 0, 0, byte(mode)}, []byte{0, errgen.LeafToolError, 0, 1, 13}, 3, 'N', 'o', '.'))
	}
	for mode := range fzReportModes {
		seeds = append(seeds, fzSeed([5]byte{0, byte(mode), 1}, []byte{0, errgen.LeafToolError, 0, 1, 12}, 3, 'N', 'o', '.'))
	}
	for mode := range fzRefModes {
		seeds = append(seeds, fzSeed([5]byte{0, 0, 0, 0, byte(mode)}, []byte{0, errgen.LeafText}))
	}
	// A tool name longer than a log value.
	seeds = append(seeds, fzSeed(plain, []byte{0, errgen.LeafToolError, 0, 1, 13, 0, 0, 1}, 3, 'N', 'o', '.', 3, 'l', 'o', 'n'))
	return seeds
}
