package filter_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
)

// A transient failure of a tool safe to call again asks the adapter to
// call it again (Failure.Retry), here after the 200 ms the failure asks
// for; the adapters do, within the same request, and its record is a
// warning: the call may still succeed.
// Here get_stock is named safe; a tool annotated readOnlyHint or
// idempotentHint is too. charge, which may change things, is not retried.
func ExampleWithRetries() {
	errReplicaBusy := errors.New("replica 10.0.0.7: too many connections")
	pipeline, err := filter.New(
		filter.WithLogger(stdoutLogger()), filter.WithRefGenerator(fixedRef),
		filter.WithRetries(2, "get_stock"), // get_stock only reads, whatever its annotations say
		filter.WithFilters(filter.Is(errReplicaBusy, filter.Response{
			Code: codes.Unavailable, Message: "The stock replica is busy.", RetryAfter: 200 * time.Millisecond})),
	)
	if err != nil {
		panic(err)
	}
	f := pipeline.Handle(context.Background(), filter.Call{Tool: "get_stock"}, errReplicaBusy)
	fmt.Println("get_stock called again:", f.Retry > 0)
	f = pipeline.Handle(context.Background(), filter.Call{Tool: "charge"}, errReplicaBusy)
	fmt.Println("charge called again:", f.Retry > 0)
	// Output:
	// level=WARN msg="tool call failed" tool=get_stock code=UNAVAILABLE ref=4f9c2a7d1e0b3c58 attempt=1 retry_in=200ms error="replica 10.0.0.7: too many connections"
	// get_stock called again: true
	// level=ERROR msg="tool call failed" tool=charge code=UNAVAILABLE ref=4f9c2a7d1e0b3c58 not_retried="the tool is annotated neither readOnlyHint nor idempotentHint, and filter.WithRetries does not name it safe" error="replica 10.0.0.7: too many connections"
	// charge called again: false
}
