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
}

// detailer is what a domain error with public details offers.
type detailer interface {
	PublicDetails() map[string]any
}

var (
	_ public   = (*domain.NotFound)(nil)
	_ public   = (*domain.Validation)(nil)
	_ public   = (*domain.Authorization)(nil)
	_ public   = (*domain.Unauthenticated)(nil)
	_ public   = (*domain.BusinessRule)(nil)
	_ public   = (*domain.Conflict)(nil)
	_ public   = (*domain.RateLimited)(nil)
	_ detailer = (*domain.NotFound)(nil)
	_ detailer = (*domain.Validation)(nil)
	_ detailer = (*domain.BusinessRule)(nil)
	_ detailer = (*domain.Conflict)(nil)
	_ detailer = (*domain.RateLimited)(nil)
)

// TestNoLogViewsAndFewDetails pins that no type has a log view of its own
// (the package imports no logging package; the pipeline logs a
// Validation's values itself), and which have public details: a type that
// has none can never put a log-only fact in one.
func TestNoLogViewsAndFewDetails(t *testing.T) {
	for _, err := range []error{&domain.NotFound{}, &domain.Authorization{}, &domain.Unauthenticated{},
		&domain.BusinessRule{}, &domain.Conflict{}, &domain.RateLimited{}, &domain.Validation{}} {
		if _, ok := err.(interface{ LogValue() slog.Value }); ok {
			t.Errorf("%T has a LogValue", err)
		}
	}
	for _, err := range []error{&domain.Authorization{}, &domain.Unauthenticated{}} {
		if _, ok := err.(detailer); ok {
			t.Errorf("%T has PublicDetails: a client reads only its message", err)
		}
	}
}

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
			var details []byte
			if d, ok := tt.err.(detailer); ok {
				var err error
				if details, err = json.Marshal(d.PublicDetails()); err != nil {
					t.Fatal(err)
				}
			}
			if strings.Contains(tt.err.PublicMessage()+string(details), secret) {
				t.Errorf("log-only data in the public view: %q %s", tt.err.PublicMessage(), details)
			}
			if tt.logHas == "" {
				return
			}
			logView := tt.err.Error()
			if v, ok := tt.err.(*domain.Validation); ok {
				logView += fmt.Sprint(" ", v.Violations)
			}
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
	if (&domain.RateLimited{}).PublicDetails() != nil || (&domain.Conflict{}).PublicDetails() != nil {
		t.Error("a RateLimited without delay or a Conflict without resource has public details")
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

// TestLogViews pins the Error text of every type, the log view of the
// types without a LogValue, and the Validation's LogValue, which alone
// holds the offending values.
func TestLogViews(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{domain.NewAuthorization("orders:write", "usr_7"), `access denied: subject "usr_7" lacks permission "orders:write"`},
		{domain.NewAuthorization("orders:write", ""), `access denied: permission "orders:write" required`},
		{&domain.Unauthenticated{}, "unauthenticated"},
		{&domain.Unauthenticated{Reason: "token expired"}, "unauthenticated: token expired"},
		{&domain.RateLimited{Limit: "100/min"}, "rate limited (100/min): Too many requests. Retry later."},
		{domain.NewRateLimited(2 * time.Second), "rate limited: Too many requests. Retry after 2 seconds."},
		{&domain.NotFound{Resource: "Order", ID: "o1", Cause: sql.ErrNoRows}, "Order not found: o1: " + sql.ErrNoRows.Error()},
		{&domain.Conflict{Cause: errors.New("unique violation")}, "The request conflicts with the current state.: unique violation"},
		{domain.NewBusinessRule("", "Too late.", nil), "Too late."},
		{domain.NewValidation("email", secret, "Must be an email"), "Validation failed for email: Must be an email"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("%T.Error() = %q, want %q", tt.err, got, tt.want)
		}
	}
	v := &domain.Validation{Violations: []domain.Violation{
		{Field: "email", Constraint: "Must be an email", Value: secret},
		{Constraint: "The arguments must be a JSON object.", Value: 42},
	}}
	if strings.Contains(v.Error(), secret) {
		t.Errorf("Error() = %q holds a value", v.Error())
	}
}
