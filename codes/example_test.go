package codes_test

import (
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

func ExampleRegistry_Register() {
	var reg codes.Registry
	fmt.Println(reg.Register(codes.Info{Code: "insufficient funds", Category: codes.Business}))
	fmt.Println(reg.Register(codes.Info{Code: codes.NotFound, Category: codes.Client}))
	// Output:
	// mcperr: INVALID_CODE: "insufficient funds": a code must be UPPER_SNAKE: capital letters, digits and single underscores, starting with a letter (for example INSUFFICIENT_FUNDS)
	// mcperr: DUPLICATE_CODE: "NOT_FOUND": the code is built in; use it as it is or choose another name
}

func ExampleRegistry_All() {
	reg, _ := codes.NewRegistry(codes.Info{Code: "ORDER_ALREADY_SHIPPED", Category: codes.Business, Description: "The order has left the warehouse."})
	for _, in := range reg.All() {
		if in.Category == codes.Business {
			fmt.Printf("%s: %s\n", in.Code, in.Description)
		}
	}
	// Output:
	// BUSINESS_RULE_VIOLATION: A business rule refused the request.
	// ORDER_ALREADY_SHIPPED: The order has left the warehouse.
}

func ExampleRegistry_Lookup() {
	var reg codes.Registry // the zero Registry knows the built-in codes
	in, ok := reg.Lookup(codes.RateLimited)
	fmt.Println(ok, in.Category, in.Retryable, in.Description)
	// Output: true client true Too many requests; retry later.
}

func ExampleBuiltin() {
	for _, in := range codes.Builtin()[:3] {
		fmt.Println(in.Code, in.Category)
	}
	// Output:
	// VALIDATION_ERROR client
	// NOT_FOUND client
	// UNAUTHORIZED client
}

func ExampleCode_Validate() {
	fmt.Println(codes.Code("INSUFFICIENT_FUNDS").Validate())
	fmt.Println(codes.Code("").Validate())
	// Output:
	// <nil>
	// mcperr: INVALID_CODE: a code must not be empty
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

func ExampleCategory_UnmarshalText() {
	var c codes.Category
	fmt.Println(c.UnmarshalText([]byte("business")), c)
	// Output: <nil> business
}
