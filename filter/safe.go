package filter

import (
	"cmp"
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/toolerr"
)

// Limits that keep the pipeline total and its output bounded, whatever an
// error, a filter or a client does. The package documentation states them.
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

// PanicError is a recovered panic: of a handler, which the adapters hand
// to Pipeline.Handle, or of a filter. It is always masked: the client never
// reads the panic value. Its Stack reaches the log. Filters and observers
// find it with errors.As.
type PanicError struct {
	// Value is what was passed to panic.
	Value any
	// Stack is the goroutine's stack where the panic was recovered.
	Stack []byte
}

// Error returns "panic: " and the value, bounded, even if the value is
// cyclic or its own methods panic.
func (e *PanicError) Error() string { return "panic: " + safeSprint(e.Value) }

// recovered turns the value of recover(), in the deferred function, into a *PanicError.
func recovered(v any) error { return &PanicError{Value: v, Stack: debug.Stack()} }

func noPanic[T any](fn func() T) (v T) {
	defer func() { _ = recover() }()
	return fn()
}

// opaqueError stands for an error whose chain cannot be walked safely. It
// has no Unwrap, so that nothing walks it again; it is always masked.
type opaqueError struct{ text string }

func (e *opaqueError) Error() string { return e.text }

type logValuerError interface {
	error
	slog.LogValuer
}

// chainFacts is what one walk of an error chain finds, in the order
// errors.As visits it: depth first, each error before what it wraps.
type chainFacts struct {
	panicked  bool                // a *PanicError is in the chain
	public    toolerr.PublicError // the first public error
	valuer    slog.LogValuer      // the first error with a log view
	custom    bool                // an error has an As or Is method of its own
	formatter error               // the first fmt.Formatter, whose %+v may hold a stack

	types  [maxTypes]reflect.Type // the types met, each once, in order
	nTypes int
}

// scan walks the chain of err once, through Unwrap and Cause, and reports
// what it finds, or why it cannot: too long, cyclic, or a method panics.
func scan(err error) (f chainFacts, reason string) {
	defer func() {
		if v := recover(); v != nil {
			reason = "an Unwrap or Cause method panicked: " + safeSprint(v)
		}
	}()
	var seenBuf [16]idKey
	var stackBuf [16]error
	seen, stack := seenBuf[:0], append(stackBuf[:0], err)
	for n := 0; len(stack) > 0; n++ {
		if n >= maxChain {
			return f, "the chain has more than " + strconv.Itoa(maxChain) + " errors"
		}
		e := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if e == nil {
			continue
		}
		var met bool
		if seen, met = metBefore(seen, e); met {
			return f, "the chain is cyclic: " + reflect.TypeOf(e).String() + " is met twice"
		}
		f.note(e)
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

func (f *chainFacts) note(e error) {
	if t := reflect.TypeOf(e); f.nTypes < maxTypes && !slices.Contains(f.types[:f.nTypes], t) {
		f.types[f.nTypes] = t
		f.nTypes++
	}
	if _, ok := e.(*PanicError); ok {
		f.panicked = true
	}
	if p, ok := e.(toolerr.PublicError); ok && f.public == nil {
		f.public = p
	}
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

// idKey identifies an error in a chain: by type and address for a pointer,
// by value for another comparable type.
type idKey struct {
	t reflect.Type
	p uintptr
	v any
}

// metBefore reports whether e is in seen, and adds it if not; an
// incomparable value never is: maxChain ends a cycle through it.
func metBefore(seen []idKey, e error) (out []idKey, met bool) {
	defer func() {
		if recover() != nil {
			out, met = seen, false // a comparable type holding an incomparable value
		}
	}()
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
	if slices.Contains(seen, k) {
		return seen, true
	}
	return append(seen, k), false
}

// safeText returns the text of err, bounded, without letting a panic in
// its Error method escape. err is never nil: Handle returns early for nil.
func safeText(err error) (text string) {
	defer func() {
		if v := recover(); v != nil {
			text = fmt.Sprintf("<%T: its Error method panicked: %s>", err, safeSprint(v))
		}
	}()
	return bound(err.Error(), maxLogValue)
}

// safeSprint formats a panic value, bounded, without letting its methods
// panic or walking a cycle.
func safeSprint(v any) (s string) {
	defer func() {
		if recover() != nil {
			s = fmt.Sprintf("<%T>", v)
		}
	}()
	switch x := v.(type) { // nil is fmt.Sprint's "<nil>", below
	case string:
		return bound(x, maxLogValue)
	case error:
		if _, reason := scan(x); reason != "" {
			return reflect.TypeOf(x).String() + " (not walked: " + reason + ")"
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

// runeCut cuts s to its first n bytes, or fewer, on a rune boundary.
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

// boundMessage cuts a message for the client to at most max bytes of valid
// UTF-8, so that JSON does not grow it either.
func boundMessage(s string, max int) string {
	if s = strings.ToValidUTF8(s, "\uFFFD"); len(s) <= max {
		return s
	}
	return runeCut(s, max-len("…")) + "…"
}

// typeNames names the Go types of the chain, in the order scan met them:
// what a redacted record keeps of an error's shape.
func (f *chainFacts) typeNames() string {
	names := make([]string, 0, f.nTypes)
	for _, t := range f.types[:f.nTypes] {
		names = append(names, t.String())
	}
	return strings.Join(names, " ")
}

// validationView is the log view of a domain.Validation (which imports no
// logging package): every violation, its value included, by field.
type validationView struct{ v *domain.Validation }

// LogValue implements slog.LogValuer.
func (w validationView) LogValue() slog.Value {
	if w.v == nil {
		return slog.GroupValue()
	}
	attrs := make([]slog.Attr, min(len(w.v.Violations), maxGroupAttrs))
	for i := range attrs {
		v := w.v.Violations[i]
		attrs[i] = slog.Group(cmp.Or(v.Field, "(root)"), slog.String("constraint", v.Constraint), slog.Any("value", v.Value))
	}
	return slog.GroupValue(attrs...)
}

// logView returns the log view of v, bounded, without letting a panic
// escape, so that no value can crash or flood the log handler.
func logView(v slog.LogValuer) (out slog.Value) {
	defer func() {
		if r := recover(); r != nil {
			out = slog.StringValue("<LogValue panicked: " + safeSprint(r) + ">")
		}
	}()
	return boundValue(v.LogValue(), 0)
}

// boundValue bounds a log value: strings cut to maxLogValue, groups at
// most maxGroupDepth deep and maxGroupAttrs wide, other values as boundAny.
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

// boundAny returns a bounded copy of v for the log: structs as JSON, errors
// as text; a cycle ends at the depth limit.
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
	switch v.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return v.Interface()
	case reflect.String:
		return bound(v.String(), maxLogValue)
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return boundAny(v.Elem(), depth+1)
	case reflect.Map:
		out := make(map[string]any, min(v.Len(), maxGroupAttrs))
		for iter := v.MapRange(); iter.Next(); {
			if len(out) == maxGroupAttrs {
				out["…"] = strconv.Itoa(v.Len()-maxGroupAttrs) + " more"
				break
			}
			out[bound(fmt.Sprint(boundAny(iter.Key(), depth+1)), 256)] = boundAny(iter.Value(), depth+1)
		}
		return out
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
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
	case reflect.Struct:
		if v.CanInterface() {
			return jsonText(v.Interface()) // not an error: the check above took those
		}
	}
	return "<" + v.Type().String() + ">"
}

// jsonText returns v as bounded JSON, or a note saying why it has none.
// encoding/json refuses cyclic values, so a cycle cannot overflow the stack.
func jsonText(v any) (s string) {
	defer func() {
		if r := recover(); r != nil {
			s = fmt.Sprintf("<%T: cannot be encoded>", v)
		}
	}()
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("<%T: %s>", v, bound(err.Error(), 200))
	}
	return bound(string(b), maxLogValue)
}
