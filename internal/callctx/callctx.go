// Package callctx carries what mcperr knows of one request in the context
// its handler runs with: the request's id, minted on first use, what the
// request serves, for the records a handler writes, and the adapter's state
// for the server that serves it. Nothing in it decides how a failure is
// answered: an adapter hands the pipeline what does, as an Input.
package callctx

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"

	"github.com/google/uuid"
)

type key struct{}

// Call is the context of one request served by mcperr: the parent context,
// plus its request id and the adapter's state. One allocation a request.
type Call struct {
	context.Context
	// State is the adapter's state for the server serving the request.
	State any

	once sync.Once
	id   string

	// Kind names what the request serves, as the pipeline's records do:
	// "tool", "resource", "prompt" or "completion"; Target is its name or
	// URI, and SessionID the session's id, "" without one. The adapters
	// set them, for the records a handler writes with its context.
	Kind, Target, SessionID string

	handBuilt HandBuilt // the error of the call's hand-built result
	input     Input     // the failure handed to the pipeline
}

// Input is one failure an adapter hands to its pipeline, as the error
// given to filter.Pipeline.Handle, with what decides the answer besides
// the error, the request and the tool's filters: the tool's own settings,
// and how the call's arguments do not fit the tool's input schema. The
// pipeline takes it apart before anything else runs; no filter, observer
// or record sees it.
type Input struct {
	Err error
	// Settings are the tool's own options, as its adapter was given them
	// where the tool was added or wrapped; the zero value means the
	// server's.
	Settings Settings
	// Arguments, when set, says how the arguments of the call do not fit
	// the tool's input schema (a *domain.Validation), or returns nil. The
	// pipeline asks it only for a failure it would otherwise mask.
	Arguments func() error
	// Repeatable, when set, reports whether the tool is annotated read-only
	// or idempotent, so that calling it again is safe whatever a failure did.
	// The pipeline asks it only when that decides.
	Repeatable func() bool
	// Attempt is which call of the tool, from 1, within the request, failed
	// (0 is 1); Took is how long it ran; Ref is the ref the records of the
	// earlier attempts were written with, "" if none.
	Attempt int
	Took    time.Duration
	Ref     string
}

// Error returns the text of the failure.
func (in *Input) Error() string { return in.Err.Error() }

// Input returns in as the error to hand to the pipeline, held in c so that
// it costs no allocation.
func (c *Call) Input(in Input) error {
	if c == nil {
		return &in
	}
	c.input = in
	return &c.input
}

// Try is where one tool call is among its attempts, for an adapter that
// calls the tool again when the pipeline asks (filter.Failure.Retry).
type Try struct {
	n     int       // the attempt, from 1
	start time.Time // when it began; zero when the pipeline does not retry
	ref   string    // the ref of the earlier attempts' records
}

// Begin starts the next attempt; timed tells when the pipeline retries,
// so that an attempt's duration counts against the request's deadline.
func (t *Try) Begin(timed bool) {
	t.n++
	if timed {
		t.start = time.Now()
	}
}

// Into sets in's attempt, its duration and the earlier attempts' ref; a
// nil t leaves in as it is.
func (t *Try) Into(in *Input) {
	if t == nil {
		return
	}
	in.Attempt, in.Ref = t.n, t.ref
	if !t.start.IsZero() {
		in.Took = time.Since(t.start)
	}
}

// Wait waits d, unless d is zero or ctx ends first, and reports whether it
// did: whether the tool is to be called again. ref is the ref of the
// failed attempt, which the next ones share.
func (t *Try) Wait(ctx context.Context, d time.Duration, ref string) bool {
	if d <= 0 {
		return false
	}
	t.ref = ref
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// Settings are one tool's own choice of how its failures are handled, over
// the server's: each field zero for the server's choice.
type Settings struct {
	// ReportOnly is 1 for a tool that enforces, 2 for one that only
	// reports.
	ReportOnly int8
	// HandBuilt is 1 + the filter.HandBuilt policy of the tool's error
	// results built by the handler itself.
	HandBuilt int8
	// ArgumentCheck is 1 for a tool whose arguments are not checked
	// before its handler runs, 2 for one whose are.
	ArgumentCheck int8
}

// Modes, set by package filter at init and never after, says for a
// *filter.Pipeline and one tool's settings whether the tool's arguments are
// checked before its handler, and whether its failures are only reported.
var Modes func(pipeline any, tool Settings) (checkArguments, reportOnly bool)

// Succeeded, set by package filter at init and never after, tells a
// *filter.Pipeline that a tool call succeeded, for its retry budget; it
// reports whether the pipeline retries at all, so that an adapter can stop
// telling one that does not.
var Succeeded func(pipeline any) (retries bool)

// Merge returns s with the fields that o sets replaced by o's.
func (s Settings) Merge(o Settings) Settings {
	s.ReportOnly = cmp.Or(o.ReportOnly, s.ReportOnly)
	s.HandBuilt = cmp.Or(o.HandBuilt, s.HandBuilt)
	s.ArgumentCheck = cmp.Or(o.ArgumentCheck, s.ArgumentCheck)
	return s
}

// HandBuilt is the error an adapter hands the pipeline for a tool result
// with isError set that the handler built itself: its text blocks, joined.
type HandBuilt struct{ Text string }

// Error returns the text of the result.
func (e *HandBuilt) Error() string { return e.Text }

// HandBuiltError returns the *HandBuilt of a result with text, held in c so
// that a result the policy passes costs no allocation.
func (c *Call) HandBuiltError(text string) error {
	if c == nil {
		return &HandBuilt{Text: text}
	}
	c.handBuilt = HandBuilt{Text: text}
	return &c.handBuilt
}

// Value returns c for the key of this package, and asks the parent
// otherwise.
func (c *Call) Value(k any) any {
	if _, ok := k.(key); ok {
		return c
	}
	return c.Context.Value(k)
}

// RequestID returns the id of the request, minting it the first time.
func (c *Call) RequestID() string {
	c.once.Do(func() { c.id = NewID() })
	return c.id
}

// With returns a context for one request served with state: ctx itself if
// it carries a Call with the same state already, as under an adapter's
// middleware, so that a wrapped handler inside it costs nothing more; a
// Call without state, made by a wrapper, takes state.
func With(ctx context.Context, state any) context.Context {
	if ctx == nil {
		ctx = context.Background()
	}
	if c := From(ctx); c != nil {
		switch {
		case state == nil || c.State == state:
			return ctx
		case c.State == nil:
			// Made by a wrapper outside the middleware: the state is found now.
			c.State = state
			return ctx
		}
	}
	return &Call{Context: ctx, State: state}
}

// From returns the Call of ctx, or nil.
func From(ctx context.Context) *Call {
	if ctx == nil {
		return nil
	}
	c, _ := ctx.Value(key{}).(*Call)
	return c
}

// NewID returns a new request id: a UUID of version 7 (RFC 9562), which
// sorts by the time it was made, in its 36-character form.
func NewID() string {
	id, err := uuid.NewV7()
	if err != nil {
		// crypto/rand does not fail; keep the request answerable anyway.
		var b [16]byte
		_, _ = rand.Read(b[:])
		return hex.EncodeToString(b[:])
	}
	return id.String()
}

// Describe sets what c serves from the MCP method of its request (as
// filter.Call names it), its tool, resource or prompt, and its session.
func (c *Call) Describe(method, tool, resource, prompt, session string) {
	if c == nil {
		return
	}
	switch method {
	case "resources/read":
		c.Kind, c.Target = "resource", resource
	case "prompts/get":
		c.Kind, c.Target = "prompt", prompt
	case "completion/complete":
		c.Kind, c.Target = "completion", cmp.Or(prompt, resource)
	default:
		c.Kind, c.Target = "tool", tool
	}
	c.SessionID = session
}
