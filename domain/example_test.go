package domain_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/mcperr/mcperr/domain"
)

func ExampleNewNotFound() {
	err := fmt.Errorf("get order: %w", domain.NewNotFound("Order", "ord_42"))
	var nf *domain.NotFound
	if errors.As(err, &nf) {
		fmt.Println(nf.ErrorCode(), nf.PublicMessage(), nf.PublicDetails())
	}
	// Output: NOT_FOUND Order not found: ord_42 map[resourceId:ord_42 resourceType:Order]
}

func ExampleNewValidation() {
	err := domain.NewValidation("status", "lost", "Must be one of: pending, processing, shipped, delivered")
	fmt.Println(err.PublicMessage())
	fmt.Println(err.PublicDetails()) // the offending value "lost" is kept for the log only
	// Output:
	// Validation failed for status: Must be one of: pending, processing, shipped, delivered
	// map[violations:[map[constraint:Must be one of: pending, processing, shipped, delivered field:status]]]
}

// A Validation can point at the field with a JSON Pointer, and give a
// machine-readable reason, for programs; the model reads the message.
func ExampleValidation() {
	err := &domain.Validation{Violations: []domain.Violation{{
		Field:      "items/1/qty",
		Pointer:    "/items/1/qty",
		Reason:     "minimum",
		Constraint: "must be at least 1",
		Value:      0,
	}}}
	fmt.Println(err.PublicMessage())
	fmt.Println(err.PublicDetails())
	// Output:
	// Validation failed for items/1/qty: must be at least 1
	// map[violations:[map[constraint:must be at least 1 field:items/1/qty pointer:/items/1/qty reason:minimum]]]
}

func ExampleNewAuthorization() {
	err := domain.NewAuthorization("orders:write", "usr_7")
	fmt.Println(err.PublicMessage()) // the client
	fmt.Println(err.Error())         // the log
	// Output:
	// Access denied.
	// access denied: subject "usr_7" lacks permission "orders:write"
}

func ExampleNewBusinessRule() {
	err := domain.NewBusinessRule("ORDER_ALREADY_DELIVERED", "Cannot change status of a delivered order",
		map[string]any{"orderId": "ord_1", "currentStatus": "delivered"})
	fmt.Println(err.ErrorCode(), err.PublicMessage(), err.PublicDetails())
	// Output: ORDER_ALREADY_DELIVERED Cannot change status of a delivered order map[currentStatus:delivered orderId:ord_1]
}

func ExampleNewConflict() {
	err := domain.NewConflict("User", "A user with this email already exists.")
	fmt.Println(err.ErrorCode(), err.PublicMessage())
	// Output: CONFLICT A user with this email already exists.
}

func ExampleNewRateLimited() {
	err := domain.NewRateLimited(30 * time.Second)
	fmt.Println(err.ErrorCode(), err.Retryable(), err.RetryDelay(), err.PublicMessage())
	// Output: RATE_LIMITED true 30s Too many requests. Retry after 30 seconds.
}

func ExampleUnauthenticated() {
	err := &domain.Unauthenticated{Reason: "token expired"}
	fmt.Println(err.ErrorCode(), err.PublicMessage())
	// Output: UNAUTHORIZED Authentication required.
}
