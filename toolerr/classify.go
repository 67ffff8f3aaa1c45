package toolerr

import (
	"context"
	"errors"
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
//     the chain, not only a PublicError (see RetryAdvice);
//   - RetryDelay() time.Duration: how long to wait before retrying, such as
//     domain.RateLimited's; it counts on an error whose Retryable says yes.
type PublicError interface {
	error
	ErrorCode() codes.Code
	PublicMessage() string
}

type retryabler interface {
	error
	Retryable() bool
}

var (
	_ PublicError                                 = (*ToolError)(nil)
	_ interface{ PublicDetails() map[string]any } = (*ToolError)(nil)
	_ interface{ ErrorHint() string }             = (*ToolError)(nil)
)

// RetryAdvice reports whether err says the call may be retried, whether it
// says anything at all, and how long to wait first. It asks the first
// ToolError whose retryable flag is set (its WithRetryAfter delay), else
// the first error of the chain with a Retryable method (its RetryDelay, if
// it has one and says yes); context errors are retryable. The delay is
// zero when the call may not be retried or no delay is known.
func RetryAdvice(err error) (retryable, known bool, after time.Duration) {
	t, r := adviceOf(err)
	if t != nil && t.retryable != nil {
		return *t.retryable, true, t.delay
	}
	if r != nil {
		retryable = r.Retryable()
		if d, ok := r.(interface{ RetryDelay() time.Duration }); ok && retryable {
			after = max(d.RetryDelay(), 0)
		}
		return retryable, true, after
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return true, true, 0
	}
	return false, false, 0
}

// adviceOf returns the first *ToolError and the first retryabler in the
// chain of err, in the order errors.As visits it, as errors.As would find
// them: without allocating where no error of the chain has an As method of
// its own, with errors.As where one has.
func adviceOf(err error) (t *ToolError, r retryabler) {
	if n := 0; walk(err, &n, &t, &r) {
		return t, r
	}
	return adviceByAs(err)
}

// adviceByAs is adviceOf with errors.As, apart so that only it allocates.
func adviceByAs(err error) (t *ToolError, r retryabler) {
	errors.As(err, &t)
	errors.As(err, &r)
	return t, r
}

// maxWalk bounds the errors adviceOf visits itself.
const maxWalk = 256

// walk visits err and what it wraps, depth first, noting the first
// *ToolError and retryabler. It reports false, having noted nothing
// reliable, if an error has an As method or the chain is longer than
// maxWalk: errors.As then decides.
func walk(err error, n *int, t **ToolError, r *retryabler) bool {
	for err != nil {
		if *n++; *n > maxWalk {
			return false
		}
		if _, ok := err.(interface{ As(any) bool }); ok {
			return false
		}
		if te, ok := err.(*ToolError); ok && *t == nil {
			*t = te
		}
		if re, ok := err.(retryabler); ok && *r == nil {
			*r = re
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if !walk(e, n, t, r) {
					return false
				}
			}
			return true
		default:
			return true
		}
	}
	return true
}
