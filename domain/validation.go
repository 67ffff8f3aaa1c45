package domain

import (
	"strings"

	"github.com/mcperr/mcperr/codes"
)

// Violation is one way in which one field is invalid.
type Violation struct {
	// Field is the path of the field as the message names it, such as
	// "status" or "items/2/qty"; empty for the arguments as a whole. Public.
	Field string `json:"field"`
	// Pointer, when set, is the JSON Pointer (RFC 6901) of the field in the
	// arguments, such as "/items/2/qty", for programs; "" is the arguments
	// as a whole. The argument checks of mcperr's adapters always set it.
	// Public.
	Pointer string `json:"pointer,omitempty"`
	// Reason, when set, is a short machine-readable reason: the JSON Schema
	// keyword the field fails, such as "type", "required", "enum",
	// "minimum", "maxLength", "pattern" or "additionalProperties", or a
	// word of the application's own. Public.
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
		m := map[string]any{"field": v.Field, "constraint": v.Constraint}
		if v.Pointer != "" || v.Reason != "" {
			// "" is a valid pointer, the arguments as a whole; it is sent
			// when the violation says why.
			m["pointer"] = v.Pointer
		}
		if v.Reason != "" {
			m["reason"] = v.Reason
		}
		vs[i] = m
	}
	return map[string]any{"violations": vs}
}
