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
type PublicError interface {
	error
	ErrorCode() codes.Code
	PublicMessage() string
}

// Detailer is an error with details the client may read.
type Detailer interface {
	error
	PublicDetails() map[string]any
}

// Retryabler is an error that knows whether the call may be retried.
type Retryabler interface {
	error
	Retryable() bool
}

// RetryDelayer is an error that knows how long the caller should wait
// before it retries, such as domain.RateLimited. It counts where the error
// is also a Retryabler that says the call may be retried.
type RetryDelayer interface {
	error
	RetryDelay() time.Duration
}

// Hinter is an error with advice for the model. It is the interface of
// cockroachdb/errors' hints, so errors.WithHint satisfies it.
type Hinter interface {
	error
	ErrorHint() string
}

var (
	_ PublicError = (*ToolError)(nil)
	_ Detailer    = (*ToolError)(nil)
	_ Hinter      = (*ToolError)(nil)
)

// RetryableOf reports whether err says the call may be retried, and whether
// it says anything at all. It asks the first ToolError with a retryable flag
// set and the first Retryabler in the chain; context errors are retryable.
func RetryableOf(err error) (retryable, known bool) {
	t, r := adviceOf(err)
	if t != nil {
		if retry, known := t.retryableKnown(); known {
			return retry, true
		}
	}
	if r != nil {
		return r.Retryable(), true
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return true, true
	}
	return false, false
}

// RetryAfterOf returns how long the caller should wait before it retries
// err, from the same error RetryableOf asks: the first ToolError whose
// retryable flag is set (its WithRetryAfter delay), else the first
// Retryabler, if it is also a RetryDelayer. It is zero when err may not be
// retried or no delay is known.
func RetryAfterOf(err error) time.Duration {
	t, r := adviceOf(err)
	if t != nil {
		if retry, known := t.retryableKnown(); known {
			if !retry {
				return 0
			}
			return t.delay
		}
	}
	if r != nil && r.Retryable() {
		if d, ok := r.(RetryDelayer); ok {
			return max(d.RetryDelay(), 0)
		}
	}
	return 0
}

// adviceOf returns the first *ToolError and the first Retryabler in the
// chain of err, in the order errors.As visits it, as errors.As would find
// them: without allocating where no error of the chain has an As method of
// its own, with errors.As where one has.
func adviceOf(err error) (*ToolError, Retryabler) {
	var t *ToolError
	var r Retryabler
	n := 0
	if !walk(err, &n, &t, &r) {
		return adviceByAs(err)
	}
	return t, r
}

// adviceByAs is adviceOf with errors.As.
func adviceByAs(err error) (t *ToolError, r Retryabler) {
	errors.As(err, &t)
	errors.As(err, &r)
	return t, r
}

// maxWalk bounds the errors adviceOf visits itself.
const maxWalk = 256

// walk visits err and what it wraps, depth first, noting the first
// *ToolError and Retryabler. It reports false, having noted nothing
// reliable, if an error has an As method or the chain is longer than
// maxWalk: errors.As then decides.
func walk(err error, n *int, t **ToolError, r *Retryabler) bool {
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
		if re, ok := err.(Retryabler); ok && *r == nil {
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
