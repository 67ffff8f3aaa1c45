package domain

import (
	"maps"

	"github.com/mcperr/mcperr/codes"
)

// BusinessRule reports that a rule of the application refused a request
// that was otherwise valid.
type BusinessRule struct {
	// Rule names the rule and is the code the client reads, such as
	// ORDER_ALREADY_DELIVERED. Register it in a codes.Registry. When unset
	// the code is codes.BusinessRuleViolation. Public.
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
func (e *BusinessRule) ErrorCode() codes.Code {
	if e.Rule == "" {
		return codes.BusinessRuleViolation
	}
	return e.Rule
}

// PublicMessage returns the message.
func (e *BusinessRule) PublicMessage() string {
	return orDefault(e.Message, "A business rule refused the request.")
}

// PublicDetails returns a copy of the context.
func (e *BusinessRule) PublicDetails() map[string]any { return maps.Clone(e.Context) }
