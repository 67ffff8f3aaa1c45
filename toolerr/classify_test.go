package toolerr_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/toolerr"
)

// The interface and the optional methods a domain error and a ToolError
// have, which the pipeline finds.
var (
	_ toolerr.PublicError                         = (*toolerr.ToolError)(nil)
	_ toolerr.PublicError                         = (*domain.NotFound)(nil)
	_ interface{ PublicDetails() map[string]any } = (*domain.NotFound)(nil)
	_ interface{ ErrorHint() string }             = (*toolerr.ToolError)(nil)
	_ interface {
		Retryable() bool
		RetryDelay() time.Duration
	} = (*domain.RateLimited)(nil)
)

func TestPublicErrorThroughWrapping(t *testing.T) {
	var pub toolerr.PublicError
	if errors.As(errors.New("plain"), &pub) {
		t.Error("a plain error is public")
	}
	if !errors.As(fmt.Errorf("wrap: %w", domain.NewNotFound("A", "1")), &pub) || pub.PublicMessage() != "A not found: 1" || pub.ErrorCode() != codes.NotFound {
		t.Errorf("errors.As found %v", pub)
	}
}

func TestRetryAdviceRetryable(t *testing.T) {
	tests := []struct {
		err          error
		retry, known bool
	}{
		{errors.New("x"), false, false},
		{toolerr.New("x"), false, false},
		{toolerr.New("x").WithRetryable(true), true, true},
		{domain.NewRateLimited(0), true, true},
		// What an error wraps is not its own word: the pipeline applies the
		// chain's rule (see PublicError).
		{fmt.Errorf("w: %w", domain.NewRateLimited(0)), false, false},
		{context.Canceled, false, false},
		{toolerr.New("x").WithCause(domain.NewRateLimited(0)), false, false},
		{toolerr.New("x").WithRetryable(false).WithCause(context.Canceled), false, true},
	}
	for _, tt := range tests {
		r, k, _ := toolerr.RetryAdvice(tt.err)
		if r != tt.retry || k != tt.known {
			t.Errorf("RetryAdvice(%v) = %v, %v; want %v, %v", tt.err, r, k, tt.retry, tt.known)
		}
	}
}

func TestRetryAdviceDelay(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want time.Duration
	}{
		{"nil", nil, 0},
		{"plain", errors.New("x"), 0},
		{"ToolError without retry", toolerr.New("x"), 0},
		{"ToolError with a delay", toolerr.New("x").WithRetryAfter(time.Second), time.Second},
		{"ToolError with a negative delay", toolerr.New("x").WithRetryAfter(-time.Second), 0},
		{"explicit no drops the delay", toolerr.New("x").WithRetryAfter(time.Second).WithRetryable(false), 0},
		{"the ToolError's own decision", toolerr.New("x").WithRetryable(false).WithCause(domain.NewRateLimited(time.Minute)), 0},
		{"a ToolError that says nothing, whatever its cause", toolerr.New("x").WithCause(domain.NewRateLimited(time.Minute)), 0},
		{"RateLimited", domain.NewRateLimited(2 * time.Second), 2 * time.Second},
		{"a delay on a non-retryable error counts for nothing", notRetryable{}, 0},
	}
	for _, tt := range tests {
		if _, _, got := toolerr.RetryAdvice(tt.err); got != tt.want {
			t.Errorf("%s: RetryAdvice's delay = %v, want %v", tt.name, got, tt.want)
		}
	}
}

type notRetryable struct{}

func (notRetryable) Error() string             { return "no" }
func (notRetryable) Retryable() bool           { return false }
func (notRetryable) RetryDelay() time.Duration { return time.Hour }
