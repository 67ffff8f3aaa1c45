package toolerr_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

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
