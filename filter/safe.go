package filter

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
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
)

// maxGroupDepth and maxGroupAttrs bound the log view of a domain error.
const (
	maxGroupDepth = 4
	maxGroupAttrs = 64
)

// opaqueError stands for an error whose chain the pipeline cannot walk
// safely: cyclic, longer than maxChain, or with an Unwrap that panics. It
// has no Unwrap, so that filters and the built-in mapping see it alone, and
// it is always masked.
type opaqueError struct {
	text string // the error's type, and why its chain was not walked
}

func (e *opaqueError) Error() string { return e.text }

// chainFacts is what one walk of an error chain finds, in the order
// errors.As and errors.Is visit it: depth first, each error before what it
// wraps, the errors of a join in order.
type chainFacts struct {
	panicked  bool                // a *PanicError is in the chain
	public    toolerr.PublicError // the first public error
	valuer    slog.LogValuer      // the first error with a log view
	custom    bool                // an error has an As or Is method of its own
	formatter error               // the first fmt.Formatter, whose %+v may hold a stack

	types  [maxTypes]reflect.Type // the types met, each once, in order
	nTypes int
}

// scan walks the chain of err once, and reports what it finds, or why the
// chain cannot be walked safely: it visits every error reachable through
// Unwrap() error, Unwrap() []error and Cause() error, at most maxChain of
// them, recovers a panic in any of those methods, and notices an error met
// twice. A short chain of pointers costs no allocation.
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

// note records what e is.
func (f *chainFacts) note(e error) {
	if t := reflect.TypeOf(e); f.nTypes < maxTypes && !slices.Contains(f.types[:f.nTypes], t) {
		f.types[f.nTypes] = t
		f.nTypes++
	}
	if _, ok := e.(*PanicError); ok {
		f.panicked = true
	}
	if f.public == nil {
		if p, ok := e.(toolerr.PublicError); ok {
			f.public = p
		}
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
	if _, ok := e.(interface{ As(any) bool }); ok {
		f.custom = true
	}
	if _, ok := e.(interface{ Is(error) bool }); ok {
		f.custom = true
	}
}

// slowFacts finds what the mapping needs with errors.As and errors.Is, for
// a chain with an error that has its own As or Is method.
func slowFacts(err error) chainFacts {
	var f chainFacts
	var pe *PanicError
	f.panicked = errors.As(err, &pe)
	f.custom = true
	var pub toolerr.PublicError
	if errors.As(err, &pub) {
		f.public = pub
	}
	var val *domain.Validation
	var lv interface {
		error
		slog.LogValuer
	}
	switch {
	case errors.As(err, &val):
		f.valuer = validationView{val}
	case errors.As(err, &lv):
		f.valuer = lv
	}
	var fm interface {
		error
		fmt.Formatter
	}
	if errors.As(err, &fm) {
		f.formatter = fm
	}
	return f
}

// inspect reports why the chain of err cannot be walked safely, or "".
func inspect(err error) string {
	_, reason := scan(err)
	return reason
}

// idKey identifies an error in a chain: by type and address for a pointer,
// by value for another comparable type.
type idKey struct {
	t reflect.Type
	p uintptr
	v any
}

// metBefore reports whether e is in seen, and adds it if not. A value that
// cannot be compared is never met before: only maxChain ends a cycle
// through it.
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
	for _, x := range seen {
		if x == k {
			return seen, true
		}
	}
	return append(seen, k), false
}

// safeText returns the text of err, at most maxLogValue bytes long, without
// letting a panic in its Error method escape.
func safeText(err error) (text string) {
	if err == nil {
		return "<nil>"
	}
	defer func() {
		if v := recover(); v != nil {
			text = fmt.Sprintf("<%T: its Error method panicked: %s>", err, safeSprint(v))
		}
	}()
	return bound(err.Error(), maxLogValue)
}

// safeSprint formats a panic value without letting its own methods panic
// and without walking a cyclic value: an error whose chain cannot be walked
// safely gives its type, and a map, slice, struct or pointer is printed as
// its bounded, acyclic copy.
func safeSprint(v any) (s string) {
	defer func() {
		if recover() != nil {
			s = fmt.Sprintf("<%T>", v)
		}
	}()
	switch x := v.(type) {
	case nil:
		return "<nil>"
	case string:
		return bound(x, maxLogValue)
	case error:
		if reason := inspect(x); reason != "" {
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

// bound cuts s to at most max bytes, on a rune boundary, saying how much was
// cut.
func bound(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max - 40
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…(" + strconv.Itoa(len(s)-cut) + " more bytes)"
}

// boundMessage cuts a message for the client to at most max bytes of valid
// UTF-8, so that JSON does not grow it either.
func boundMessage(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= max {
		return s
	}
	cut := max - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// maxTypes bounds the types of a chain the record of a redacted failure
// names.
const maxTypes = 16

// typeNames names the Go types of the errors of the chain, in the order
// scan visited them, each once: what a redacted record keeps of an
// error's shape.
func (f *chainFacts) typeNames() string {
	names := make([]string, 0, f.nTypes)
	for _, t := range f.types[:f.nTypes] {
		names = append(names, t.String())
	}
	return strings.Join(names, " ")
}

// validationView is the log view of a domain.Validation: every violation,
// its value included, grouped by field ("(root)" for the arguments as a
// whole). The domain package imports no logging package; its log view is
// built here.
type validationView struct{ v *domain.Validation }

// LogValue implements slog.LogValuer.
func (w validationView) LogValue() slog.Value {
	if w.v == nil {
		return slog.GroupValue()
	}
	attrs := make([]slog.Attr, min(len(w.v.Violations), maxGroupAttrs))
	for i := range attrs {
		v := w.v.Violations[i]
		key := v.Field
		if key == "" {
			key = "(root)"
		}
		attrs[i] = slog.Group(key, slog.String("constraint", v.Constraint), slog.Any("value", v.Value))
	}
	return slog.GroupValue(attrs...)
}

// logView returns the log view of a slog.LogValuer, resolved without
// letting a panic escape, and bounded: strings cut to maxLogValue, groups
// at most maxGroupDepth deep and maxGroupAttrs wide, and any other value
// turned into bounded JSON, so that a cyclic or enormous value cannot crash
// or flood the log handler.
func logView(v slog.LogValuer) (out slog.Value) {
	defer func() {
		if r := recover(); r != nil {
			out = slog.StringValue("<LogValue panicked: " + safeSprint(r) + ">")
		}
	}()
	return boundValue(v.LogValue(), 0)
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
		if len(attrs) > maxGroupAttrs {
			attrs = attrs[:maxGroupAttrs]
		}
		out := make([]slog.Attr, len(attrs))
		for i, a := range attrs {
			out[i] = slog.Attr{Key: bound(a.Key, 256), Value: boundValue(a.Value, depth+1)}
		}
		return slog.GroupValue(out...)
	case slog.KindAny, slog.KindLogValuer:
		return slog.AnyValue(boundAny(reflect.ValueOf(v.Any()), depth))
	}
	return v
}

// boundAny returns a bounded, acyclic copy of v for the log: strings cut,
// maps and slices at most maxGroupAttrs long and maxGroupDepth deep, structs
// as their JSON, errors as their text. A cycle ends at the depth limit.
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
		iter := v.MapRange()
		for iter.Next() {
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
			return jsonText(v.Interface())
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
	if err, ok := v.(error); ok {
		return safeText(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("<%T: %s>", v, bound(err.Error(), 200))
	}
	return bound(string(b), maxLogValue)
}
