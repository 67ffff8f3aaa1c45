package toolerr_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/toolerr"
)

func ExampleNew() {
	err := toolerr.New("b must not be zero.").WithHint("Pass a non-zero b.")
	fmt.Println(err.Message())
	fmt.Println(err.ErrorCode(), err.ErrorHint())
	// Output:
	// b must not be zero.
	// TOOL_ERROR Pass a non-zero b.
}

func ExampleToolError_WithCause() {
	cause := errors.New("dial 10.0.0.12:5432: connection refused")
	err := toolerr.New("The order database is unavailable; try again shortly.").
		WithCode(codes.DatabaseError).
		WithRetryable(true).
		WithCause(cause)
	fmt.Println(err.Message()) // what the model reads
	fmt.Println(err.Error())   // what the log keeps
	fmt.Println(errors.Is(err, cause))
	// Output:
	// The order database is unavailable; try again shortly.
	// The order database is unavailable; try again shortly.: dial 10.0.0.12:5432: connection refused
	// true
}

func ExampleToolError_WithDetails() {
	err := toolerr.New("Not enough stock.").WithCode("INVENTORY_EXHAUSTED").WithDetails(map[string]any{"available": 2})
	fmt.Println(err.ErrorCode(), err.PublicDetails())
	// Output: INVENTORY_EXHAUSTED map[available:2]
}

func ExampleErrorf() {
	dial := errors.New("dial 10.0.0.5: password=hunter2 refused")
	err := toolerr.Errorf("The order service is down: %w", dial)
	fmt.Println(err.Message()) // what the model reads
	fmt.Println(err.Error())   // what the log keeps
	fmt.Println(errors.Is(err, dial))
	fmt.Println(toolerr.Errorf("Page %d is past the last page, %d.", 9, 3).Message())
	// Output:
	// The order service is down
	// The order service is down: dial 10.0.0.5: password=hunter2 refused
	// true
	// Page 9 is past the last page, 3.
}

func ExampleWrap() {
	lookup := func() error { return nil }
	fmt.Println(toolerr.Wrap(lookup(), "The lookup failed.")) // nil stays nil
	err := toolerr.Wrap(errors.New("timeout after 30s"), "The lookup failed; try a narrower query.")
	fmt.Println(toolerr.CodeOf(err))
	// Output:
	// <nil>
	// TOOL_ERROR
}

func ExampleCodeOf() {
	fmt.Println(toolerr.CodeOf(fmt.Errorf("load: %w", domain.NewNotFound("Order", "1"))))
	fmt.Println(toolerr.CodeOf(fmt.Errorf("query: %w", context.DeadlineExceeded)))
	fmt.Println(toolerr.CodeOf(errors.New("disk full")))
	// Output:
	// NOT_FOUND
	// TIMEOUT
	// INTERNAL_ERROR
}

func ExamplePublicOf() {
	err := fmt.Errorf("update order: %w", domain.NewBusinessRule("ORDER_ALREADY_DELIVERED", "Cannot change a delivered order.", nil))
	if pub, ok := toolerr.PublicOf(err); ok {
		fmt.Println(pub.ErrorCode(), pub.PublicMessage())
	}
	_, ok := toolerr.PublicOf(errors.New("password=hunter2"))
	fmt.Println(ok)
	// Output:
	// ORDER_ALREADY_DELIVERED Cannot change a delivered order.
	// false
}

func ExampleRetryableOf() {
	fmt.Println(toolerr.RetryableOf(domain.NewRateLimited(0)))
	fmt.Println(toolerr.RetryableOf(errors.New("x")))
	// Output:
	// true true
	// false false
}

func ExampleToolError_WithRetryAfter() {
	err := toolerr.New("The exchange rate service is busy.").WithRetryAfter(10 * time.Second)
	fmt.Println(toolerr.RetryableOf(err))
	fmt.Println(toolerr.RetryAfterOf(err))
	// An explicit "do not retry" drops the delay.
	fmt.Println(toolerr.RetryAfterOf(err.WithRetryable(false)))
	// Output:
	// true true
	// 10s
	// 0s
}

func ExampleRetryAfterOf() {
	fmt.Println(toolerr.RetryAfterOf(fmt.Errorf("quote: %w", domain.NewRateLimited(30*time.Second))))
	fmt.Println(toolerr.RetryAfterOf(errors.New("x")))
	// Output:
	// 30s
	// 0s
}

func ExampleDetailsOf() {
	fmt.Println(toolerr.DetailsOf(domain.NewNotFound("User", "usr_1")))
	// Output: map[resourceId:usr_1 resourceType:User]
}

func ExampleCheckToolName() {
	fmt.Println(toolerr.CheckToolName("get_user"))
	fmt.Println(toolerr.CheckToolName("get user"))
	// Output:
	// <nil>
	// mcperr: INVALID_TOOL_NAME: "get user": character ' ' at byte 3 is not allowed; use only ASCII letters, digits, '_', '-' and '.'
}
