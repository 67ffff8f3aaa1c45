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

type zeroCoded struct{}

func (zeroCoded) Error() string         { return "zero" }
func (zeroCoded) ErrorCode() codes.Code { return "" }
func (zeroCoded) PublicMessage() string { return "zero" }

func TestCodeOf(t *testing.T) {
	tests := []struct {
		err  error
		want codes.Code
	}{
		{nil, ""},
		{errors.New("x"), codes.InternalError},
		{toolerr.New("x"), codes.ToolFailed},
		{fmt.Errorf("a: %w", toolerr.New("x").WithCode("MY_CODE")), "MY_CODE"},
		{fmt.Errorf("a: %w", domain.NewNotFound("A", "1")), codes.NotFound},
		{errors.Join(errors.New("x"), domain.NewAuthorization("p", "s")), codes.Forbidden},
		{fmt.Errorf("a: %w", context.Canceled), codes.Cancelled},
		{fmt.Errorf("a: %w", context.DeadlineExceeded), codes.Timeout},
		{zeroCoded{}, codes.InternalError},
	}
	for _, tt := range tests {
		if got := toolerr.CodeOf(tt.err); got != tt.want {
			t.Errorf("CodeOf(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

func TestPublicOf(t *testing.T) {
	if _, ok := toolerr.PublicOf(errors.New("plain")); ok {
		t.Error("a plain error is public")
	}
	p, ok := toolerr.PublicOf(fmt.Errorf("wrap: %w", domain.NewNotFound("A", "1")))
	if !ok || p.PublicMessage() != "A not found: 1" {
		t.Errorf("PublicOf = %v, %v", p, ok)
	}
}

func TestRetryableOf(t *testing.T) {
	tests := []struct {
		err          error
		retry, known bool
	}{
		{errors.New("x"), false, false},
		{toolerr.New("x"), false, false},
		{toolerr.New("x").WithRetryable(true), true, true},
		{fmt.Errorf("w: %w", domain.NewRateLimited(0)), true, true},
		{context.Canceled, true, true},
		{toolerr.New("x").WithRetryable(false).WithCause(context.Canceled), false, true},
	}
	for _, tt := range tests {
		r, k := toolerr.RetryableOf(tt.err)
		if r != tt.retry || k != tt.known {
			t.Errorf("RetryableOf(%v) = %v, %v; want %v, %v", tt.err, r, k, tt.retry, tt.known)
		}
	}
}

func TestDetailsOf(t *testing.T) {
	if toolerr.DetailsOf(errors.New("x")) != nil {
		t.Error("details of a plain error")
	}
	if d := toolerr.DetailsOf(fmt.Errorf("w: %w", domain.NewNotFound("A", "1"))); d["resourceId"] != "1" {
		t.Errorf("DetailsOf = %v", d)
	}
}

func TestRetryAfterOf(t *testing.T) {
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
		{"the ToolError's decision beats its cause", toolerr.New("x").WithRetryable(false).WithCause(domain.NewRateLimited(time.Minute)), 0},
		{"a ToolError that says nothing defers to its cause", toolerr.New("x").WithCause(domain.NewRateLimited(time.Minute)), time.Minute},
		{"wrapped RateLimited", fmt.Errorf("q: %w", domain.NewRateLimited(2*time.Second)), 2 * time.Second},
		{"a delay on a non-retryable error counts for nothing", notRetryable{}, 0},
	}
	for _, tt := range tests {
		if got := toolerr.RetryAfterOf(tt.err); got != tt.want {
			t.Errorf("%s: RetryAfterOf = %v, want %v", tt.name, got, tt.want)
		}
	}
}

type notRetryable struct{}

func (notRetryable) Error() string             { return "no" }
func (notRetryable) Retryable() bool           { return false }
func (notRetryable) RetryDelay() time.Duration { return time.Hour }
