package toolerr

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcperr/mcperr/codes"
)

// ToolError is a failure reported to the model in words written for it.
//
// Its Message is sent exactly as written. Its code (codes.ToolFailed unless
// set), details, hint and retryable flag travel in the error envelope; its
// cause reaches the log only. A ToolError is immutable: every With method
// returns a changed copy. The With methods of a nil *ToolError return nil.
type ToolError struct {
	msg       string
	code      codes.Code
	details   map[string]any
	hint      string
	retryable *bool
	delay     time.Duration // with retryable true: wait this long first
	cause     error
}

// New returns a ToolError with the message the model will read.
func New(message string) *ToolError { return &ToolError{msg: message} }

// Errorf returns a ToolError whose message is formatted like fmt.Sprintf,
// except for the %w verb, in any of its forms (%w, %[2]w, %-8w, ...). The
// operand of each %w prints nothing in the message: it becomes the
// ToolError's cause, which reaches the log only and which errors.Is and
// errors.As find. With one %w the cause is that error; with several it is
// errors.Join of them, in the order of the arguments. A nil operand, or one
// that is not an error (which fmt would print as %!w(...)), also prints
// nothing, and is not a cause. An operand of %w prints nothing wherever the
// format names it, so "%[1]v: %[1]w" prints nothing for either verb. "%%"
// is a literal percent sign, so "%%w" prints "%w".
//
// When the format ends with a %w, the separator left dangling by it is
// trimmed: any run of trailing spaces, ':', ';', ',', '-' and '—' (em dash).
// Nothing is trimmed when the format does not end with a %w. So
//
//	toolerr.Errorf("The order service is down: %w", err)
//
// has the message "The order service is down" and the cause err, and its
// Error, the log view, reads "The order service is down: " followed by the
// text of err.
func Errorf(format string, args ...any) *ToolError {
	// Formatting with fmt.Errorf rather than fmt.Sprintf makes go vet check
	// callers' formats as it does fmt.Errorf's, %w included.
	plain := fmt.Errorf(format, args...)
	if _, wraps := wrapIndexes(plain); !wraps {
		return &ToolError{msg: plain.Error()} // no %w with an operand: exactly fmt.Sprintf
	}
	// fmt numbers the operands itself; to learn which ones the %w verbs
	// took, format again with each argument replaced by its index.
	probes := make([]any, len(args))
	for i := range probes {
		probes[i] = argIndex(i)
	}
	indexes, _ := wrapIndexes(fmt.Errorf(format, probes...))
	silenced := slices.Clone(args)
	var causes []error
	for _, i := range indexes {
		if err, ok := args[i].(error); ok && err != nil {
			causes = append(causes, err)
		}
		silenced[i] = omitted{}
	}
	msg := fmt.Errorf(format, silenced...).Error()
	if endsWithWrap(format) {
		msg = strings.TrimRight(msg, danglingSeparators)
	}
	e := &ToolError{msg: msg}
	switch len(causes) {
	case 0:
	case 1:
		e.cause = causes[0]
	default:
		e.cause = errors.Join(causes...)
	}
	return e
}

// danglingSeparators are the characters Errorf trims from the end of a
// message whose format ends with %w.
const danglingSeparators = " :;,-—"

// argIndex stands for the argument at its index while Errorf learns which
// arguments its %w verbs take.
type argIndex int

func (argIndex) Error() string { return "" }

// wrapIndexes returns the argument indexes of the errors err, made by
// fmt.Errorf with argIndex arguments, wraps, and whether it wraps at all.
// fmt.Errorf gives them in argument order, each once.
func wrapIndexes(err error) ([]int, bool) {
	var wrapped []error
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		wrapped = []error{u.Unwrap()}
	case interface{ Unwrap() []error }:
		wrapped = u.Unwrap()
	default:
		return nil, false
	}
	var indexes []int
	for _, w := range wrapped {
		if i, ok := w.(argIndex); ok {
			indexes = append(indexes, int(i))
		}
	}
	return indexes, true
}

// omitted replaces the operands of %w when Errorf formats the message. It is
// an error, so that fmt.Errorf accepts it for %w, and a fmt.Formatter that
// prints nothing for any verb.
type omitted struct{}

func (omitted) Error() string          { return "" }
func (omitted) Format(fmt.State, rune) {}

// endsWithWrap reports whether the last verb of format is %w, with nothing
// after it. It reads the format as fmt does: '%', flags, an optional [n]
// argument index, a width (digits or '*'), a precision ('.' then an optional
// index and digits or '*'), another optional index, then the verb; "%%" is a
// literal percent sign.
func endsWithWrap(format string) bool {
	end := len(format)
	for i := 0; i < end; {
		if format[i] != '%' {
			i++
			continue
		}
		i++
		for i < end && strings.IndexByte("#0+- ", format[i]) >= 0 {
			i++
		}
		var indexed bool
		i, indexed = skipArgIndex(format, i)
		if i < end && format[i] == '*' {
			i, indexed = i+1, false
		} else {
			i = skipDigits(format, i)
		}
		if i+1 < end && format[i] == '.' {
			i, indexed = skipArgIndex(format, i+1)
			if i < end && format[i] == '*' {
				i, indexed = i+1, false
			} else {
				i = skipDigits(format, i)
			}
		}
		if !indexed {
			i, _ = skipArgIndex(format, i)
		}
		if i >= end {
			return false // fmt prints %!(NOVERB)
		}
		verb, size := utf8.DecodeRuneInString(format[i:])
		i += size
		if verb == 'w' && i == end {
			return true
		}
	}
	return false
}

// skipArgIndex skips an argument index such as "[2]" at format[i:] as fmt
// does, and reports whether it was well formed.
func skipArgIndex(format string, i int) (int, bool) {
	if i >= len(format) || format[i] != '[' {
		return i, false
	}
	if len(format)-i < 3 {
		return i + 1, false
	}
	for j := i + 1; j < len(format); j++ {
		if format[j] == ']' {
			return j + 1, j > i+1 && skipDigits(format[:j], i+1) == j
		}
	}
	return i + 1, false
}

// skipDigits returns the index of the first byte at or after i that is not
// an ASCII digit.
func skipDigits(format string, i int) int {
	for i < len(format) && '0' <= format[i] && format[i] <= '9' {
		i++
	}
	return i
}

// Wrap returns a ToolError with the message for the model and cause for the
// log, or nil if cause is nil, so that
//
//	return toolerr.Wrap(err, "The order service is down; try again shortly.")
//
// returns nil when err is nil. Use New(msg).WithCause(err) to set more.
func Wrap(cause error, message string) error {
	if cause == nil {
		return nil
	}
	return &ToolError{msg: message, cause: cause}
}

// Error returns the message, then ": " and the cause when there is one. It is
// the log view; the model reads Message.
func (e *ToolError) Error() string {
	if e == nil {
		return "<nil>"
	}
	if e.cause == nil {
		return e.msg
	}
	return e.msg + ": " + e.cause.Error()
}

// Message returns the message meant for the model, exactly as written.
func (e *ToolError) Message() string {
	if e == nil {
		return ""
	}
	return e.msg
}

// PublicMessage returns Message. It makes a ToolError a PublicError.
func (e *ToolError) PublicMessage() string { return e.Message() }

// ErrorCode returns the code, codes.ToolFailed when none was set.
func (e *ToolError) ErrorCode() codes.Code {
	if e == nil || e.code.IsZero() {
		return codes.ToolFailed
	}
	return e.code
}

// PublicDetails returns a copy of the details.
func (e *ToolError) PublicDetails() map[string]any {
	if e == nil {
		return nil
	}
	return maps.Clone(e.details)
}

// ErrorHint returns the hint. The name matches cockroachdb/errors, so
// errors.GetAllHints finds it too.
func (e *ToolError) ErrorHint() string {
	if e == nil {
		return ""
	}
	return e.hint
}

// retryableKnown returns whether the call may be retried, and whether that
// was set at all. RetryableOf is its public face.
func (e *ToolError) retryableKnown() (retryable, known bool) {
	if e == nil || e.retryable == nil {
		return false, false
	}
	return *e.retryable, true
}

// Unwrap returns the cause.
func (e *ToolError) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.cause
}

// WithCode returns a copy with the code, such as a registered
// INSUFFICIENT_FUNDS.
func (e *ToolError) WithCode(c codes.Code) *ToolError {
	return e.with(func(n *ToolError) { n.code = c })
}

// WithDetails returns a copy with public details, sent to the client in the
// error envelope. Put nothing secret in them. The map is copied.
func (e *ToolError) WithDetails(details map[string]any) *ToolError {
	return e.with(func(n *ToolError) { n.details = maps.Clone(details) })
}

// WithHint returns a copy with a hint: what the model could do differently.
func (e *ToolError) WithHint(hint string) *ToolError {
	return e.with(func(n *ToolError) { n.hint = hint })
}

// WithRetryable returns a copy that says whether the same call may succeed
// if tried again. WithRetryable(false) is an explicit "do not retry": it
// overrides a retryable code's registration, and drops a delay set with
// WithRetryAfter.
func (e *ToolError) WithRetryable(retryable bool) *ToolError {
	return e.with(func(n *ToolError) {
		n.retryable = &retryable
		n.delay = 0
	})
}

// WithRetryAfter returns a copy that says the same call may succeed if
// tried again after d. A d of zero or less means retryable with no advice
// on when.
func (e *ToolError) WithRetryAfter(d time.Duration) *ToolError {
	return e.with(func(n *ToolError) {
		retryable := true
		n.retryable = &retryable
		n.delay = max(d, 0)
	})
}

// WithCause returns a copy that wraps cause for the log. The cause's text
// never reaches the client.
func (e *ToolError) WithCause(cause error) *ToolError {
	return e.with(func(n *ToolError) { n.cause = cause })
}

func (e *ToolError) with(set func(*ToolError)) *ToolError {
	if e == nil {
		return nil
	}
	n := *e
	set(&n)
	return &n
}
