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
	var t *ToolError
	if errors.As(err, &t) {
		if r, known := t.retryableKnown(); known {
			return r, true
		}
	}
	var r Retryabler
	if errors.As(err, &r) {
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
	var t *ToolError
	if errors.As(err, &t) {
		if r, known := t.retryableKnown(); known {
			if !r {
				return 0
			}
			return t.delay
		}
	}
	var r Retryabler
	if errors.As(err, &r) && r.Retryable() {
		if d, ok := r.(RetryDelayer); ok {
			return max(d.RetryDelay(), 0)
		}
	}
	return 0
}
