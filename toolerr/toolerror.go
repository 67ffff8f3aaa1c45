package toolerr

import (
	"maps"
	"time"

	"github.com/mcperr/mcperr/codes"
)

// ToolError is a failure reported to the model in words written for it.
//
// Its message, PublicMessage, is sent exactly as written. Its code
// (codes.ToolFailed unless set), details, hint and retryable flag travel in
// the error envelope; its cause reaches the log only. A ToolError is
// immutable: every With method returns a changed copy. The With methods of a
// nil *ToolError return nil.
type ToolError struct {
	msg       string
	code      codes.Code
	details   map[string]any
	hint      string
	retryable *bool
	delay     time.Duration // zero unless retryable is true: wait this long first
	cause     error
}

// New returns a ToolError with the message the model will read. To keep a
// cause for the log, add it with WithCause:
//
//	return toolerr.New("The order service is down; try again shortly.").WithCause(err)
func New(message string) *ToolError { return &ToolError{msg: message} }

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
func (e *ToolError) PublicMessage() string {
	if e == nil {
		return ""
	}
	return e.msg
}

// ErrorCode returns the code, codes.ToolFailed when none was set.
func (e *ToolError) ErrorCode() codes.Code {
	if e == nil || e.code == "" {
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
	return e.with(func(n *ToolError) { n.retryable, n.delay = &retryable, 0 })
}

// WithRetryAfter returns a copy that says the same call may succeed if
// tried again after d. A d of zero or less means retryable with no advice
// on when.
func (e *ToolError) WithRetryAfter(d time.Duration) *ToolError {
	return e.with(func(n *ToolError) {
		retryable := true
		n.retryable, n.delay = &retryable, max(d, 0)
	})
}

// WithCause returns a copy that wraps cause for errors.Is, errors.As and the
// log; its text never reaches the client, but a public error in it sets the
// code and is a hint (see filter). A nil cause leaves the copy without one;
// the copy is never nil for a non-nil e: test a cause that may be nil first.
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
