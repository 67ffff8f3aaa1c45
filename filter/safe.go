package filter

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/toolerr"
)

// Limits that keep the output bounded whatever happens; the package documentation states them.
const (
	maxChain      = 256                // errors visited in one chain, every branch of a join counted
	maxLogValue   = 8 << 10            // bytes of one logged value; a longer one is cut, saying how much
	maxMessage    = 16 << 10           // bytes of a message or text block; a longer one ends in "…"
	maxDetails    = 16 << 10           // bytes of the details' JSON; larger details are not sent
	maxHints      = 8                  // hints sent
	maxHint       = 1 << 10            // bytes of one hint
	maxRetryAfter = 7 * 24 * time.Hour // the longest retry delay sent
	maxBlocks     = 16                 // text blocks a Renderer may return
	maxGroupDepth = 4                  // nesting of the log view of an error
	maxGroupAttrs = 64                 // attributes of one group of that view
	maxTypes      = 16                 // types of a chain a redacted record names
	maxRequestID  = 256                // bytes of the request id sent and logged
	maxTarget     = 256                // bytes of a name or URI in the masked text, which must keep its ref

	maxUnknownWarnings = 1024 // unregistered codes a Pipeline remembers, so that data cannot grow it
)

// PanicError is a recovered panic, of a handler or a filter: always masked,
// its Stack logged. Filters and observers find it with errors.As.
type PanicError struct {
	// Value is what was passed to panic.
	Value any
	// Stack is the goroutine's stack where the panic was recovered.
	Stack []byte
}

// Error returns "panic: " and the value, bounded, whatever the value is or does.
func (e *PanicError) Error() string { return "panic: " + safeSprint(e.Value) }

// try runs fn and returns its panic, with its stack, or nil: the one recover
// of calls to user code (filters, observers, renderers, log handlers, error
// methods), so that none can take a request down. It does not stop a Goexit.
func try(fn func()) (pe *PanicError) {
	defer func() {
		if v := recover(); v != nil {
			pe = &PanicError{Value: v, Stack: debug.Stack()}
		}
	}()
	fn()
	return nil
}

func noPanic[T any](fn func() T) (v T) {
	try(func() { v = fn() })
	return v
}

func isNil(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Func, reflect.Map, reflect.Chan, reflect.Slice, reflect.Interface, reflect.UnsafePointer:
		return rv.IsNil()
	}
	return false
}

// opaqueError stands for a chain not walked safely; it has no Unwrap, and is always masked.
type opaqueError struct{ text string }

func (e *opaqueError) Error() string { return e.text }

type logValuerError interface {
	error
	slog.LogValuer
}

// chainFacts is what a walk of a chain finds, in errors.As's order: depth first.
type chainFacts struct {
	panicked  bool                 // a *PanicError is in the chain
	public    toolerr.PublicError  // the first public error
	cause     error                // the cause of public, when it is a ToolError
	inner     toolerr.PublicError  // the first public error in that cause, but a ToolError of no code over a cause
	through   []*toolerr.ToolError // those ToolErrors, outermost first: see words
	valuer    slog.LogValuer       // the first error with a log view
	custom    bool                 // an error has an As or Is method of its own
	opaque    bool                 // the chain could not be walked: see scan
	formatter error                // the first fmt.Formatter, whose %+v may hold a stack

	// The retry advice, as toolerr documents it: the first ToolError's that
	// gives one, else the first Retryable method's, else a context error's.
	adviceKnown, retryable bool
	retryAfter             time.Duration
	byToolError, byMethod  int8 // 0: none met; 1: says no; 2: says yes
	methodAfter            time.Duration
	context                bool // context.Canceled or DeadlineExceeded is in public's own chain

	types  [maxTypes]reflect.Type // the types met, each once, in order
	nTypes int
}

// scan walks err's chain once, through Unwrap and Cause; a chain too long, cyclic
// or with a method that panics comes back as an opaqueError saying so.
func scan(err error) (chainFacts, error) {
	var f chainFacts
	var reason string
	if v := try(func() { f, reason = walk(err) }); v != nil {
		reason = "an Unwrap, Cause or RetryAdvice method panicked: " + safeSprint(v.Value)
	}
	if reason != "" {
		err = &opaqueError{text: reflect.TypeOf(err).String() + " (not walked: " + reason + ")"}
		f = chainFacts{opaque: true}
		f.note(err, false)
	}
	f.advise()
	return f, err
}

func walk(err error) (f chainFacts, reason string) {
	var seenBuf [16]idKey
	var stackBuf [16]error
	seen, stack := seenBuf[:0], append(stackBuf[:0], err)
	below := -1 // while the stack is longer, the walk is inside f.public's own chain
	for n := 0; len(stack) > 0; n++ {
		if n >= maxChain {
			return f, "the chain has more than " + strconv.Itoa(maxChain) + " errors"
		}
		inCause := below >= 0 && len(stack) > below
		e := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if e == nil {
			continue
		}
		var met bool
		if seen, met = metBefore(seen, e); met {
			return f, "the chain is cyclic: " + reflect.TypeOf(e).String() + " is met twice"
		}
		if f.public == nil {
			if _, public := e.(toolerr.PublicError); public {
				below = len(stack)
			}
			if te, ok := e.(*toolerr.ToolError); ok {
				f.cause = te.Unwrap()
			}
		}
		f.note(e, inCause)
		switch u := e.(type) {
		case interface{ Unwrap() []error }:
			kids := u.Unwrap()
			for i := len(kids) - 1; i >= 0; i-- { // so that the first is visited first
				stack = append(stack, kids[i])
			}
		case interface{ Unwrap() error }:
			stack = append(stack, u.Unwrap())
		case interface{ Cause() error }:
			stack = append(stack, u.Cause())
		}
	}
	return f, ""
}

// note adds what e says; inCause: e is in the chain the first public error wraps.
func (f *chainFacts) note(e error, inCause bool) {
	if t := reflect.TypeOf(e); f.nTypes < maxTypes && !slices.Contains(f.types[:f.nTypes], t) {
		f.types[f.nTypes] = t
		f.nTypes++
	}
	switch x := e.(type) {
	case *PanicError:
		f.panicked = true
	case *toolerr.ToolError:
		if retry, known, after := toolerr.RetryAdvice(x); known && f.byToolError == 0 {
			f.byToolError, f.retryAfter = onOff(retry), after
		}
	case interface{ Retryable() bool }:
		if retry, _, after := toolerr.RetryAdvice(e); f.byMethod == 0 {
			f.byMethod, f.methodAfter = onOff(retry), after
		}
	}
	if p, ok := e.(toolerr.PublicError); ok {
		switch {
		case f.public == nil:
			f.public = p
		case inCause && f.inner == nil && f.cause != nil:
			if te, ok := p.(*toolerr.ToolError); ok && te.ErrorCode() == codes.ToolFailed && te.Unwrap() != nil {
				f.through = append(f.through, te) // a helper's words over the failure explain nothing
			} else {
				f.inner = p
			}
		}
	}
	f.context = f.context || inCause && (e == context.Canceled || e == context.DeadlineExceeded)
	if f.valuer == nil {
		switch v := e.(type) {
		case *domain.Validation:
			f.valuer = validationView{v}
		case slog.LogValuer:
			f.valuer = v
		}
	}
	if _, ok := e.(fmt.Formatter); ok && f.formatter == nil {
		f.formatter = e
	}
	_, as := e.(interface{ As(any) bool })
	_, is := e.(interface{ Is(error) bool })
	f.custom = f.custom || as || is
}

func (f *chainFacts) advise() {
	switch {
	case f.byToolError != 0:
		f.adviceKnown, f.retryable = true, f.byToolError == 2
	case f.byMethod != 0:
		f.adviceKnown, f.retryable, f.retryAfter = true, f.byMethod == 2, f.methodAfter
	case f.context:
		f.adviceKnown, f.retryable, f.retryAfter = true, true, 0
	}
	if !f.retryable {
		f.retryAfter = 0
	}
}

// ask finds the facts of err again with errors.As, for a chain with an As
// or Is method, which the walk cannot follow.
func (f *chainFacts) ask(err error) {
	found := *f
	var pe *PanicError
	found.panicked = errors.As(err, &pe)
	found.public, found.cause, found.inner = nil, nil, nil
	if errors.As(err, &found.public) {
		if te, ok := found.public.(*toolerr.ToolError); ok {
			if cf, _ := scan(te.Unwrap()); !cf.opaque {
				found.cause, found.inner = te.Unwrap(), cf.public
				if it, ok := cf.public.(*toolerr.ToolError); ok && it.ErrorCode() == codes.ToolFailed && it.Unwrap() != nil {
					found.inner, found.through = cf.inner, append([]*toolerr.ToolError{it}, cf.through...)
				}
			}
		}
	} else {
		found.public = nil // an As method may set the target and answer false
	}
	found.byToolError, found.byMethod = 0, 0
	found.context = found.public != nil &&
		(errors.Is(found.public, context.Canceled) || errors.Is(found.public, context.DeadlineExceeded))
	var te *toolerr.ToolError
	if errors.As(err, &te) {
		if retry, known, after := toolerr.RetryAdvice(te); known {
			found.byToolError, found.retryAfter = onOff(retry), after
		}
	}
	var r interface {
		error
		Retryable() bool
	}
	if errors.As(err, &r) {
		retry, _, after := toolerr.RetryAdvice(r)
		found.byMethod, found.methodAfter = onOff(retry), after
	}
	found.adviceKnown = false
	found.advise()
	*f = found
}

type idKey struct {
	t reflect.Type
	p uintptr
	v any
}

// metBefore reports whether e is in seen, or adds it; maxChain ends a cycle of incomparables.
func metBefore(seen []idKey, e error) (out []idKey, met bool) {
	v := reflect.ValueOf(e)
	k := idKey{t: v.Type()}
	switch v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		k.p = v.Pointer()
	default:
		if !v.Type().Comparable() {
			return seen, false
		}
		k.v = e
	}
	if try(func() { met = slices.Contains(seen, k) }) != nil || met { // panics for an incomparable value
		return seen, met
	}
	return append(seen, k), false
}

// safeText returns err's text (err is never nil), bounded; a panic in Error is noted.
func safeText(err error) (text string) {
	if v := try(func() { text = bound(err.Error(), maxLogValue) }); v != nil {
		return fmt.Sprintf("<%T: its Error method panicked: %s>", err, safeSprint(v.Value))
	}
	return text
}

// safeSprint formats a panic value, bounded, whatever its methods do or however cyclic.
func safeSprint(v any) (s string) {
	if try(func() { s = sprint(v) }) != nil {
		return fmt.Sprintf("<%T>", v)
	}
	return s
}

func sprint(v any) string {
	switch x := v.(type) { // nil is fmt.Sprint's "<nil>", below
	case string:
		return bound(x, maxLogValue)
	case error:
		if f, e := scan(x); f.opaque {
			return e.Error()
		}
		return safeText(x)
	case fmt.Stringer:
		return bound(x.String(), maxLogValue)
	}
	switch reflect.ValueOf(v).Kind() {
	case reflect.Map, reflect.Slice, reflect.Array, reflect.Struct, reflect.Pointer, reflect.Interface:
		return bound(fmt.Sprint(boundAny(reflect.ValueOf(v), 0)), maxLogValue)
	}
	return bound(fmt.Sprint(v), maxLogValue)
}

func runeCut(s string, n int) string {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func bound(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := runeCut(s, max-40)
	return cut + "…(" + strconv.Itoa(len(s)-len(cut)) + " more bytes)"
}

// boundMessage cuts s to at most max bytes of valid UTF-8, which JSON does not grow.
func boundMessage(s string, max int) string {
	if s = strings.ToValidUTF8(s, "\uFFFD"); len(s) <= max {
		return s
	}
	return runeCut(s, max-len("…")) + "…"
}

func (f *chainFacts) typeNames() string {
	names := make([]string, 0, f.nTypes)
	for _, t := range f.types[:f.nTypes] {
		names = append(names, t.String())
	}
	return strings.Join(names, " ")
}

// validationView is the log view of a domain.Validation: its violations, values included.
type validationView struct{ v *domain.Validation }

// LogValue returns the view, bounded as boundValue bounds one, in one allocation.
func (w validationView) LogValue() slog.Value {
	if w.v == nil {
		return slog.GroupValue()
	}
	n := min(len(w.v.Violations), maxGroupAttrs)
	attrs := make([]slog.Attr, 3*n) // a group a field, then its two attributes
	for i, v := range w.v.Violations[:n] {
		inner := attrs[n+2*i : n+2*i+2 : n+2*i+2]
		inner[0] = slog.String("constraint", bound(v.Constraint, maxLogValue))
		inner[1] = slog.Attr{Key: "value", Value: boundValue(slog.AnyValue(v.Value), 1)}
		attrs[i] = slog.Attr{Key: bound(cmp.Or(v.Field, "(root)"), 256), Value: slog.GroupValue(inner...)}
	}
	return slog.GroupValue(attrs[:n]...)
}

func logView(v slog.LogValuer) (out slog.Value) {
	if w, ok := v.(validationView); ok {
		return w.LogValue() // bounded already
	}
	if r := try(func() { out = boundValue(v.LogValue(), 0) }); r != nil {
		return slog.StringValue("<LogValue panicked: " + safeSprint(r.Value) + ">")
	}
	return out
}

func boundValue(v slog.Value, depth int) slog.Value {
	v = v.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.StringValue(bound(v.String(), maxLogValue))
	case slog.KindGroup:
		if depth >= maxGroupDepth {
			return slog.StringValue("<group nested too deep>")
		}
		attrs := v.Group()
		out := make([]slog.Attr, min(len(attrs), maxGroupAttrs))
		for i := range out {
			out[i] = slog.Attr{Key: bound(attrs[i].Key, 256), Value: boundValue(attrs[i].Value, depth+1)}
		}
		return slog.GroupValue(out...)
	case slog.KindAny, slog.KindLogValuer:
		return slog.AnyValue(boundAny(reflect.ValueOf(v.Any()), depth))
	}
	return v
}

// boundAny returns a bounded copy of v: structs as JSON, errors as text, cycles cut.
func boundAny(v reflect.Value, depth int) any {
	if !v.IsValid() {
		return nil
	}
	if depth >= maxGroupDepth+2 {
		return "<nested too deep>"
	}
	if v.CanInterface() {
		if err, ok := v.Interface().(error); ok && (v.Kind() != reflect.Pointer || !v.IsNil()) {
			return safeText(err)
		}
	}
	switch k := v.Kind(); {
	case k >= reflect.Bool && k <= reflect.Complex128: // numbers and booleans
		return v.Interface()
	case k == reflect.String:
		return bound(v.String(), maxLogValue)
	case k == reflect.Interface || k == reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return boundAny(v.Elem(), depth+1)
	case k == reflect.Map:
		out := make(map[string]any, min(v.Len(), maxGroupAttrs))
		for iter := v.MapRange(); iter.Next(); {
			if len(out) == maxGroupAttrs {
				out["…"] = strconv.Itoa(v.Len()-maxGroupAttrs) + " more"
				break
			}
			out[bound(fmt.Sprint(boundAny(iter.Key(), depth+1)), 256)] = boundAny(iter.Value(), depth+1)
		}
		return out
	case k == reflect.Slice || k == reflect.Array:
		if k == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			return bound(string(v.Bytes()), maxLogValue)
		}
		n := min(v.Len(), maxGroupAttrs)
		out := make([]any, n, n+1)
		for i := range n {
			out[i] = boundAny(v.Index(i), depth+1)
		}
		if v.Len() > n {
			out = append(out, strconv.Itoa(v.Len()-n)+" more")
		}
		return out
	case k == reflect.Struct:
		if v.CanInterface() {
			return jsonText(v.Interface()) // not an error: the check above took those
		}
	}
	return "<" + v.Type().String() + ">"
}

// jsonText returns v as bounded JSON, or why not; encoding/json refuses cycles.
func jsonText(v any) string {
	var b []byte
	var err error
	if try(func() { b, err = json.Marshal(v) }) != nil {
		return fmt.Sprintf("<%T: cannot be encoded>", v)
	}
	if err != nil {
		return fmt.Sprintf("<%T: %s>", v, bound(err.Error(), 200))
	}
	return bound(string(b), maxLogValue)
}
