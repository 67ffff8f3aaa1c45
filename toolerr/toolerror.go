package toolerr

import (
	"fmt"
	"maps"

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
	cause     error
}

// New returns a ToolError with the message the model will read.
func New(message string) *ToolError { return &ToolError{msg: message} }

// Errorf returns a ToolError whose message is formatted like fmt.Sprintf.
// The whole message is sent to the model, so %w is not special here: use
// WithCause to keep an error for the log only.
func Errorf(format string, args ...any) *ToolError {
	return &ToolError{msg: fmt.Sprintf(format, args...)}
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

// RetryableKnown returns whether the call may be retried, and whether that
// was set at all.
func (e *ToolError) RetryableKnown() (retryable, known bool) {
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
// if tried again.
func (e *ToolError) WithRetryable(retryable bool) *ToolError {
	return e.with(func(n *ToolError) { n.retryable = &retryable })
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
