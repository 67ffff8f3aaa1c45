// Package domain holds the error types a service layer returns when a
// request fails for a reason of the domain: a missing resource, invalid
// input, a refused permission, a broken business rule, a conflict, a rate
// limit. It imports only the standard library and mcperr/codes, so a
// service can return them without depending on any SDK; mcperr turns them
// into tool results at the boundary.
//
// Every type keeps two audiences apart: its PublicMessage and PublicDetails
// are what the model may read; its Error text and the fields marked "Log
// only" are for the server's log, which mcperr's pipeline writes: the
// package imports no logging package. The types work with errors.Is and
// errors.As through any amount of fmt.Errorf("...: %w") wrapping and
// errors.Join.
package domain

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"strings"
	"time"

	"github.com/mcperr/mcperr/codes"
)

// NotFound reports that a resource does not exist.
type NotFound struct {
	// Resource is the kind of resource, such as "Order". Public.
	Resource string
	// ID identifies the resource that was asked for. Public.
	ID string
	// Cause is what revealed the absence, such as sql.ErrNoRows. Log only.
	Cause error
}

// NewNotFound returns a NotFound for the resource kind and id.
func NewNotFound(resource, id string) *NotFound { return &NotFound{Resource: resource, ID: id} }

// Error returns the message, followed by the cause when there is one.
func (e *NotFound) Error() string { return withCause(e.PublicMessage(), e.Cause) }

// Unwrap returns the cause.
func (e *NotFound) Unwrap() error { return e.Cause }

// ErrorCode returns codes.NotFound.
func (e *NotFound) ErrorCode() codes.Code { return codes.NotFound }

// PublicMessage returns "Order not found: ord_1".
func (e *NotFound) PublicMessage() string {
	if e.ID == "" {
		return fmt.Sprintf("%s not found.", cmp.Or(e.Resource, "Resource"))
	}
	return fmt.Sprintf("%s not found: %s", cmp.Or(e.Resource, "Resource"), e.ID)
}

// PublicDetails returns the resource type and id.
func (e *NotFound) PublicDetails() map[string]any {
	return map[string]any{"resourceType": e.Resource, "resourceId": e.ID}
}

// Authorization reports that the caller may not do what it asked. The client
// only reads "Access denied.": the permission or the subject would tell an
// attacker what to try next.
type Authorization struct {
	// Permission is the permission that was required. Log only.
	Permission string
	// Subject is who asked, such as a user id. Log only.
	Subject string
}

// NewAuthorization returns an Authorization: subject lacks permission.
func NewAuthorization(permission, subject string) *Authorization {
	return &Authorization{Permission: permission, Subject: subject}
}

// Error returns the log view, naming the permission and subject.
func (e *Authorization) Error() string {
	if e.Subject == "" {
		return fmt.Sprintf("access denied: permission %q required", e.Permission)
	}
	return fmt.Sprintf("access denied: subject %q lacks permission %q", e.Subject, e.Permission)
}

// ErrorCode returns codes.Forbidden.
func (e *Authorization) ErrorCode() codes.Code { return codes.Forbidden }

// PublicMessage returns "Access denied.".
func (e *Authorization) PublicMessage() string { return "Access denied." }

// Unauthenticated reports that the caller is not authenticated at all.
type Unauthenticated struct {
	// Reason says why authentication failed, such as "token expired". Log only.
	Reason string
}

// Error returns the log view.
func (e *Unauthenticated) Error() string {
	if e.Reason == "" {
		return "unauthenticated"
	}
	return "unauthenticated: " + e.Reason
}

// ErrorCode returns codes.Unauthorized.
func (e *Unauthenticated) ErrorCode() codes.Code { return codes.Unauthorized }

// PublicMessage returns "Authentication required.".
func (e *Unauthenticated) PublicMessage() string { return "Authentication required." }

// BusinessRule reports that a rule of the application refused a valid request.
type BusinessRule struct {
	// Rule, the code the client reads, names the rule, such as
	// ORDER_ALREADY_DELIVERED; register it in a codes.Registry. Public.
	Rule codes.Code
	// Message says what was refused and why, written for the model. Public.
	Message string
	// Context holds facts the model may use, such as the current status.
	// Public: put nothing secret in it.
	Context map[string]any
}

// NewBusinessRule returns a BusinessRule.
func NewBusinessRule(rule codes.Code, message string, context map[string]any) *BusinessRule {
	return &BusinessRule{Rule: rule, Message: message, Context: context}
}

// Error returns the message.
func (e *BusinessRule) Error() string { return e.PublicMessage() }

// ErrorCode returns the rule, or codes.BusinessRuleViolation when unset.
func (e *BusinessRule) ErrorCode() codes.Code { return cmp.Or(e.Rule, codes.BusinessRuleViolation) }

// PublicMessage returns the message.
func (e *BusinessRule) PublicMessage() string {
	return cmp.Or(e.Message, "A business rule refused the request.")
}

// PublicDetails returns a copy of the context.
func (e *BusinessRule) PublicDetails() map[string]any { return maps.Clone(e.Context) }

// Conflict reports that a request conflicts with the current state, such as
// a duplicate of a unique value.
type Conflict struct {
	// Resource is the kind of resource, such as "User". Public.
	Resource string
	// Message says what conflicts, written for the model. Public.
	Message string
	// Cause is the underlying error, such as a unique violation. Log only.
	Cause error
}

// NewConflict returns a Conflict.
func NewConflict(resource, message string) *Conflict {
	return &Conflict{Resource: resource, Message: message}
}

// Error returns the message, followed by the cause when there is one.
func (e *Conflict) Error() string { return withCause(e.PublicMessage(), e.Cause) }

// Unwrap returns the cause.
func (e *Conflict) Unwrap() error { return e.Cause }

// ErrorCode returns codes.Conflict.
func (e *Conflict) ErrorCode() codes.Code { return codes.Conflict }

// PublicMessage returns the message.
func (e *Conflict) PublicMessage() string {
	return cmp.Or(e.Message, "The request conflicts with the current state.")
}

// PublicDetails returns the resource type.
func (e *Conflict) PublicDetails() map[string]any {
	if e.Resource == "" {
		return nil
	}
	return map[string]any{"resourceType": e.Resource}
}

// RateLimited reports that the caller sent too many requests.
type RateLimited struct {
	// RetryAfter is how long the caller should wait, sent as a week at most;
	// zero if unknown. Public.
	RetryAfter time.Duration
	// Limit describes the limit that was hit, such as "100/min". Log only.
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

// RetryDelay returns RetryAfter, at most a week: how long the caller should
// wait before it retries. mcperr sends it in the envelope as retryAfterSeconds.
func (e *RateLimited) RetryDelay() time.Duration { return min(e.RetryAfter, 7*24*time.Hour) }

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

// Violation is one way in which one field is invalid.
type Violation struct {
	// Field is the path of the field as the message names it, such as
	// "status" or "items/2/qty"; empty for the arguments as a whole. Public.
	Field string `json:"field"`
	// Pointer, when set, is the JSON Pointer (RFC 6901) of the field, such as
	// "/items/2/qty", for programs; "" is the arguments as a whole. mcperr's
	// argument checks always set it. Public.
	Pointer string `json:"pointer,omitempty"`
	// Reason, when set, is a short machine-readable reason: the JSON Schema
	// keyword the field fails, such as "required" or "maxLength", or a word
	// of the application's own. Public.
	Reason string `json:"reason,omitempty"`
	// Constraint says what the field must be, written for the model, such as
	// "Must be one of: pending, shipped". Public.
	Constraint string `json:"constraint"`
	// Value is the offending value. Log only: it may be a secret or personal
	// data the caller sent by mistake, so it never reaches the client.
	Value any `json:"-"`
}

// Validation reports that input is invalid, field by field.
type Validation struct {
	// Violations lists what is wrong. Public, except each Value.
	Violations []Violation
}

// NewValidation returns a Validation with one violation.
func NewValidation(field string, value any, constraint string) *Validation {
	return &Validation{Violations: []Violation{{Field: field, Constraint: constraint, Value: value}}}
}

// Error returns the public message; the offending values stay in
// Violations, which mcperr logs (unless its pipeline redacts) and never sends.
func (e *Validation) Error() string { return e.PublicMessage() }

// ErrorCode returns codes.ValidationError.
func (e *Validation) ErrorCode() codes.Code { return codes.ValidationError }

// PublicMessage returns "Validation failed for status: Must be one of: a, b"
// for one violation and "Validation failed: a: ...; b: ..." for several.
func (e *Validation) PublicMessage() string {
	switch len(e.Violations) {
	case 0:
		return "Validation failed."
	case 1:
		v := e.Violations[0]
		if v.Field == "" {
			return "Validation failed: " + v.Constraint
		}
		return "Validation failed for " + v.Field + ": " + v.Constraint
	}
	var b strings.Builder
	b.WriteString("Validation failed: ")
	for i, v := range e.Violations {
		if i > 0 {
			b.WriteString("; ")
		}
		if v.Field != "" {
			b.WriteString(v.Field)
			b.WriteString(": ")
		}
		b.WriteString(v.Constraint)
	}
	return b.String()
}

// PublicDetails returns the violations without their values, as
// {"violations": [{"field": ..., "pointer": ..., "reason": ...,
// "constraint": ...}]}, where pointer and reason appear when they are set.
func (e *Validation) PublicDetails() map[string]any {
	vs := make([]map[string]any, len(e.Violations))
	for i, v := range e.Violations {
		vs[i] = map[string]any{"field": v.Field, "constraint": v.Constraint}
		if v.Pointer != "" || v.Reason != "" {
			vs[i]["pointer"] = v.Pointer // "" is the arguments as a whole, sent with a reason
		}
		if v.Reason != "" {
			vs[i]["reason"] = v.Reason
		}
	}
	return map[string]any{"violations": vs}
}

// withCause appends the cause's text to msg for the log view.
func withCause(msg string, cause error) string {
	if cause == nil {
		return msg
	}
	return msg + ": " + cause.Error()
}
