package filter

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/internal/testrig/errgen"
)

// FuzzHandle throws generated errors, filters, observers, renderers, log
// handlers and ref generators at Pipeline.Handle and checks what the
// pipeline promises: it returns, in bounded time, one Failure whose
// envelope fits the schema, with a registered code; a masked one reads
// exactly the masked text with a ref that names exactly one log record;
// nothing private reaches the client; what observers and renderers are
// given is a copy; exactly one record of the failure is written; every
// logged value is bounded.
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
// use every operation of the generator, every kind of filter and every
// method.
func TestFuzzHandleSeedsCoverEveryOperation(t *testing.T) {
	used := map[string]bool{}
	for _, seed := range fzSeeds() {
		c := fzDecode(seed)
		for op := range c.gen.Used {
			used[op] = true
		}
		used[fmt.Sprint("method/", c.method)] = true
	}
	for kind, n := range map[string]int{"leaf": errgen.NumLeaves, "wrap": errgen.NumWraps, "hostile": errgen.NumHostile, "filter": fzNumFilters,
		"method": fzMethods} {
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

// fzLogSlack is how much longer than maxLogValue a logged value may be: a
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

// Reporter modes: an Observer that looks at server failures, as an error
// tracker does. (The byte that chooses it chose a Reporter before
// observers replaced them; the corpus keeps its meaning.)
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
	fzFilterRespond   // answers with a Response
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
	fzRenderMessage // the message and the hints
	fzRenderCustom  // two fixed blocks
	fzRenderPanics  // panics with the canary
	fzRenderNothing // returns no block
	fzRenderTooMuch // 40 blocks of more than maxMessage
	fzRenderWrites  // writes the canary into the Envelope it gets
	fzRenderModes
)

// Observer modes.
const (
	fzObserveNone   = iota
	fzObserveOK     // records what it is told
	fzObservePanics // panics with the canary
	fzObserveWrites // writes the canary into the Failure it gets
	fzObserveModes
)

// Methods of the call.
const (
	fzMethodNone               = iota // "": a tool call
	fzMethodTool                      // "tools/call"
	fzMethodResource                  // "resources/read"
	fzMethodPrompt                    // "prompts/get"
	fzMethodCompletionPrompt          // "completion/complete" of a prompt's argument
	fzMethodCompletionResource        // "completion/complete" of a resource's argument
	fzMethods
)

// fzCase is one decoded input.
type fzCase struct {
	gen                 *errgen.Gen
	redact, registry    bool
	report, log, refGen int
	render, observe     int
	method              int
	err                 error
	toolFilters, global []Filter
	transforms          []error // the errors the filters may put in err's place
	call                Call
}

// fzDecode reads the configuration, the error, the filters and the call.
func fzDecode(data []byte) *fzCase {
	src := errgen.NewSource(data)
	panicked := func(v any) error { return &PanicError{Value: v, Stack: debug.Stack()} }
	c := &fzCase{gen: errgen.New(src, errgen.Config{Panic: panicked, ChainLimit: maxChain})}
	c.redact = src.Op(2) == 1
	c.report = src.Op(fzReportModes)
	c.registry = src.Op(2) == 1
	c.log = src.Op(fzLogModes)
	c.refGen = src.Op(fzRefModes)
	c.err = c.gen.Error()
	c.toolFilters = fzFilters(c.gen, &c.transforms)
	c.global = fzFilters(c.gen, &c.transforms)
	c.call = Call{Tool: src.Text(80), RequestID: src.Text(20), SessionID: src.Text(20)}
	// Read last, so that inputs made before they existed keep their
	// meaning: an exhausted source reads as the first mode.
	c.render = src.Op(fzRenderModes)
	c.observe = src.Op(fzObserveModes)
	if src.Op(2) == 1 {
		// A tool name longer than a log value may be.
		c.call.Tool = strings.Repeat(c.call.Tool+"t", (maxLogValue+maxLogValue/2)/(len(c.call.Tool)+1))
	}
	c.method = src.Op(fzMethods)
	fzSetMethod(&c.call, c.method)
	return c
}

// fzSetMethod makes call a request of the method m, naming what the tool
// name named.
func fzSetMethod(call *Call, m int) {
	name := call.Tool
	switch m {
	case fzMethodTool:
		call.Method = "tools/call"
	case fzMethodResource:
		call.Method, call.Tool, call.Resource = "resources/read", "", name
	case fzMethodPrompt:
		call.Method, call.Tool, call.Prompt = "prompts/get", "", name
	case fzMethodCompletionPrompt:
		call.Method, call.Tool, call.Prompt = "completion/complete", "", name
	case fzMethodCompletionResource:
		call.Method, call.Tool, call.Resource = "completion/complete", "", name
	}
}

func fzMark(g *errgen.Gen, kind string, i int) int {
	if g.Used == nil {
		g.Used = map[string]bool{}
	}
	g.Used[fmt.Sprint(kind, "/", i)] = true
	return i
}

func fzFilters(g *errgen.Gen, transforms *[]error) []Filter {
	n := g.Source().Op(4)
	fs := make([]Filter, 0, n)
	for range n {
		fs = append(fs, fzFilter(g, transforms))
	}
	return fs
}

// fzFilter reads one filter; a filter that transforms adds its error to transforms.
func fzFilter(g *errgen.Gen, transforms *[]error) Filter {
	src := g.Source()
	switch fzMark(g, "filter", src.Op(fzNumFilters)) {
	case fzFilterTransform:
		next := g.Error()
		*transforms = append(*transforms, next)
		return Catch(func(context.Context, Call, error) (*Response, error) { return nil, next })
	case fzFilterRespond:
		resp := &Response{Code: g.ResponseCode(), Message: fzMessage(g), Details: g.Details()}
		for range src.Op(12) {
			resp.Hints = append(resp.Hints, fzHint(g))
		}
		if src.Op(2) == 1 {
			retry := src.Bool()
			resp.Retryable = &retry
		}
		return Catch(func(context.Context, Call, error) (*Response, error) { return resp, nil })
	case fzFilterPanic:
		v := g.PanicValue()
		return Catch(func(context.Context, Call, error) (*Response, error) { panic(v) })
	case fzFilterTypedNil:
		var next error = (*fzPanicky)(nil)
		if src.Op(2) == 1 {
			next = (*domain.NotFound)(nil)
		}
		return Catch(func(context.Context, Call, error) (*Response, error) { return nil, next })
	case fzFilterCatch:
		return Catch(func(_ context.Context, _ Call, e *domain.NotFound) (*Response, error) {
			return &Response{Code: codes.NotFound, Message: "No such " + e.Resource + "."}, nil
		})
	case fzFilterInspect:
		return Catch(func(_ context.Context, _ Call, err error) (*Response, error) {
			_ = err.Error()
			var pe *PanicError
			_ = errors.Is(err, context.Canceled) || errors.As(err, &pe)
			return nil, nil
		})
	case fzFilterRewrap:
		return Catch(func(_ context.Context, _ Call, err error) (*Response, error) {
			return nil, fmt.Errorf("filter %s: %w", errgen.Canary, err)
		})
	}
	return Catch(func(context.Context, Call, error) (*Response, error) { return nil, nil })
}

// fzMessage reads the public message of a filter's Response: any text,
// empty, or about maxMessage long, in bytes of one or two.
func fzMessage(g *errgen.Gen) string {
	switch g.Source().Op(4) {
	case 1:
		return ""
	case 2:
		return strings.Repeat("m", maxMessage+g.Source().Intn(3)-1)
	case 3:
		return strings.Repeat("é", maxMessage/2+g.Source().Intn(3)-1)
	}
	return g.Public(80)
}

// fzHint reads a public hint of a filter's Response.
func fzHint(g *errgen.Gen) string {
	switch g.Source().Op(3) {
	case 1:
		return ""
	case 2:
		return strings.Repeat("é", maxHint/2+g.Source().Intn(3)-1)
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

// fzReporter is an Observer that records the server failures it is told
// of, with their error, and fails as its mode says.
type fzReporter struct {
	mode      int
	incidents []Failure
}

func (r *fzReporter) observe(_ context.Context, f Failure) {
	if f.Envelope.Category != codes.Server {
		return
	}
	r.incidents = append(r.incidents, f)
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

// TestFuzzHandleMethods runs every seed of FuzzHandle as a request of every
// method.
func TestFuzzHandleMethods(t *testing.T) {
	for _, seed := range fzSeeds() {
		for m := range fzMethods {
			c := fzDecode(seed)
			// Back to a tool call of the same name, then to method m.
			name := c.call.Tool + c.call.Resource + c.call.Prompt // one of them is set
			c.call.Method, c.call.Tool, c.call.Resource, c.call.Prompt = "", name, "", ""
			c.method = m
			fzSetMethod(&c.call, m)
			fzRun(t, c)
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
	}
	var registry *codes.Registry
	if c.registry {
		registry = errgen.Registry()
		opts = append(opts, WithRegistry(registry))
	}
	if len(c.global) > 0 {
		opts = append(opts, WithFilters(c.global...))
	}
	rep := &fzReporter{mode: c.report}
	if c.report != fzReportNone {
		opts = append(opts, WithObserver(rep.observe))
	}
	if gen := fzRefGenerator(c.refGen); gen != nil {
		opts = append(opts, WithRefGenerator(gen))
	}
	var rendered []Envelope // what the renderer was given, as it was given
	if fn := fzRenderer(c.render, &rendered); fn != nil {
		opts = append(opts, WithRenderer(fn))
	}
	obs := &fzObserver{mode: c.observe}
	if c.observe != fzObserveNone {
		opts = append(opts, WithObserver(obs.observe))
	}
	p, err := New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	p.fallback = slog.NewJSONHandler(&last, all)

	var f *Failure
	var panicked any
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { panicked = recover() }()
		f = p.Handle(context.Background(), c.call, c.err, c.toolFilters...)
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
	fzCheck(t, c, registry, f, rep, recs)
	fzCheckViews(t, c, f, obs, rendered, recs)
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

// fzCopy returns a deep copy of e.
func fzCopy(e Envelope) Envelope {
	e.Details = bytes.Clone(e.Details)
	e.Hints = append([]string(nil), e.Hints...)
	if len(e.Hints) == 0 {
		e.Hints = nil
	}
	return e
}

// fzCopyFailure returns a deep copy of f.
func fzCopyFailure(f Failure) Failure {
	f.Texts = append([]string(nil), f.Texts...)
	f.Envelope = fzCopy(f.Envelope)
	return f
}

// fzRenderer returns the Renderer of mode, or nil for the default. It
// keeps a copy of each envelope it is given in *given.
func fzRenderer(mode int, given *[]Envelope) func(Envelope) []string {
	var fn func(Envelope) []string
	switch mode {
	case fzRenderMessage:
		fn = func(e Envelope) []string { return append([]string{e.Message}, e.Hints...) }
	case fzRenderCustom:
		fn = func(e Envelope) []string { return []string{e.Message, "[" + string(e.Code) + "]"} }
	case fzRenderPanics:
		fn = func(Envelope) []string { panic("renderer " + errgen.Canary) }
	case fzRenderNothing:
		fn = func(Envelope) []string { return nil }
	case fzRenderTooMuch:
		fn = func(Envelope) []string {
			out := make([]string, 40)
			for i := range out {
				out[i] = strings.Repeat("x", maxMessage+10)
			}
			return out
		}
	case fzRenderWrites:
		fn = func(e Envelope) []string {
			e.Message, e.Code, e.Ref, e.Retryable = errgen.Canary, "HACKED", "forged", !e.Retryable
			for i := range e.Details {
				e.Details[i] = errgen.Marker
			}
			for i := range e.Hints {
				e.Hints[i] = errgen.Canary
			}
			return []string{"written"}
		}
	default:
		return nil
	}
	return func(e Envelope) []string {
		*given = append(*given, fzCopy(e))
		return fn(e)
	}
}

// fzObserver records what it is told and fails as its mode says.
type fzObserver struct {
	mode     int
	failures []Failure // deep copies, as told
}

func (o *fzObserver) observe(_ context.Context, f Failure) {
	o.failures = append(o.failures, fzCopyFailure(f))
	switch o.mode {
	case fzObservePanics:
		panic("observer " + errgen.Canary)
	case fzObserveWrites:
		for i := range f.Texts {
			f.Texts[i] = errgen.Canary
		}
		for i := range f.Envelope.Details {
			f.Envelope.Details[i] = errgen.Marker
		}
		for i := range f.Envelope.Hints {
			f.Envelope.Hints[i] = errgen.Canary
		}
		f.Envelope.Message, f.Envelope.Code, f.Envelope.Ref = errgen.Canary, "HACKED", "forged"
		f.Envelope.Retryable = !f.Envelope.Retryable
	}
}

// fzCheckViews checks the blocks the model reads, and that what renderers
// and observers were given is a copy: whatever they did, the Failure
// returned is what they were given.
func fzCheckViews(t *testing.T, c *fzCase, f *Failure, obs *fzObserver, rendered []Envelope, recs []errgen.Record) {
	t.Helper()
	if f == nil {
		return
	}
	what := fzDescribe(c)
	texts := f.Texts
	if len(texts) == 0 || len(texts) > maxBlocks {
		t.Errorf("%d text blocks, want 1 to %d, for %s", len(texts), maxBlocks, what)
	}
	for _, b := range texts {
		if len(b) > maxMessage || !utf8.ValidString(b) {
			t.Fatalf("a block of %d bytes, more than %d, or not UTF-8, for %s", len(b), maxMessage, what)
		}
	}
	env := f.Envelope
	switch c.render {
	case fzRenderDefault, fzRenderPanics, fzRenderNothing:
		if len(texts) != 2 || texts[0] != env.Message || !strings.HasPrefix(texts[1], "Code: "+string(env.Code)+"\n") {
			t.Errorf("texts %q, want the message and the block of RenderForModel, for %s", texts, what)
		}
	case fzRenderMessage:
		if texts[0] != env.Message || len(texts) != 1+len(env.Hints) {
			t.Errorf("texts %q, want the message and one block a hint, for %s", texts, what)
		}
	case fzRenderWrites:
		if !reflect.DeepEqual(texts, []string{"written"}) {
			t.Errorf("texts %q, want the renderer's, for %s", texts, what)
		}
	}
	if c.render != fzRenderDefault {
		if len(rendered) != 1 {
			t.Fatalf("the renderer was called %d times, for %s", len(rendered), what)
		}
		if !reflect.DeepEqual(fzCopy(env), rendered[0]) {
			t.Errorf("the envelope sent %+v is not the one rendered %+v, for %s", env, rendered[0], what)
		}
	}
	if c.observe != fzObserveNone {
		if len(obs.failures) != 1 {
			t.Fatalf("the observer was told %d times, want once, for %s", len(obs.failures), what)
		}
		told := obs.failures[0]
		if got := fzCopyFailure(*f); !reflect.DeepEqual(got, told) {
			t.Errorf("the failure returned\n%+v\nis not what the observer was told\n%+v\nfor %s", got, told, what)
		}
		// An observer learns the error as the record holds it, redacted or
		// not, and nothing more.
		for _, rec := range recs {
			if fzFailedRecord(rec) && rec.Str("error") != fzAsJSON(told.ErrorText) {
				t.Errorf("the observer was told %q, the record holds %q, for %s", errgen.Cut(told.ErrorText), errgen.Cut(rec.Str("error")), what)
			}
		}
	}
}

// fzFailedRecord reports whether rec is the record of a failure.
func fzFailedRecord(rec errgen.Record) bool {
	switch rec.Str("msg") {
	case "tool call failed", "resource read failed", "prompt get failed", "completion failed":
		return true
	}
	return false
}

// fzDescribe names what a failing input was made of, for the report.
func fzDescribe(c *fzCase) string {
	return fmt.Sprintf("error %T (%d tool and %d global filters, redact=%v, report=%d, log=%d, refGen=%d, registry=%v, render=%d, observe=%d, method=%q, target of %d bytes)",
		c.err, len(c.toolFilters), len(c.global), c.redact, c.report, c.log, c.refGen, c.registry, c.render, c.observe, c.call.Method,
		len(c.call.Tool+c.call.Resource+c.call.Prompt))
}

// fzMaskedText is the text of a masked error of call with ref, as the
// package documents it: `Internal error in tool "x" (ref: R).`, the name
// quoted and cut to 256 bytes.
func fzMaskedText(call Call, ref string) string {
	quote := func(s string) string {
		s = strings.ToValidUTF8(s, "\uFFFD")
		if len(s) > 256 {
			cut := 256 - len("…")
			for !utf8.RuneStart(s[cut]) {
				cut--
			}
			s = s[:cut] + "…"
		}
		return strconv.Quote(s)
	}
	var what string
	switch call.Method {
	case "resources/read":
		what = "resource " + quote(call.Resource)
	case "prompts/get":
		what = "prompt " + quote(call.Prompt)
	case "completion/complete":
		what = "completion"
		switch {
		case call.Prompt != "":
			what += " for prompt " + quote(call.Prompt)
		case call.Resource != "":
			what += " for resource " + quote(call.Resource)
		}
	default:
		what = "tool " + quote(call.Tool)
	}
	return "Internal error in " + what + " (ref: " + ref + ")."
}

// fzCheck checks the invariants of one call.
func fzCheck(t *testing.T, c *fzCase, registry *codes.Registry, f *Failure, rep *fzReporter, recs []errgen.Record) {
	t.Helper()
	what := fzDescribe(c)
	if f == nil {
		t.Fatalf("Handle returned nil for %s", what)
	}
	env := f.Envelope
	if err := envelopeError(env); err != nil {
		t.Errorf("%v, for %s", err, what)
	}
	info, known := registry.Lookup(env.Code)
	if !known {
		t.Errorf("code %q is not registered, for %s", errgen.Cut(string(env.Code)), what)
	}
	// A ToolError's words over a cause nothing explains are a server failure,
	// the error handled or one a filter put in its place.
	facts, _ := scan(c.err)
	overCause := facts.cause != nil
	for _, e := range c.transforms {
		f, _ := scan(e)
		overCause = overCause || f.cause != nil
	}
	if env.Category != info.Category && !(env.Category == codes.Server && overCause) {
		t.Errorf("category %q, the registry says %q, for %s", env.Category, info.Category, what)
	}
	if env.Message == "" || len(env.Message) > maxMessage || !utf8.ValidString(env.Message) {
		t.Errorf("message of %d bytes, want 1 to %d of UTF-8, for %s", len(env.Message), maxMessage, what)
	}
	if len(env.Hints) > maxHints {
		t.Errorf("%d hints, want at most %d, for %s", len(env.Hints), maxHints, what)
	}
	for _, h := range env.Hints {
		if h == "" || len(h) > maxHint {
			t.Errorf("a hint of %d bytes, want 1 to %d, for %s", len(h), maxHint, what)
		}
	}
	if env.Details != nil {
		var m map[string]any
		if err := json.Unmarshal(env.Details, &m); err != nil || len(env.Details) > maxDetails || len(m) == 0 {
			t.Errorf("details of %d bytes of JSON (%v), want a non-empty object of at most %d, for %s", len(env.Details), err, maxDetails, what)
		}
	}
	if env.RetryAfterSeconds < 0 || env.RetryAfterSeconds > maxRetryAfter.Seconds() || env.RetryAfterSeconds > 0 && !env.Retryable {
		t.Errorf("retryAfterSeconds %v, retryable %v, for %s", env.RetryAfterSeconds, env.Retryable, what)
	}
	if at, err := time.Parse(time.RFC3339Nano, env.Timestamp); err != nil || at.Location() != time.UTC {
		t.Errorf("timestamp %q, want RFC 3339 in UTC, for %s", env.Timestamp, what)
	}
	switch {
	case c.call.RequestID != "" && env.RequestID != strings.ToValidUTF8(c.call.RequestID, "\uFFFD"):
		t.Errorf("request id %q, want the call's %q, for %s", env.RequestID, c.call.RequestID, what)
	case c.call.RequestID == "":
		if id, err := uuid.Parse(env.RequestID); err != nil || id.Version() != 7 {
			t.Errorf("request id %q, want a minted UUID v7 for a call without one, for %s", env.RequestID, what)
		}
	}
	server := env.Category == codes.Server
	switch {
	case server && !fzValidRef(env.Ref):
		t.Errorf("the %s error has ref %q, want a valid one, for %s", env.Code, env.Ref, what)
	case !server && env.Ref != "":
		t.Errorf("the %s error has ref %q, want none, for %s", env.Code, env.Ref, what)
	}
	if env.Code == codes.InternalError && !c.gen.PublicInternal {
		if want := fzMaskedText(c.call, env.Ref); env.Message != want {
			t.Errorf("masked message %q, want %q, for %s", errgen.Cut(env.Message), errgen.Cut(want), what)
		}
		if env.Details != nil || env.Hints != nil || env.Retryable {
			t.Errorf("a masked error has details %s, hints %q or retryable %v, for %s", env.Details, env.Hints, env.Retryable, what)
		}
	}
	switch rpc := f.JSONRPCCode; {
	case c.call.Method == "" || c.call.Method == "tools/call":
		if rpc != 0 || env.URI != "" {
			t.Errorf("a tool call has JSON-RPC code %d and uri %q, for %s", rpc, env.URI, what)
		}
	case server && rpc != -32603,
		!server && rpc != -32602 && rpc != -32002,
		rpc == -32002 && (c.call.Method != "resources/read" || env.Code != codes.NotFound):
		t.Errorf("JSON-RPC code %d for a %s %s error, for %s", rpc, env.Category, env.Code, what)
	}
	if (env.URI != "") != (c.call.Method == "resources/read" && env.Code == codes.NotFound && c.call.Resource != "") {
		t.Errorf("uri %q for a %s of %s, for %s", errgen.Cut(env.URI), env.Code, c.call.Method, what)
	}
	// A chain that cannot be walked safely is set aside whole: Failure.Err
	// is then the opaque stand-in, never the chain, which an observer that
	// asks for its text could not survive.
	if facts, opaque := scan(c.err); facts.opaque {
		reason := opaque.Error()
		first := f.Err
		if j, ok := f.Err.(interface{ Unwrap() []error }); ok && len(j.Unwrap()) == 2 {
			first = j.Unwrap()[0] // joined with the failure of a filter
		}
		if _, ok := first.(*opaqueError); !ok {
			t.Errorf("Failure.Err is %T for a chain that cannot be walked (%s), want the opaque stand-in, for %s", f.Err, reason, what)
		}
	} else if j, ok := f.Err.(interface{ Unwrap() []error }); ok && len(j.Unwrap()) == 2 && fzSame(j.Unwrap()[0], c.err) {
		// The error handled, joined with the failure of a filter.
	} else if !fzSame(f.Err, c.err) {
		t.Errorf("Failure.Err is %T, want the error handled, for %s", f.Err, what)
	}
	if f.Call.Tool != c.call.Tool || f.Call.Method != c.call.Method {
		t.Errorf("Failure.Call %+v, want the call, for %s", f.Call, what)
	}
	client, err := json.Marshal(env)
	if err != nil {
		t.Fatalf("the envelope cannot be encoded: %v, for %s", err, what)
	}
	seen := string(client) + "\n" + strings.Join(f.Texts, "\n")
	if errgen.Leaked(seen) {
		i := strings.IndexByte(seen, errgen.Marker)
		t.Errorf("the canary reached the client, at %q, for %s", errgen.Cut(seen[max(0, i-100):]), what)
	}

	// The reporter: told once of a server failure, with the error and the
	// ref; never of another.
	switch n := len(rep.incidents); {
	case c.report == fzReportNone:
	case server && n != 1, !server && n != 0:
		t.Errorf("the reporter was told %d times of a %s failure, for %s", n, env.Category, what)
	case n == 1 && (rep.incidents[0].Envelope.Ref != env.Ref || !fzSame(rep.incidents[0].Err, f.Err)):
		t.Errorf("the reporter got ref %q and error %T for a failure with ref %q, for %s", rep.incidents[0].Envelope.Ref, rep.incidents[0].Err, env.Ref, what)
	}

	// Records: one of the failure, at most one warning.
	var failed []errgen.Record
	warnCode, withRef, mentionRef := 0, 0, 0
	for _, rec := range recs {
		switch msg := rec.Str("msg"); {
		case fzFailedRecord(rec):
			failed = append(failed, rec)
		case msg == "mcperr: unregistered error code":
			warnCode++
		default:
			t.Errorf("unexpected record %s, for %s", errgen.Cut(rec.Raw), what)
		}
		if env.Ref != "" && rec.Str("ref") == env.Ref {
			withRef++
		}
		if env.Ref != "" && strings.Contains(rec.Raw, env.Ref) {
			mentionRef++
		}
		if n, where := errgen.Longest(rec.Fields); n > maxLogValue+fzLogSlack {
			t.Errorf("a logged value of %d runes, more than maxLogValue+%d: %s, in a %q record, for %s", n, fzLogSlack, where, rec.Str("msg"), what)
		}
	}
	if len(failed) != 1 {
		t.Fatalf("%d records of the failure, want 1, for %s", len(failed), what)
	}
	if warnCode > 1 {
		t.Errorf("%d warnings of unregistered codes, want at most 1, for %s", warnCode, what)
	}
	rec := failed[0]
	if rec.Str("ref") != env.Ref || rec.Str("code") != string(env.Code) || rec.Str("request_id") != env.RequestID {
		t.Errorf("the record has ref %q, code %q and request id %q, the envelope %q, %q and %q, for %s",
			rec.Str("ref"), rec.Str("code"), rec.Str("request_id"), env.Ref, env.Code, env.RequestID, what)
	}
	if rec.Str("msg") != logMessageOf(c.call) {
		t.Errorf("the record says %q for a %q request, for %s", rec.Str("msg"), c.call.Method, what)
	}
	if want := map[bool]string{true: "ERROR", false: "INFO"}[server]; rec.Str("level") != want {
		t.Errorf("the record of a %s failure is at level %s, want %s, for %s", env.Code, rec.Str("level"), want, what)
	}
	if rec.Str("error") != fzAsJSON(f.ErrorText) {
		t.Errorf("Failure.ErrorText %q, the record's error %q, for %s", errgen.Cut(f.ErrorText), errgen.Cut(rec.Str("error")), what)
	}
	if env.Ref != "" {
		// A ref from the default or a custom generator is random and long:
		// nothing else can mention it by chance. "same" can.
		if withRef != 1 || len(env.Ref) >= 16 && mentionRef != 1 {
			t.Errorf("ref %s is the ref of %d records and appears in %d, want exactly one, for %s", env.Ref, withRef, mentionRef, what)
		}
	}
}

// fzSame reports whether a and b are the same error; for an error of an
// incomparable type, whether they have the same type and equal values.
func fzSame(a, b error) (same bool) {
	defer func() {
		if recover() != nil {
			same = reflect.TypeOf(a) == reflect.TypeOf(b) && reflect.DeepEqual(a, b)
		}
	}()
	return a == b
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

// fzWithMethod returns seed with the method m: the operations the seed
// leaves unread padded with zeros (which read as they did), then m.
func fzWithMethod(seed []byte, m int) []byte {
	n := int(seed[0])
	ops, params := seed[1:1+n], seed[1+n:]
	for pad := 0; pad < 255-n; pad++ {
		more := append(append(bytes.Clone(ops), make([]byte, pad)...), byte(m))
		s := errgen.Encode(more, params)
		if fzDecode(s).method == m {
			return s
		}
	}
	panic("fzWithMethod: no room for the method")
}

// fzSeed assembles a seed: the configuration (redact, reporter observer,
// registry, log handler, ref generator), then the rest of the structure,
// then the parameters.
func fzSeed(cfg [5]byte, ops []byte, params ...byte) []byte {
	return errgen.Encode(append(cfg[:], ops...), params)
}

// fzSeeds are the hand-picked inputs: each operation of the generator, each
// kind of filter, each failing log handler, reporter observer and ref
// generator, each method.
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
		seeds = append(seeds, fzSeed([5]byte{0, byte(mode)}, []byte{0, errgen.LeafText}))
		seeds = append(seeds, fzSeed([5]byte{0, byte(mode), 1}, []byte{0, errgen.LeafToolError, 0, 1, 12}, 3, 'N', 'o', '.'))
	}
	for mode := range fzRefModes {
		seeds = append(seeds, fzSeed([5]byte{0, 0, 0, 0, byte(mode)}, []byte{0, errgen.LeafText}))
	}
	// A tool name longer than a log value.
	seeds = append(seeds, fzSeed(plain, []byte{0, errgen.LeafToolError, 0, 1, 13, 0, 0, 1}, 3, 'N', 'o', '.', 3, 'l', 'o', 'n'))
	// Each method, with a masked error, a resource not found and a
	// filter's answer.
	for m := range fzMethods {
		seeds = append(seeds,
			fzWithMethod(fzSeed(plain, []byte{0, errgen.LeafText}), m),
			fzWithMethod(fzSeed(plain, []byte{0, errgen.LeafNotFound, 0}, 4, 'F', 'i', 'l', 'e', 1, 'x', 8, 'f', 'i', 'l', 'e', ':', '/', '/', 'x'), m),
			fzWithMethod(fzSeed(plain, []byte{0, errgen.LeafText, 0, 1, fzFilterRespond, 2, 0, 0, 0, 0}, 0, 5, 'D', 'o', 'w', 'n', '.', 2, 'p', 'r'), m))
	}
	return seeds
}
