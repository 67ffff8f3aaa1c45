package codes_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/mcperr/mcperr/codes"
)

func ExampleNewRegistry() {
	reg, err := codes.NewRegistry(
		codes.Info{Code: "INSUFFICIENT_FUNDS", Category: codes.Business, Description: "The balance is too low for the transfer."},
		codes.Info{Code: "PAYMENT_GATEWAY_DOWN", Category: codes.Server, Description: "The payment gateway is down.", Retryable: true},
	)
	if err != nil {
		panic(err)
	}
	in, _ := reg.Lookup("PAYMENT_GATEWAY_DOWN")
	fmt.Println(in.Code, in.Category, in.Retryable)
	// Output: PAYMENT_GATEWAY_DOWN server true
}

// NewRegistry refuses a malformed name, and a name that is built in or
// given twice, with a *DefinitionError that says what to fix.
func ExampleDefinitionError() {
	_, err := codes.NewRegistry(codes.Info{Code: "insufficient funds", Category: codes.Business})
	fmt.Println(err)
	_, err = codes.NewRegistry(codes.Info{Code: codes.NotFound, Category: codes.Client})
	fmt.Println(err)
	var de *codes.DefinitionError
	if errors.As(err, &de) {
		fmt.Println(de.Mistake, de.Subject)
	}
	// Output:
	// mcperr: INVALID_CODE: "insufficient funds": a code must be UPPER_SNAKE: capital letters, digits and single underscores, starting with a letter (for example INSUFFICIENT_FUNDS)
	// mcperr: DUPLICATE_CODE: "NOT_FOUND": the code is built in; use it as it is or choose another name
	// DUPLICATE_CODE NOT_FOUND
}

func ExampleRegistry_Lookup() {
	var reg *codes.Registry // a nil Registry knows the built-in codes
	in, ok := reg.Lookup(codes.RateLimited)
	fmt.Println(ok, in.Category, in.Retryable, in.Description)
	// Output: true client true Too many requests; retry later.
}

// A registration can say how long to wait before a retry, and where the
// code is documented; both reach the error envelope.
func ExampleInfo() {
	reg, err := codes.NewRegistry(codes.Info{
		Code:        "LEDGER_BUSY",
		Category:    codes.Server,
		Description: "The ledger is busy.",
		Retryable:   true,
		RetryAfter:  30 * time.Second,
		DocURL:      "https://docs.example.com/errors#LEDGER_BUSY",
	})
	if err != nil {
		panic(err)
	}
	in, _ := reg.Lookup("LEDGER_BUSY")
	fmt.Println(in.Retryable, in.RetryAfter, in.DocURL)
	_, err = codes.NewRegistry(codes.Info{Code: "SLOW", Category: codes.Server, RetryAfter: time.Second})
	fmt.Println(err)
	// Output:
	// true 30s https://docs.example.com/errors#LEDGER_BUSY
	// mcperr: INVALID_CODE: "SLOW": RetryAfter is set but Retryable is false; set Retryable, or drop the delay
}

// A Category is its text: client, business or server.
func ExampleCategory() {
	in, _ := (*codes.Registry)(nil).Lookup(codes.BusinessRuleViolation)
	fmt.Println(in.Category, in.Category == "business")
	// Output: business true
}
