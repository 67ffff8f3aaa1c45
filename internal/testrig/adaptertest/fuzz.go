package adaptertest

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/errgen"
)

// FuzzBehaviour is what one call of a failing tool of a fuzz target does.
type FuzzBehaviour struct {
	Err    error
	Panics bool
}

// Fail returns the error, or panics with it; with the value of a
// *filter.PanicError, the value the generator meant to panic with.
func (b *FuzzBehaviour) Fail() error {
	if b.Panics {
		if pe, ok := b.Err.(*filter.PanicError); ok {
			panic(pe.Value)
		}
		panic(b.Err)
	}
	return b.Err
}

// FuzzArgs are the arguments of every tool of a fuzz target: N names the
// behaviour of the call.
type FuzzArgs struct {
	N int64 `json:"n"`
}

// Fuzz is the SDK-independent half of an adapter's fuzz target: the log
// and the registry of its one pipeline, the behaviours of the calls under
// way and the failures its observer was told of.
type Fuzz struct {
	Log        errgen.Log
	Registry   *codes.Registry
	behaviours sync.Map // int64 → *FuzzBehaviour
	next       atomic.Int64
	mu         sync.Mutex
	observed   []filter.Failure
}

// NewFuzz returns a Fuzz with the generator's registry.
func NewFuzz() *Fuzz { return &Fuzz{Registry: errgen.Registry()} }

// Pipeline returns a pipeline that logs into f.Log, knows f.Registry and
// tells f of every failure.
func (f *Fuzz) Pipeline() (*filter.Pipeline, error) {
	observe := func(_ context.Context, fl filter.Failure) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.observed = append(f.observed, fl)
	}
	return filter.New(filter.WithLogger(f.Log.Logger()), filter.WithRegistry(f.Registry), filter.WithObserver(observe))
}

// recovered is what an adapter makes of a recovered panic value v: a
// *filter.PanicError with the stack.
func recovered(v any) error { return &filter.PanicError{Value: v, Stack: debug.Stack()} }

// Fail does what the behaviour n says: a tool's handler returns it.
func (f *Fuzz) Fail(n int64) error {
	if b, ok := f.behaviours.Load(n); ok {
		return b.(*FuzzBehaviour).Fail()
	}
	return errors.New("no behaviour " + errgen.Canary)
}

// DecodeFuzz decodes one input into a failing call of one of tools: the
// tool, what it does, and the generator that made its error.
func DecodeFuzz(data []byte, tools []string) (tool string, b *FuzzBehaviour, g *errgen.Gen) {
	src := errgen.NewSource(data)
	tool = tools[src.Op(len(tools))]
	panicsWith := src.Op(2) == 1
	g = errgen.New(src, errgen.Config{Panic: recovered, ChainLimit: MaxChain})
	return tool, &FuzzBehaviour{Err: g.Error(), Panics: panicsWith}, g
}

// Start makes b the behaviour of a new n and forgets the failures observed
// so far. It returns n, a description of the call of tool for messages, and
// end, which forgets b.
func (f *Fuzz) Start(tool string, b *FuzzBehaviour) (n int64, what string, end func()) {
	n = f.next.Add(1)
	f.behaviours.Store(n, b)
	f.mu.Lock()
	f.observed = nil
	f.mu.Unlock()
	return n, fmt.Sprintf("%T from %s (panics: %v)", b.Err, tool, b.Panics), func() { f.behaviours.Delete(n) }
}

// FuzzCallTimeout bounds one call of a fuzz target: far more than any call
// needs.
const FuzzCallTimeout = 5 * time.Second

// CallWithin runs call, which calls tool, with a context that expires after
// FuzzCallTimeout, failing the test if it does not return in time.
func CallWithin[R any](t *testing.T, tool string, call func(ctx context.Context) (R, error)) (R, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), FuzzCallTimeout)
	defer cancel()
	type answer struct {
		res R
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := call(ctx)
		done <- answer{res, err}
	}()
	select {
	case a := <-done:
		if ctx.Err() != nil {
			t.Fatalf("the call of %s did not return within %v", tool, FuzzCallTimeout)
		}
		return a.res, a.err
	case <-time.After(2 * FuzzCallTimeout):
		t.Fatalf("the call of %s hangs, past its context's deadline", tool)
		var zero R
		return zero, nil
	}
}

// FuzzAnswer is what the client received for a failing call of a fuzz
// target, in SDK-neutral form.
type FuzzAnswer struct {
	// Err is the protocol error of the call; the rest is zero with it.
	Err     error
	IsError bool
	// Meta is the result's _meta as the SDK holds it, for messages.
	Meta any
	// Envelope is the envelope in _meta, or nil.
	Envelope map[string]any
	// Contents is the number of content blocks.
	Contents int
	// First is the first content block, if any, for messages.
	First any
	// FirstText is the text of the first block, when it is a text block.
	FirstText string
	// FirstIsText means the first block is a text block.
	FirstIsText bool
}

// Check checks a, what the client received for the call what describes,
// wire, the raw JSON it read, and the records the call logged: one error
// result, never a protocol error; nothing private on the wire; a registered
// code and a bounded message, the first content; a ref for a server error
// only, that names exactly one of one "tool call failed" record; no logged
// value past its bound; and the observer told of the failure once, with
// the client's code and ref.
func (f *Fuzz) Check(t *testing.T, what, wire string, a FuzzAnswer) {
	t.Helper()
	recs, lerr := f.Log.Take()
	if lerr != nil {
		t.Fatal(lerr)
	}
	if errgen.Leaked(wire) {
		i := strings.IndexByte(wire, errgen.Marker)
		t.Errorf("the canary reached the client, at %q, for %s", errgen.Cut(wire[max(0, i-100):]), what)
	}
	if a.Err != nil {
		t.Fatalf("protocol error %v, want an error result, for %s", errgen.Cut(a.Err.Error()), what)
	}
	if !a.IsError {
		t.Fatalf("a result without isError, for %s", what)
	}
	env := a.Envelope
	if env == nil {
		t.Fatalf("no envelope in _meta %v, for %s", a.Meta, what)
	}
	code, _ := env["code"].(string)
	ref, _ := env["ref"].(string)
	msg, _ := env["message"].(string)
	info, known := f.Registry.Lookup(codes.Code(code))
	if !known {
		t.Errorf("code %q is not registered, for %s", errgen.Cut(code), what)
	}
	// In runes: JSON turns each byte of invalid UTF-8 into three of U+FFFD.
	if n := utf8.RuneCountInString(msg); n == 0 || n > MaxMessage {
		t.Errorf("message of %d runes, for %s", n, what)
	}
	if a.Contents == 0 {
		t.Errorf("no content, for %s", what)
	} else if !a.FirstIsText || a.FirstText != msg {
		t.Errorf("first content %v, want the message %q, for %s", a.First, errgen.Cut(msg), what)
	}
	// The envelope's category is the registry's, but for the words of a
	// ToolError over a cause nothing classifies: the server's.
	category, _ := env["category"].(string)
	if category != string(info.Category) && (category != string(codes.Server) || code != string(codes.ToolFailed)) {
		t.Errorf("a %s error of category %q, the registry says %q, for %s", code, category, info.Category, what)
	}
	server := category == string(codes.Server)
	if server != (ref != "") {
		t.Errorf("a %s error with ref %q, for %s", code, ref, what)
	}
	failed, withRef := 0, 0
	for _, rec := range recs {
		if rec.Str("msg") == "tool call failed" {
			failed++
		}
		if ref != "" && strings.Contains(rec.Raw, ref) {
			withRef++
		}
		if l, where := errgen.Longest(rec.Fields); l > MaxLogValue+100 {
			t.Errorf("a logged value of %d runes: %s, for %s", l, where, what)
		}
	}
	if failed != 1 {
		t.Errorf("%d \"tool call failed\" records, want 1, for %s", failed, what)
	}
	if ref != "" && withRef != 1 {
		t.Errorf("ref %s is in %d records, want 1, for %s", ref, withRef, what)
	}
	f.mu.Lock()
	observed := f.observed
	f.mu.Unlock()
	if len(observed) != 1 {
		t.Errorf("the observer was told of %d failures, want 1, for %s", len(observed), what)
	} else if o := observed[0].Envelope; o.Ref != ref || string(o.Code) != code {
		t.Errorf("the observer was told of code %q ref %q, the client read code %q ref %q, for %s", errgen.Cut(string(o.Code)), o.Ref, errgen.Cut(code), ref, what)
	}
}

// CheckQuiet checks that nothing was logged since the last check: for the
// successful call after a failing one.
func (f *Fuzz) CheckQuiet(t *testing.T) {
	t.Helper()
	if recs, _ := f.Log.Take(); len(recs) != 0 {
		t.Errorf("a successful call logged %d records", len(recs))
	}
}

// FuzzSeeds are hand-picked inputs for a fuzz target with tools ways of
// registering a tool: each way, returning and panicking, with errors of
// each kind. The first errors go with every way, the others with one way
// in every.
func FuzzSeeds(tools, every int) [][]byte {
	errs := [][]byte{
		{0, errgen.LeafText},
		{0, errgen.LeafPanic, 0},
		{0, errgen.LeafValidation, 1, 0, 1, 2},
		{0, errgen.LeafAuthorization},
		{0, errgen.LeafToolError, 1, 31, 12, 1},
		{0, errgen.LeafHostile, errgen.HostileErrorPanics},
		{0, errgen.LeafHostile, errgen.HostileNilErrorPanics},
		{0, errgen.LeafHostile, errgen.HostileSelf},
		{0, errgen.LeafHostile, errgen.HostileEndless},
		{0, errgen.LeafHostile, errgen.HostileNilNotFound},
		{0, errgen.LeafHuge, 7},
		{0, errgen.LeafHugePublic, 5},
		{0, errgen.LeafDeep, 5, 1},
		{1, errgen.LeafText, errgen.WrapHintBelow, 1, 0},
		{2, errgen.LeafCanceled, errgen.WrapIssueLink, errgen.WrapHint},
	}
	params := []byte{0, 0, 3, 'N', 'o', '.', 5, 'R', 'e', 't', 'r', 'y'}
	var seeds [][]byte
	for i, e := range errs {
		for tool := range tools {
			if (i+tool)%every != 0 && i > 2 {
				continue // each error with a few of the ways, the first ones with all
			}
			for _, panicsWith := range []byte{0, 1} {
				seeds = append(seeds, errgen.Encode(append([]byte{byte(tool), panicsWith}, e...), params))
			}
		}
	}
	return seeds
}
