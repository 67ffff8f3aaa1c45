// Package toolerr defines ToolError, the failure a tool reports to the model
// in words written for it, and PublicError, the interface through which
// mcperr classifies any error.
//
// A ToolError's message reaches the model exactly as written: say what went
// wrong and what the model could do differently, never a secret or an
// internal detail. Its cause reaches the server's log, never the client:
//
//	toolerr.New(fmt.Sprintf("Order %s could not be loaded; try again shortly.", id)).WithCause(err)
//
// Errors are classified by what they are, found with errors.As (a
// PublicError and the optional methods it lists), never by their message,
// so domain errors and an application's own types work the same way. The
// package does not depend on an MCP SDK.
package toolerr

import (
	"cmp"
	"maps"
	"time"

	"github.com/mcperr/mcperr/codes"
)

// PublicError is an error whose message was written for the client: a
// ToolError or a domain error, with its code. Errors that are not
// PublicErrors are masked.
//
// mcperr also finds these methods by name, as package errors finds Is:
//
//   - PublicDetails() map[string]any: details the client may read;
//   - ErrorHint() string: advice for the model, the method of
//     cockroachdb/errors' hints, so that errors.WithHint provides it;
//   - Retryable() bool: whether the call may be retried, on any error of
//     the chain, not only a PublicError;
//   - RetryDelay() time.Duration: how long to wait before retrying, on an
//     error whose Retryable says yes.
//
// A chain's retry advice is that of its first ToolError with retry advice
// (WithRetryable, WithRetryAfter), else that of its first error with a
// Retryable method, outer wrappers included, walked depth first as
// errors.As walks it, Cause methods included; where nothing says, a public
// error that wraps context.Canceled or context.DeadlineExceeded is retryable.
type PublicError interface {
	error
	ErrorCode() codes.Code
	PublicMessage() string
}

// RetryAdvice reports what err itself, not what it wraps, says of retrying:
// whether the call may be retried, whether err says anything, and how long
// to wait first (zero when unknown or not retryable). For a *ToolError it is
// what WithRetryable or WithRetryAfter set; for another error, its Retryable
// method and, if that says yes, its RetryDelay method.
func RetryAdvice(err error) (retryable, known bool, after time.Duration) {
	if t, ok := err.(*ToolError); ok {
		v := t.val() // retryable and delay are set with advised only
		return v.retryable, v.advised, v.delay
	}
	r, known := err.(interface{ Retryable() bool })
	if retryable = known && r.Retryable(); retryable {
		if d, ok := err.(interface{ RetryDelay() time.Duration }); ok {
			after = max(d.RetryDelay(), 0)
		}
	}
	return retryable, known, after
}

// ToolError is a failure reported to the model in words written for it. Its
// message, PublicMessage, is sent exactly as written; its code
// (codes.ToolFailed unless set), details, hint and retry advice travel in
// the error envelope; its cause reaches the log only. A ToolError is
// immutable: every With method returns a changed copy (nil for a nil one).
type ToolError struct {
	msg                string
	code               codes.Code
	details            map[string]any
	hint               string
	advised, retryable bool // advised: retryable and delay hold retry advice
	delay              time.Duration
	cause              error
	wraps              bool // made by Wrap: the words stand before the cause's
}

// New returns a ToolError with the message the model will read.
func New(message string) *ToolError { return &ToolError{msg: message} }

// Wrap returns a ToolError of the message over err, its cause, that reads as
// fmt.Errorf("message: %w", err) would where err is public: the model reads
// the message, ": " and what it reads of err (the message of a ToolError, of
// a domain error or of an error declared public with filter.Public), with
// err's code, hints and retry advice. Where mcperr masks err, the model
// reads the message alone and the failure is the server's, as with
// WithCause: logged at ERROR with the ref the answer carries. err's own text
// reaches the log only. Wrap of a nil err is New(message).
func Wrap(err error, message string) *ToolError {
	return &ToolError{msg: message, cause: err, wraps: err != nil}
}

// Wraps reports whether e was made by Wrap: what the model reads of its
// cause follows its message, after ": ".
func (e *ToolError) Wraps() bool { return e.val().wraps }

// Error returns the message, then ": " and the cause when there is one. It is
// the log view; the model reads PublicMessage.
func (e *ToolError) Error() string {
	if e == nil {
		return "<nil>"
	}
	if e.cause == nil {
		return e.msg
	}
	return e.msg + ": " + e.cause.Error()
}

// PublicMessage returns the message meant for the model, exactly as
// written, or "" for a nil *ToolError. It makes a ToolError a PublicError.
func (e *ToolError) PublicMessage() string { return e.val().msg }

// ErrorCode returns the code, codes.ToolFailed when none was set.
func (e *ToolError) ErrorCode() codes.Code { return cmp.Or(e.val().code, codes.ToolFailed) }

// PublicDetails returns a copy of the details.
func (e *ToolError) PublicDetails() map[string]any { return maps.Clone(e.val().details) }

// ErrorHint returns the hint, which cockroachdb/errors' GetAllHints finds too.
func (e *ToolError) ErrorHint() string { return e.val().hint }

// Unwrap returns the cause.
func (e *ToolError) Unwrap() error { return e.val().cause }

// WithCode returns a copy with the code, such as a registered INSUFFICIENT_FUNDS.
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
	return e.with(func(n *ToolError) { n.advised, n.retryable, n.delay = true, retryable, 0 })
}

// WithRetryAfter returns a copy that says the same call may succeed if
// tried again after d; with a d of zero or less, with no advice on when.
func (e *ToolError) WithRetryAfter(d time.Duration) *ToolError {
	return e.with(func(n *ToolError) { n.advised, n.retryable, n.delay = true, true, max(d, 0) })
}

// WithCause returns a copy that wraps cause for errors.Is, errors.As and the
// log; its text never reaches the client, but a public error in it sets the
// code and is a hint (see filter). A cause nothing public or classified
// explains (a ToolError of no code over a cause explains nothing: its words
// are a hint), under a ToolError of no code of its own, makes the failure the
// server's: at ERROR with a ref, advised as the cause says, else outcome unknown.
// A nil cause leaves the copy without one, and non-nil: test a nil cause first.
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

// val returns *e, or the zero ToolError, whose fields answer for a nil e.
func (e *ToolError) val() ToolError {
	if e == nil {
		return ToolError{}
	}
	return *e
}
