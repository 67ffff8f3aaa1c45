package domain

import (
	"fmt"

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
func NewNotFound(resource, id string) *NotFound {
	return &NotFound{Resource: resource, ID: id}
}

// Error returns the message, followed by the cause when there is one.
func (e *NotFound) Error() string { return withCause(e.PublicMessage(), e.Cause) }

// Unwrap returns the cause.
func (e *NotFound) Unwrap() error { return e.Cause }

// ErrorCode returns codes.NotFound.
func (e *NotFound) ErrorCode() codes.Code { return codes.NotFound }

// PublicMessage returns "Order not found: ord_1".
func (e *NotFound) PublicMessage() string {
	if e.ID == "" {
		return fmt.Sprintf("%s not found.", orDefault(e.Resource, "Resource"))
	}
	return fmt.Sprintf("%s not found: %s", orDefault(e.Resource, "Resource"), e.ID)
}

// PublicDetails returns the resource type and id.
func (e *NotFound) PublicDetails() map[string]any {
	return map[string]any{"resourceType": e.Resource, "resourceId": e.ID}
}
