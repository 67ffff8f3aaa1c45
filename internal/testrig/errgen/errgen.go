// Package errgen builds errors from fuzz input, for the fuzz tests of the
// pipeline and of the adapters. It is used only by tests.
//
// The input is read as a little program (see Source): a count of
// operations, a leaf error, then wrappers applied to it, each chosen by one
// byte of the program's structure, their text and sizes read from a separate
// stream of parameters. Every byte string decodes to some error, and input
// that runs out reads as zeros, so the fuzzer can mutate freely. errgen does
// not import filter, so that the internal test of filter can use it.
//
// Every place the client must never see (a plain error's text, a wrapper's
// message, a panic value, a Validation's value, an Authorization's
// permission and subject, a ToolError's cause, a hint below a cause, an
// issue link) holds Canary. Text that comes from the input and goes to
// public places (a ToolError's message, a domain error's public fields, a
// hint at the top) never holds Marker, so a Marker in anything a client
// receives is a piece of the canary: a leak, even of a canary cut short.
package errgen

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"reflect"
	"strings"
	"time"

	crdb "github.com/cockroachdb/errors"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/toolerr"
)

// Marker is the byte that only Canary contains: input text has it replaced.
const Marker = '~'

// Canary is planted in every private place. Any two bytes of it contain
// Marker.
const Canary = "~s~3~c~R~3~t~"

// Leaked reports whether s, something a client received, holds the canary
// or a piece of it.
func Leaked(s string) bool { return strings.IndexByte(s, Marker) >= 0 }

// Source reads the fuzz input as two streams: the program's structure (how
// many operations, which ones, which variant of each) and the parameters
// (text, sizes, numbers). The first byte of the input is the length of the
// structure; the parameters follow it. Keeping them apart lets a seed name
// its operations without counting the bytes of their parameters, and lets
// the fuzzer change a text without changing the program. A stream that runs
// out reads zeros.
type Source struct {
	ops, params stream
}

type stream struct {
	data []byte
	pos  int
}

func (s *stream) byte() byte {
	if s.pos >= len(s.data) {
		return 0
	}
	b := s.data[s.pos]
	s.pos++
	return b
}

// NewSource returns a Source reading data.
func NewSource(data []byte) *Source {
	if len(data) == 0 {
		return &Source{}
	}
	n := min(int(data[0]), len(data)-1)
	return &Source{ops: stream{data: data[1 : 1+n]}, params: stream{data: data[1+n:]}}
}

// Encode returns the input that a Source reads as the structure ops and the
// parameters params. ops is cut to 255 bytes.
func Encode(ops, params []byte) []byte {
	ops = ops[:min(len(ops), 255)]
	out := make([]byte, 0, 1+len(ops)+len(params))
	out = append(out, byte(len(ops)))
	out = append(out, ops...)
	return append(out, params...)
}

// Op reads a choice in [0, n) from the structure.
func (s *Source) Op(n int) int {
	if n <= 1 {
		return 0
	}
	return int(s.ops.byte()) % n
}

// Byte reads one parameter byte.
func (s *Source) Byte() byte { return s.params.byte() }

// Intn reads a parameter in [0, n): one byte for n up to 256, two otherwise.
func (s *Source) Intn(n int) int {
	switch {
	case n <= 1:
		return 0
	case n <= 256:
		return int(s.Byte()) % n
	}
	return (int(s.Byte())<<8 | int(s.Byte())) % n
}

// Bool reads a parameter bit.
func (s *Source) Bool() bool { return s.Byte()&1 == 1 }

// Text reads public text from the parameters: a length byte, at most max,
// then that many bytes, any Marker replaced. The bytes need not be UTF-8.
func (s *Source) Text(max int) string {
	n := s.Intn(max + 1)
	var b strings.Builder
	for range n {
		c := s.Byte()
		if c == Marker {
			c = '-'
		}
		b.WriteByte(c)
	}
	return b.String()
}

// Leaves are the first operation of a program: the innermost error.
const (
	LeafText            = iota // errors.New(private text)
	LeafCanceled               // context.Canceled under a private wrapper
	LeafDeadline               // context.DeadlineExceeded under a private wrapper
	LeafPanic                  // a *filter.PanicError with a private value
	LeafNotFound               // domain.NotFound, maybe with a private cause
	LeafValidation             // domain.Validation with private values
	LeafAuthorization          // domain.Authorization, both fields private
	LeafBusinessRule           // domain.BusinessRule, code from the set, context of any shape
	LeafConflict               // domain.Conflict with a private cause
	LeafUnauthenticated        // domain.Unauthenticated with a private reason
	LeafRateLimited            // domain.RateLimited with a private limit
	LeafToolError              // toolerr.New(public) with any With*
	LeafHostile                // an error that fights back, see Hostile*
	LeafDeep                   // a chain of up to ChainLimit+10 wrappers
	LeafHuge                   // up to 100 KiB of private text
	LeafHugePublic             // a ToolError with an enormous message and hint
	LeafCockroach              // cockroachdb/errors New, Newf, AssertionFailedf
	NumLeaves
)

// Wrappers are the later operations of a program: each wraps the error so
// far.
const (
	WrapFmt        = iota // fmt.Errorf("private: %w")
	WrapFmt2              // fmt.Errorf("%w %w") with a second generated error
	WrapJoin              // errors.Join with a second generated error, maybe nil
	WrapHint              // crdb.WithHint with a public hint
	WrapCrdb              // crdb.Wrap with a private message
	WrapIssueLink         // crdb.WithIssueLink with a private link
	WrapStack             // crdb.WithStack
	WrapToolError         // toolerr.New(public)...WithCause(e)
	WrapToolErrorf        // toolerr.New(public).WithCause(e) and nothing else
	WrapHintBelow         // a private hint, then a layer that is not a hint layer
	WrapDomain            // domain.NotFound or Conflict with cause e
	WrapPanic             // a *filter.PanicError whose value is e
	WrapCrdbMisc          // crdb.WithDetail, WithSecondaryError, Handled, WithMessage, ...
	WrapCustom            // a wrapper type with only Unwrap, or only Cause
	WrapDeep              // many wrappers at once
	WrapCycle             // a cycle through e
	NumWraps
)

// Hostile errors, chosen by the byte after LeafHostile.
const (
	HostileErrorPanics     = iota // Error panics
	HostileNilErrorPanics         // a typed nil whose Error panics
	HostileSelf                   // Unwrap returns itself
	HostilePingPong               // two errors unwrap to each other
	HostileJoinSelf               // Unwrap() []error holds itself
	HostileValueCycle             // a value type that unwraps to itself
	HostileUnwrapPanics           // Unwrap panics
	HostileCauseCycle             // Cause() returns itself
	HostileNilNotFound            // a typed nil *domain.NotFound
	HostileNilToolError           // a typed nil *toolerr.ToolError
	HostileCodePanics             // a public error whose ErrorCode panics
	HostileEmptyMessage           // a public error with an empty message
	HostileDetailsPanic           // a public error whose PublicDetails panics
	HostileIsPanics               // Is panics
	HostileAsPanics               // As panics
	HostileRetryablePanics        // a public error whose Retryable panics
	HostileUnwrapNil              // Unwrap returns a typed nil whose Error panics
	HostileBadDetails             // a public error with details JSON cannot encode
	HostileEndless                // Unwrap returns a new error every time
	HostileFanOut                 // Unwrap() []error returns hundreds of errors
	HostileSliceCycle             // an incomparable value type unwrapping to itself
	HostileHugeText               // Error returns an enormous private text
	NumHostile
)

// Config configures a Gen.
type Config struct {
	// Panic returns the *filter.PanicError of a panic value, with a stack.
	// errgen cannot import filter: the internal test of filter uses it.
	Panic func(v any) error
	// ChainLimit is the number of errors of one chain the pipeline walks
	// (256; unexported in filter), for the same reason.
	ChainLimit int
	// MaxOps bounds the operations of one program; 12 if zero.
	MaxOps int
}

// Gen builds errors from a Source.
type Gen struct {
	src   *Source
	cfg   Config
	depth int

	// textless holds, by identity, the errors made whose Error does not
	// return; see TextSafe.
	textless map[any]bool
	// cyclicValue is set by PanicValue when it returns a cyclic value.
	cyclicValue bool

	// Used names the operations the programs so far used, such as
	// "leaf/3", "wrap/0" and "hostile/7", for tests of seed coverage.
	Used map[string]bool

	// PublicInternal is set when a public place (a ToolError's code, a
	// business rule, a public error's code) was given INTERNAL_ERROR or
	// the empty code, so that a client may legitimately read an
	// INTERNAL_ERROR that is not the masked one.
	PublicInternal bool
}

// New returns a Gen reading src.
func New(src *Source, cfg Config) *Gen {
	if cfg.MaxOps == 0 {
		cfg.MaxOps = 12
	}
	if cfg.ChainLimit == 0 {
		cfg.ChainLimit = 256
	}
	if cfg.Panic == nil {
		cfg.Panic = func(v any) error { return fmt.Errorf("panic: %v", v) }
	}
	return &Gen{src: src, cfg: cfg}
}

// Source returns the source g reads.
func (g *Gen) Source() *Source { return g.src }

// Error builds one error. It is never nil.
func (g *Gen) Error() error {
	g.depth++
	defer func() { g.depth-- }()
	ops := g.cfg.MaxOps
	switch {
	case g.depth > 4:
		ops = 1 // joins of joins end
	case g.depth > 1:
		ops = 3 // a second error, for a join, is smaller
	}
	n := 1 + g.src.Op(ops)
	e := g.safely(nil, g.leaf)
	for i := 1; i < n; i++ {
		e = g.safely(e, func() error { return g.wrap(e) })
	}
	return e
}

// safely runs an operation, keeping prev if it panics: fmt.Errorf calls the
// Error method of its operand, which may panic. The result is never nil.
func (g *Gen) safely(prev error, op func() error) (e error) {
	defer func() {
		if recover() != nil || e == nil {
			e = prev
			if e == nil {
				e = errors.New("leaf " + Canary)
			}
		}
	}()
	return op()
}

// Public reads public text.
func (g *Gen) Public(max int) string { return g.src.Text(max) }

// Private reads text and puts the canary in it, at its start, middle or end.
func (g *Gen) Private(max int) string {
	t := g.src.Text(max)
	switch g.src.Intn(3) {
	case 0:
		return Canary + t
	case 1:
		return t[:len(t)/2] + Canary + t[len(t)/2:]
	}
	return t + Canary
}

// CodeSet are the codes the generator draws from: built-in ones, one the
// fuzz tests register (INVENTORY_EXHAUSTED, business; GATEWAY_DOWN, server),
// well-formed unregistered ones, malformed ones (one longer than a log value
// may be), the empty code and one with the canary.
var CodeSet = []codes.Code{
	"",
	codes.NotFound,
	codes.ValidationError,
	codes.InternalError,
	codes.ExternalServiceError,
	codes.ToolFailed,
	codes.BusinessRuleViolation,
	codes.Cancelled,
	codes.RateLimited,
	codes.Unavailable,
	codes.DatabaseError,
	"INVENTORY_EXHAUSTED",
	"GATEWAY_DOWN",
	"WIDGET_JAMMED",
	"not a code",
	"lower_case",
	"SECRET_" + Canary,
	codes.Code(strings.Repeat("A", 200)),
	codes.Code(strings.Repeat("B", 20<<10)), // longer than a logged value's bound, 8 KiB
}

// Registry returns a registry knowing the built-in codes, INVENTORY_EXHAUSTED
// (business) and GATEWAY_DOWN (server, retryable).
func Registry() *codes.Registry {
	r, err := codes.NewRegistry(
		codes.Info{Code: "INVENTORY_EXHAUSTED", Category: codes.Business, Description: "Not enough stock."},
		codes.Info{Code: "GATEWAY_DOWN", Category: codes.Server, Retryable: true, Description: "The gateway is down."},
	)
	if err != nil {
		panic(err)
	}
	return r
}

// Code reads a code from CodeSet for a public place.
func (g *Gen) Code() codes.Code {
	c := CodeSet[g.src.Op(len(CodeSet))]
	if c == codes.InternalError {
		g.PublicInternal = true
	}
	return c
}

// ResponseCode reads a code from CodeSet for a place where the empty code
// becomes INTERNAL_ERROR: a filter's Response, a public error's ErrorCode.
func (g *Gen) ResponseCode() codes.Code {
	c := g.Code()
	if c == "" {
		g.PublicInternal = true
	}
	return c
}

// Details reads public details of any shape: nil, small, too large, or
// impossible to encode.
func (g *Gen) Details() map[string]any {
	switch g.src.Op(8) {
	case 0:
		return nil
	case 1:
		return map[string]any{"k": g.Public(40), "n": g.src.Intn(1000), "ok": g.src.Bool()}
	case 2:
		return map[string]any{"big": strings.Repeat(g.Public(8)+"x", 1+g.src.Intn(40000))}
	case 3:
		return map[string]any{"ch": make(chan int)}
	case 4:
		m := map[string]any{"k": g.Public(10)}
		m["self"] = m
		return m
	case 5:
		return map[string]any{"bad": panicJSON{}}
	case 6:
		return map[string]any{"nan": math.NaN()}
	}
	m := map[string]any{}
	for i := range g.src.Intn(300) {
		m[fmt.Sprint("key", i)] = g.Public(20)
	}
	return m
}

// panicJSON panics when encoded, with the canary.
type panicJSON struct{}

func (panicJSON) MarshalJSON() ([]byte, error) { panic("MarshalJSON " + Canary) }

var _ json.Marshaler = panicJSON{}

// panicError returns the *filter.PanicError of v, remembering it as
// textless unless its text is safe.
func (g *Gen) panicError(v any, safe bool) error {
	e := g.cfg.Panic(v)
	if !safe {
		if k, ok := identity(e); ok {
			if g.textless == nil {
				g.textless = map[any]bool{}
			}
			g.textless[k] = true
		}
	}
	return e
}

// PanicValue reads a private panic value. A cyclic map among them makes
// fmt, and so the Error of a *filter.PanicError, recurse until the stack
// overflows.
func (g *Gen) PanicValue() any {
	g.cyclicValue = false
	switch g.src.Op(7) {
	case 0:
		return g.Private(30)
	case 1:
		return errors.New(g.Private(30))
	case 2:
		return toolerr.New(g.Private(30)) // a public error, but panicked with
	case 3:
		return stringPanics{}
	case 4:
		m := map[string]any{"secret": Canary}
		m["self"] = m
		g.cyclicValue = true
		return m
	case 5:
		return nil
	}
	return strings.Repeat(Canary, 1+g.src.Intn(12000))
}

// stringPanics is a panic value whose String panics.
type stringPanics struct{}

func (stringPanics) String() string { panic("String " + Canary) }

// toolError reads a ToolError with any of the With methods, cause among them
// when cause is not nil.
func (g *Gen) toolError(msg string, cause error) *toolerr.ToolError {
	e := toolerr.New(msg)
	flags := g.src.Op(256)
	if flags&1 != 0 {
		e = e.WithCode(g.Code())
	}
	if flags&2 != 0 {
		e = e.WithHint(g.Public(60))
	}
	if flags&4 != 0 {
		e = e.WithDetails(g.Details())
	}
	if flags&8 != 0 {
		e = e.WithRetryable(flags&16 != 0)
	}
	if cause != nil {
		e = e.WithCause(cause)
	}
	return e
}

// use records that the program used the operation i of kind.
func (g *Gen) use(kind string, i int) int {
	if g.Used == nil {
		g.Used = make(map[string]bool)
	}
	g.Used[fmt.Sprint(kind, "/", i)] = true
	return i
}

func (g *Gen) leaf() error {
	switch g.use("leaf", g.src.Op(NumLeaves)) {
	case LeafText:
		return errors.New(g.Private(60))
	case LeafCanceled:
		return fmt.Errorf("%s: %w", g.Private(20), context.Canceled)
	case LeafDeadline:
		return fmt.Errorf("%s: %w", g.Private(20), context.DeadlineExceeded)
	case LeafPanic:
		v := g.PanicValue()
		return g.panicError(v, !g.cyclicValue)
	case LeafNotFound:
		e := domain.NewNotFound(g.Public(30), g.Public(30))
		if g.src.Op(2) == 1 {
			e.Cause = errors.New(g.Private(20))
		}
		return e
	case LeafValidation:
		return g.validation()
	case LeafAuthorization:
		return domain.NewAuthorization(g.Private(20), g.Private(20))
	case LeafBusinessRule:
		return domain.NewBusinessRule(g.Code(), g.Public(60), g.Details())
	case LeafConflict:
		return &domain.Conflict{Resource: g.Public(20), Message: g.Public(40), Cause: errors.New(g.Private(20))}
	case LeafUnauthenticated:
		return &domain.Unauthenticated{Reason: g.Private(20)}
	case LeafRateLimited:
		d := time.Duration(g.src.Intn(1<<16)) * time.Millisecond
		switch g.src.Op(4) {
		case 0:
			d = -d
		case 1:
			d = math.MaxInt64
		}
		return &domain.RateLimited{RetryAfter: d, Limit: g.Private(20)}
	case LeafToolError:
		var cause error
		if g.src.Op(2) == 1 {
			cause = errors.New(g.Private(20))
		}
		return g.toolError(g.Public(60), cause)
	case LeafHostile:
		return g.hostile()
	case LeafDeep:
		return g.deep(errors.New(g.Private(20)))
	case LeafHuge:
		return errors.New(g.huge())
	case LeafHugePublic:
		n := 1 + g.size(100<<10)
		text := strings.Repeat(g.Public(4)+"é", n/3+1)
		return toolerr.New(text).WithHint(text)
	case LeafCockroach:
		switch g.src.Op(3) {
		case 0:
			return crdb.New(g.Private(30))
		case 1:
			return crdb.Newf("failed %s", g.Private(30))
		}
		return crdb.AssertionFailedf("invariant %s", g.Private(30))
	}
	panic("unreachable")
}

// size reads a size: with the structure's choice 0, any size below max from
// the parameters; otherwise one of the boundaries, or for sizes of text
// (no boundaries given) one around MaxLogValue, MaxMessage or 100 KiB.
func (g *Gen) size(max int, boundaries ...int) int {
	if len(boundaries) == 0 {
		boundaries = []int{8<<10 - 1, 8 << 10, 8<<10 + 1, 16<<10 - 1, 16 << 10, 16<<10 + 1, 100 << 10}
	}
	if i := g.src.Op(len(boundaries) + 1); i > 0 {
		return boundaries[i-1]
	}
	return g.src.Intn(max)
}

// huge returns up to 100 KiB of private text with the canary at its start,
// middle and end, so that a cut anywhere still leaves one.
func (g *Gen) huge() string {
	n := g.size(100 << 10)
	unit := g.Public(4) + "x"
	fill := strings.Repeat(unit, n/len(unit)+1)[:n]
	return Canary + fill[:n/2] + Canary + fill[n/2:] + Canary
}

// validation reads a Validation whose values are private.
func (g *Gen) validation() error {
	v := &domain.Validation{}
	for range g.src.Op(4) + 1 {
		var value any
		switch g.src.Op(7) {
		case 0:
			value = g.Private(30)
		case 1:
			value = g.huge()
		case 2:
			value = map[string]any{"password": Canary, "n": 1}
		case 3:
			m := map[string]any{"secret": Canary}
			m["self"] = m
			value = m
		case 4:
			value = []byte(g.Private(10))
		case 5:
			value = errors.New(g.Private(10))
		case 6:
			value = struct{ Secret string }{Canary}
		}
		v.Violations = append(v.Violations, domain.Violation{Field: g.Public(20), Constraint: g.Public(40), Value: value})
	}
	return v
}

// deep wraps e in up to ChainLimit+10 layers.
func (g *Gen) deep(e error) error {
	n := g.size(g.cfg.ChainLimit+11, g.cfg.ChainLimit-2, g.cfg.ChainLimit-1, g.cfg.ChainLimit, g.cfg.ChainLimit+1, g.cfg.ChainLimit+10)
	crdbLayers := g.src.Op(2) == 1
	walkable := g.TextSafe(e)
	for i := range n {
		switch {
		case crdbLayers:
			e = crdb.Wrapf(e, "layer %d", i)
		case !walkable:
			e = &unwrapper{msg: fmt.Sprintf("layer %d %s", i, Canary), err: e}
		default:
			e = fmt.Errorf("layer %d %s: %w", i, Canary, e)
		}
	}
	return e
}

// TextSafe reports whether the Error of err, an error g made, returns: the
// chain of err ends (no error met twice through Unwrap() error,
// Unwrap() []error or Cause(), at most 4*ChainLimit errors, no Unwrap or
// Cause that panics), and holds none of the errors g made whose text does
// not end, such as a *filter.PanicError whose value is a cyclic map (fmt
// prints it until the stack overflows). cockroachdb/errors computes its
// Error by walking the chain, so a cycle under one of its wrappers makes
// Error recurse until the stack overflows, which no recover stops. Only the
// code under test may meet such an error: the generator and the tests must
// not call its Error.
func (g *Gen) TextSafe(err error) bool { return walkable(err, g.cfg.ChainLimit, g.textless) }

func walkable(err error, limit int, textless map[any]bool) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	seen := map[any]bool{}
	stack := []error{err}
	for n := 0; len(stack) > 0; n++ {
		if n > 4*limit {
			return false
		}
		e := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if e == nil {
			continue
		}
		if k, ok := identity(e); ok {
			if seen[k] || textless[k] {
				return false
			}
			seen[k] = true
		}
		switch u := e.(type) {
		case interface{ Unwrap() []error }:
			stack = append(stack, u.Unwrap()...)
		case interface{ Unwrap() error }:
			stack = append(stack, u.Unwrap())
		case interface{ Cause() error }:
			stack = append(stack, u.Cause())
		}
	}
	return true
}

// identity returns a comparable key for e, if it has one.
func identity(e error) (any, bool) {
	v := reflect.ValueOf(e)
	switch v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return [2]any{v.Type(), v.Pointer()}, true
	}
	if v.Type().Comparable() {
		return e, true
	}
	return nil, false
}

func (g *Gen) wrap(e error) error {
	// fmt.Errorf and crdb.Handled call the Error method of the error they
	// wrap; for an error whose chain does not end, wrappers that do not are
	// used instead.
	walkable := g.TextSafe(e)
	switch g.use("wrap", g.src.Op(NumWraps)) {
	case WrapFmt:
		if !walkable {
			return &unwrapper{msg: g.Private(20), err: e}
		}
		return fmt.Errorf("%s: %w", g.Private(20), e)
	case WrapFmt2:
		other := g.Error()
		if !walkable || !g.TextSafe(other) {
			return &multi{errs: []error{e, other}}
		}
		return fmt.Errorf("%w %s %w", e, Canary, other)
	case WrapJoin:
		var other error
		if g.src.Op(2) == 1 {
			other = g.Error()
		}
		if g.src.Op(2) == 1 {
			return errors.Join(other, e)
		}
		return errors.Join(e, other)
	case WrapHint:
		return crdb.WithHint(e, g.Public(60))
	case WrapCrdb:
		return crdb.Wrap(e, g.Private(20))
	case WrapIssueLink:
		return crdb.WithIssueLink(e, crdb.IssueLink{IssueURL: "https://tracker.internal/" + Canary, Detail: g.Private(10)})
	case WrapStack:
		return crdb.WithStack(e)
	case WrapToolError:
		return g.toolError(g.Public(60), e)
	case WrapToolErrorf:
		return toolerr.New(g.Public(40)).WithCause(e)
	case WrapHintBelow:
		hinted := crdb.WithHint(e, "hint "+g.Private(20))
		switch g.src.Op(5) {
		case 0:
			if !walkable {
				return &unwrapper{msg: g.Private(10), err: hinted}
			}
			return fmt.Errorf("%s: %w", g.Private(10), hinted)
		case 1:
			return g.toolError(g.Public(30), hinted)
		case 2:
			return &domain.NotFound{Resource: g.Public(10), ID: g.Public(10), Cause: hinted}
		case 3:
			return errors.Join(hinted)
		}
		return crdb.WithIssueLink(hinted, crdb.IssueLink{Detail: "x"})
	case WrapDomain:
		if g.src.Op(2) == 1 {
			return &domain.NotFound{Resource: g.Public(10), ID: g.Public(10), Cause: e}
		}
		return &domain.Conflict{Resource: g.Public(10), Message: g.Public(30), Cause: e}
	case WrapPanic:
		return g.panicError(e, walkable)
	case WrapCrdbMisc:
		switch g.src.Op(6) {
		case 0:
			return crdb.WithDetail(e, g.Private(20))
		case 1:
			return crdb.WithSecondaryError(e, errors.New(g.Private(20)))
		case 2:
			if !walkable {
				return crdb.WithDetail(e, g.Private(20))
			}
			return crdb.Handled(e)
		case 3:
			return crdb.WithMessage(e, g.Private(20))
		case 4:
			return crdb.WithSafeDetails(e, "safe %s", g.Private(10))
		}
		return crdb.Mark(e, errors.New(g.Private(10)))
	case WrapCustom:
		if g.src.Op(2) == 1 {
			return &unwrapper{msg: g.Private(10), err: e}
		}
		return &causer{msg: g.Private(10), err: e}
	case WrapDeep:
		return g.deep(e)
	case WrapCycle:
		switch g.src.Op(3) {
		case 0:
			c := &multi{}
			c.errs = []error{e, c}
			return c
		case 1:
			a := &unwrapper{msg: Canary, err: e}
			b := &unwrapper{msg: Canary, err: a}
			a.err = errors.Join(e, b)
			return b
		}
		c := &causer{msg: Canary}
		c.err = &unwrapper{msg: Canary, err: c} // a cycle through Cause and Unwrap
		return c
	}
	panic("unreachable")
}

func (g *Gen) hostile() error {
	switch g.use("hostile", g.src.Op(NumHostile)) {
	case HostileErrorPanics:
		return &panicky{}
	case HostileNilErrorPanics:
		var p *panicky
		return p
	case HostileSelf:
		return &selfish{msg: g.Private(10)}
	case HostilePingPong:
		a := &pingPong{}
		a.other = &pingPong{other: a}
		return a
	case HostileJoinSelf:
		c := &multi{}
		c.errs = []error{errors.New(g.Private(10)), c}
		return c
	case HostileValueCycle:
		return valueCycle{n: g.src.Intn(10)}
	case HostileUnwrapPanics:
		return unwrapPanics{}
	case HostileCauseCycle:
		c := &causer{msg: g.Private(10)}
		c.err = c
		return c
	case HostileNilNotFound:
		var nf *domain.NotFound
		return nf
	case HostileNilToolError:
		var te *toolerr.ToolError
		return te
	case HostileCodePanics:
		return &weirdPublic{msg: g.Public(20), codePanics: true}
	case HostileEmptyMessage:
		return &weirdPublic{code: g.ResponseCode()}
	case HostileDetailsPanic:
		return &weirdPublic{msg: g.Public(20), code: g.ResponseCode(), detailsPanic: true}
	case HostileIsPanics:
		return isPanics{}
	case HostileAsPanics:
		return asPanics{}
	case HostileRetryablePanics:
		return &weirdPublic{msg: g.Public(20), code: g.ResponseCode(), retryablePanics: true}
	case HostileUnwrapNil:
		return &unwrapper{msg: g.Private(10), err: (*panicky)(nil)}
	case HostileBadDetails:
		return &weirdPublic{msg: g.Public(20), code: g.ResponseCode(), details: g.Details()}
	case HostileEndless:
		return &endless{}
	case HostileFanOut:
		n := 200 + g.src.Intn(2000)
		errs := make([]error, n)
		for i := range errs {
			if i%3 != 0 {
				errs[i] = errors.New(Canary)
			}
		}
		return &multi{errs: errs}
	case HostileSliceCycle:
		return sliceCycle{s: []int{g.src.Intn(5)}}
	case HostileHugeText:
		return hugeText(g.huge())
	}
	panic("unreachable")
}

// panicky is an error whose Error method panics with the canary, even on a
// nil receiver.
type panicky struct{}

func (*panicky) Error() string { panic("Error() of " + Canary) }

// selfish unwraps to itself.
type selfish struct{ msg string }

func (e *selfish) Error() string { return e.msg }
func (e *selfish) Unwrap() error { return e }

// pingPong errors unwrap to each other.
type pingPong struct{ other *pingPong }

func (e *pingPong) Error() string { return "ping " + Canary }
func (e *pingPong) Unwrap() error { return e.other }

// multi is an Unwrap() []error, sometimes holding itself.
type multi struct{ errs []error }

func (e *multi) Error() string   { return "join " + Canary }
func (e *multi) Unwrap() []error { return e.errs }

// valueCycle is a value type that unwraps to itself.
type valueCycle struct{ n int }

func (e valueCycle) Error() string { return "value cycle " + Canary }
func (e valueCycle) Unwrap() error { return e }

// sliceCycle is an incomparable value type that unwraps to itself.
type sliceCycle struct{ s []int }

func (e sliceCycle) Error() string { return "slice cycle " + Canary }
func (e sliceCycle) Unwrap() error { return e }

// unwrapPanics panics in Unwrap.
type unwrapPanics struct{}

func (unwrapPanics) Error() string { return "unwrap panics " + Canary }
func (unwrapPanics) Unwrap() error { panic("Unwrap of " + Canary) }

// isPanics panics in Is.
type isPanics struct{}

func (isPanics) Error() string        { return "is panics " + Canary }
func (isPanics) Is(error) bool        { panic("Is of " + Canary) }
func (isPanics) Unwrap() error        { return context.Canceled }
func (isPanics) ErrorHint() string    { return "hint " + Canary }
func (isPanics) LogValue() slog.Value { panic("LogValue of " + Canary) }

// asPanics panics in As.
type asPanics struct{}

func (asPanics) Error() string     { return "as panics " + Canary }
func (asPanics) As(any) bool       { panic("As of " + Canary) }
func (asPanics) ErrorHint() string { return "hint " + Canary }

// unwrapper is a wrapper with only Unwrap.
type unwrapper struct {
	msg string
	err error
}

func (e *unwrapper) Error() string { return e.msg }
func (e *unwrapper) Unwrap() error { return e.err }

// causer is a wrapper with only Cause, as pkg/errors makes them.
type causer struct {
	msg string
	err error
}

func (e *causer) Error() string { return e.msg }
func (e *causer) Cause() error  { return e.err }

// endless unwraps to a new error every time: a chain without end and
// without a cycle.
type endless struct{ n int }

func (e *endless) Error() string { return "endless " + Canary }
func (e *endless) Unwrap() error { return &endless{n: e.n + 1} }

// hugeText is an error whose text is enormous and private.
type hugeText string

func (e hugeText) Error() string { return string(e) }

// weirdPublic is a public error that misbehaves as configured.
type weirdPublic struct {
	msg                                       string
	code                                      codes.Code
	details                                   map[string]any
	codePanics, detailsPanic, retryablePanics bool
}

func (e *weirdPublic) Error() string { return "weird " + Canary }
func (e *weirdPublic) ErrorCode() codes.Code {
	if e.codePanics {
		panic("ErrorCode of " + Canary)
	}
	return e.code
}
func (e *weirdPublic) PublicMessage() string { return e.msg }
func (e *weirdPublic) PublicDetails() map[string]any {
	if e.detailsPanic {
		panic("PublicDetails of " + Canary)
	}
	return e.details
}
func (e *weirdPublic) Retryable() bool {
	if e.retryablePanics {
		panic("Retryable of " + Canary)
	}
	return true
}
