package toolerr_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/toolerr"
)

func ExampleNew() {
	err := toolerr.New("b must not be zero.").WithHint("Pass a non-zero b.")
	fmt.Println(err.PublicMessage())
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
	fmt.Println(err.PublicMessage()) // what the model reads
	fmt.Println(err.Error())         // what the log keeps
	fmt.Println(errors.Is(err, cause))
	// Output:
	// The order database is unavailable; try again shortly.
	// The order database is unavailable; try again shortly.: dial 10.0.0.12:5432: connection refused
	// true
}

// A message with values in it is formatted with fmt.Sprintf. WithCause keeps
// a nil cause as no cause, and still returns a ToolError, so a failure that
// may be nil is tested first.
func ExampleToolError_WithCause_formatted() {
	load := func(id string) error {
		return fmt.Errorf("select order %s: password=hunter2: connection reset", id)
	}
	id := "o-7"
	if err := load(id); err != nil {
		terr := toolerr.New(fmt.Sprintf("Order %s could not be loaded; try again shortly.", id)).WithCause(err)
		fmt.Println(terr.PublicMessage()) // what the model reads
		fmt.Println(terr.Error())         // what the log keeps
	}
	// Output:
	// Order o-7 could not be loaded; try again shortly.
	// Order o-7 could not be loaded; try again shortly.: select order o-7: password=hunter2: connection reset
}

func ExampleToolError_WithDetails() {
	err := toolerr.New("Not enough stock.").WithCode("INVENTORY_EXHAUSTED").WithDetails(map[string]any{"available": 2})
	fmt.Println(err.ErrorCode(), err.PublicDetails())
	// Output: INVENTORY_EXHAUSTED map[available:2]
}

func ExampleRetryAdvice() {
	fmt.Println(toolerr.RetryAdvice(domain.NewRateLimited(30 * time.Second)))
	fmt.Println(toolerr.RetryAdvice(errors.New("x")))
	// What an error wraps is not its own word; the pipeline reads the whole
	// chain, as PublicError says.
	fmt.Println(toolerr.RetryAdvice(fmt.Errorf("quote: %w", domain.NewRateLimited(30*time.Second))))
	// Output:
	// true true 30s
	// false false 0s
	// false false 0s
}

func ExampleToolError_WithRetryAfter() {
	err := toolerr.New("The exchange rate service is busy.").WithRetryAfter(10 * time.Second)
	fmt.Println(toolerr.RetryAdvice(err))
	// An explicit "do not retry" drops the delay.
	fmt.Println(toolerr.RetryAdvice(err.WithRetryable(false)))
	// Output:
	// true true 10s
	// false true 0s
}

// Wrap puts a tool's words before what the model reads of a failure, as
// fmt.Errorf("...: %w") puts them before its text: over a ToolError (or a
// domain error, or an error declared public) the model reads both, over
// any other error only the words, and the error's text stays in the log.
func ExampleWrap() {
	p, err := filter.New(filter.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		panic(err)
	}
	call := filter.Call{Tool: "list_docs"}
	missing := toolerr.New("docs filesystem not provided")
	f := p.Handle(context.Background(), call, toolerr.Wrap(toolerr.Wrap(missing, "failed to list docs"), "failed listing docs"))
	fmt.Println(f.Envelope.Message)

	refused := errors.New("dial 10.0.0.12:5432: password=hunter2: connection refused")
	f = p.Handle(context.Background(), call, toolerr.Wrap(refused, "failed listing docs"))
	fmt.Println(f.Envelope.Message, f.Envelope.Category, f.Envelope.Ref != "")
	// Output:
	// failed listing docs: failed to list docs: docs filesystem not provided
	// failed listing docs server true
}
