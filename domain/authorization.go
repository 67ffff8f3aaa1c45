package domain

import (
	"fmt"

	"github.com/mcperr/mcperr/codes"
)

// Authorization reports that the caller may not do what it asked.
// The client only ever reads "Access denied.": naming the permission or the
// subject would tell an attacker what to try next.
type Authorization struct {
	// Permission is the permission that was required. Log only.
	Permission string
	// Subject is who asked, such as a user id. Log only.
	Subject string
}

// NewAuthorization returns an Authorization for the required permission and
// the subject that lacked it.
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
