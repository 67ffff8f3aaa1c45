package toolerr

import (
	"time"

	"github.com/mcperr/mcperr/codes"
)

// PublicError is an error whose message was written for the client: a
// ToolError or a domain error, with its code. Errors that are not
// PublicErrors are masked.
//
// A PublicError may also have these methods, which mcperr finds by their
// names, as package errors finds an Is method:
//
//   - PublicDetails() map[string]any: details the client may read;
//   - ErrorHint() string: advice for the model, the method of
//     cockroachdb/errors' hints, so that errors.WithHint provides it;
//   - Retryable() bool: whether the call may be retried; on any error of
//     the chain, not only a PublicError;
//   - RetryDelay() time.Duration: how long to wait before retrying, such as
//     domain.RateLimited's; it counts on an error whose Retryable says yes.
//
// The retry advice of a chain is that of its first ToolError whose
// retryable flag is set (WithRetryable, WithRetryAfter), else that of its
// first error with a Retryable method, wherever it is in the chain, outer
// wrappers included; a public error that wraps context.Canceled or
// context.DeadlineExceeded, where nothing else says, is retryable. The
// chain is walked as errors.As walks it, depth first, Cause methods
// included.
type PublicError interface {
	error
	ErrorCode() codes.Code
	PublicMessage() string
}

var (
	_ PublicError                                 = (*ToolError)(nil)
	_ interface{ PublicDetails() map[string]any } = (*ToolError)(nil)
	_ interface{ ErrorHint() string }             = (*ToolError)(nil)
)

// RetryAdvice reports what err itself says of retrying, not what it wraps:
// whether the call may be retried, whether err says anything at all, and how
// long to wait first. For a *ToolError it is what WithRetryable or
// WithRetryAfter set; for another error, its Retryable method and, if that
// says yes, its RetryDelay method. The delay is zero when the call may not
// be retried or no delay is known. mcperr applies it along a chain as
// PublicError says.
func RetryAdvice(err error) (retryable, known bool, after time.Duration) {
	if t, ok := err.(*ToolError); ok {
		if t == nil || t.retryable == nil {
			return false, false, 0
		}
		return *t.retryable, true, t.delay
	}
	r, ok := err.(interface{ Retryable() bool })
	if !ok {
		return false, false, 0
	}
	if retryable = r.Retryable(); retryable {
		if d, ok := err.(interface{ RetryDelay() time.Duration }); ok {
			after = max(d.RetryDelay(), 0)
		}
	}
	return retryable, true, after
}
