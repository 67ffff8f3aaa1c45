package domain

import (
	"fmt"
	"math"
	"time"

	"github.com/mcperr/mcperr/codes"
)

// maxRetryAfter is the longest wait a RateLimited asks for, the bound
// mcperr puts on every retry delay: a longer RetryAfter is sent as a week,
// in the message, the details and the envelope alike.
const maxRetryAfter = 7 * 24 * time.Hour

// RateLimited reports that the caller sent too many requests.
type RateLimited struct {
	// RetryAfter is how long the caller should wait; zero if unknown. Public.
	// A wait longer than a week is sent as a week.
	RetryAfter time.Duration
	// Limit describes the limit that was hit, such as "100/min per user".
	// Log only.
	Limit string
}

// NewRateLimited returns a RateLimited that asks to wait retryAfter.
func NewRateLimited(retryAfter time.Duration) *RateLimited {
	return &RateLimited{RetryAfter: retryAfter}
}

// Error returns the log view.
func (e *RateLimited) Error() string {
	if e.Limit == "" {
		return "rate limited: " + e.PublicMessage()
	}
	return fmt.Sprintf("rate limited (%s): %s", e.Limit, e.PublicMessage())
}

// ErrorCode returns codes.RateLimited.
func (e *RateLimited) ErrorCode() codes.Code { return codes.RateLimited }

// Retryable returns true: the same request may succeed later.
func (e *RateLimited) Retryable() bool { return true }

// RetryDelay returns RetryAfter: how long the caller should wait before it
// retries. mcperr sends it in the error envelope as retryAfterSeconds.
func (e *RateLimited) RetryDelay() time.Duration { return min(e.RetryAfter, maxRetryAfter) }

// PublicMessage returns "Too many requests. Retry after 30 seconds."
func (e *RateLimited) PublicMessage() string {
	if e.RetryAfter <= 0 {
		return "Too many requests. Retry later."
	}
	return fmt.Sprintf("Too many requests. Retry after %d seconds.", e.retrySeconds())
}

// PublicDetails returns the wait in whole seconds, rounded up.
func (e *RateLimited) PublicDetails() map[string]any {
	if e.RetryAfter <= 0 {
		return nil
	}
	return map[string]any{"retryAfterSeconds": e.retrySeconds()}
}

func (e *RateLimited) retrySeconds() int64 { return int64(math.Ceil(e.RetryDelay().Seconds())) }
