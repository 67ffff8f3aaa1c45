package domain

import "github.com/mcperr/mcperr/codes"

// Conflict reports that a request conflicts with the current state, such as
// a second record with a unique value.
type Conflict struct {
	// Resource is the kind of resource, such as "User". Public.
	Resource string
	// Message says what conflicts, written for the model. Public.
	Message string
	// Cause is the underlying error, such as a unique violation from the
	// database. Log only.
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
	return orDefault(e.Message, "The request conflicts with the current state.")
}

// PublicDetails returns the resource type.
func (e *Conflict) PublicDetails() map[string]any {
	if e.Resource == "" {
		return nil
	}
	return map[string]any{"resourceType": e.Resource}
}
