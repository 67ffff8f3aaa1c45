package domain_test

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
)

const secret = "s3cr3t-CANARY"

// public is what every domain error offers the client.
type public interface {
	error
	ErrorCode() codes.Code
	PublicMessage() string
	PublicDetails() map[string]any
	slog.LogValuer
}

var (
	_ public = (*domain.NotFound)(nil)
	_ public = (*domain.Validation)(nil)
	_ public = (*domain.Authorization)(nil)
	_ public = (*domain.Unauthenticated)(nil)
	_ public = (*domain.BusinessRule)(nil)
	_ public = (*domain.Conflict)(nil)
	_ public = (*domain.RateLimited)(nil)
)

func TestPublicAndPrivateViews(t *testing.T) {
	tests := []struct {
		err     public
		code    codes.Code
		message string
		logHas  string // a log-only fact, absent from the public view
	}{
		{&domain.NotFound{Resource: "Order", ID: "ord_1", Cause: errors.New(secret)}, codes.NotFound, "Order not found: ord_1", secret},
		{domain.NewNotFound("", ""), codes.NotFound, "Resource not found.", ""},
		{domain.NewValidation("email", secret, "Must be a valid email address"), codes.ValidationError,
			"Validation failed for email: Must be a valid email address", secret},
		{&domain.Validation{Violations: []domain.Violation{{Field: "a", Constraint: "is required"}, {Field: "b", Constraint: "must be number", Value: secret}}},
			codes.ValidationError, "Validation failed: a: is required; b: must be number", secret},
		{&domain.Validation{}, codes.ValidationError, "Validation failed.", ""},
		{domain.NewAuthorization("orders:"+secret, "user-"+secret), codes.Forbidden, "Access denied.", secret},
		{&domain.Unauthenticated{Reason: secret}, codes.Unauthorized, "Authentication required.", secret},
		{domain.NewBusinessRule("ORDER_ALREADY_DELIVERED", "Cannot change status of a delivered order", nil),
			"ORDER_ALREADY_DELIVERED", "Cannot change status of a delivered order", ""},
		{&domain.BusinessRule{}, codes.BusinessRuleViolation, "A business rule refused the request.", ""},
		{&domain.Conflict{Resource: "User", Message: "Email taken.", Cause: errors.New(secret)}, codes.Conflict, "Email taken.", secret},
		{&domain.RateLimited{RetryAfter: 30 * time.Second, Limit: secret}, codes.RateLimited, "Too many requests. Retry after 30 seconds.", secret},
		{&domain.RateLimited{}, codes.RateLimited, "Too many requests. Retry later.", ""},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%T %s", tt.err, tt.message), func(t *testing.T) {
			if tt.err.ErrorCode() != tt.code {
				t.Errorf("code = %s, want %s", tt.err.ErrorCode(), tt.code)
			}
			if tt.err.PublicMessage() != tt.message {
				t.Errorf("public message = %q, want %q", tt.err.PublicMessage(), tt.message)
			}
			details, err := json.Marshal(tt.err.PublicDetails())
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(tt.err.PublicMessage()+string(details), secret) {
				t.Errorf("log-only data in the public view: %q %s", tt.err.PublicMessage(), details)
			}
			if tt.logHas == "" {
				return
			}
			logView := tt.err.Error() + " " + tt.err.LogValue().String()
			if !strings.Contains(logView, tt.logHas) {
				t.Errorf("log view %q lacks %q", logView, tt.logHas)
			}
		})
	}
}

func TestWrappingAndJoin(t *testing.T) {
	nf := &domain.NotFound{Resource: "User", ID: "u1", Cause: sql.ErrNoRows}
	wrapped := fmt.Errorf("service: %w", fmt.Errorf("repo: %w", nf))
	joined := errors.Join(errors.New("audit failed"), wrapped)
	for _, err := range []error{wrapped, joined} {
		var got *domain.NotFound
		if !errors.As(err, &got) || got != nf {
			t.Errorf("errors.As through %q failed", err)
		}
		if !errors.Is(err, nf) || !errors.Is(err, sql.ErrNoRows) {
			t.Errorf("errors.Is through %q failed", err)
		}
	}
	var br *domain.BusinessRule
	if errors.As(wrapped, &br) {
		t.Error("errors.As found a BusinessRule in a NotFound chain")
	}
}

func TestDetails(t *testing.T) {
	v := &domain.Validation{Violations: []domain.Violation{{Field: "status", Constraint: "Must be one of: a, b", Value: secret}}}
	b, _ := json.Marshal(v.PublicDetails())
	if string(b) != `{"violations":[{"constraint":"Must be one of: a, b","field":"status"}]}` {
		t.Errorf("validation details = %s", b)
	}
	ctx := map[string]any{"orderId": "o1"}
	br := domain.NewBusinessRule("X", "m", ctx)
	br.PublicDetails()["orderId"] = "changed"
	if ctx["orderId"] != "o1" {
		t.Error("PublicDetails handed out the rule's own map")
	}
	if (&domain.RateLimited{RetryAfter: 1500 * time.Millisecond}).PublicDetails()["retryAfterSeconds"] != int64(2) {
		t.Error("retry-after is not rounded up to whole seconds")
	}
	if !domain.NewRateLimited(time.Second).Retryable() {
		t.Error("RateLimited must be retryable")
	}
	if domain.NewAuthorization("p", "s").PublicDetails() != nil {
		t.Error("Authorization has public details")
	}
}

func TestPointer(t *testing.T) {
	for _, tt := range []struct {
		tokens []string
		want   string
	}{
		{nil, ""},
		{[]string{""}, "/"},
		{[]string{"items", "1", "qty"}, "/items/1/qty"},
		{[]string{"a/b", "m~n"}, "/a~1b/m~0n"},
		{[]string{"~1"}, "/~01"},
	} {
		if got := domain.Pointer(tt.tokens...); got != tt.want {
			t.Errorf("Pointer(%q) = %q, want %q", tt.tokens, got, tt.want)
		}
	}
}

func TestValidationDetailsCarryPointerAndReason(t *testing.T) {
	v := &domain.Validation{Violations: []domain.Violation{
		{Field: "email", Constraint: "Must be an email", Value: "x"},
		{Field: "items/0/qty", Pointer: "/items/0/qty", Reason: "minimum", Constraint: "must be at least 1", Value: 0},
		{Reason: "type", Constraint: "The arguments must be a JSON object."},
	}}
	got := fmt.Sprint(v.PublicDetails())
	want := "map[violations:[map[constraint:Must be an email field:email] " +
		"map[constraint:must be at least 1 field:items/0/qty pointer:/items/0/qty reason:minimum] " +
		"map[constraint:The arguments must be a JSON object. field: pointer: reason:type]]]"
	if got != want {
		t.Errorf("PublicDetails = %s\nwant %s", got, want)
	}
}
