package sentrymcp_test

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"

	"github.com/cockroachdb/errors"
	"github.com/getsentry/sentry-go"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/contrib/sentrymcp"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/toolerr"
)

// Event builds the event of a server failure: the error's safe parts only.
func ExampleEvent() {
	err := errors.Wrapf(errors.Newf("password=%s", "hunter2"), "connect to %s", errors.Safe("orders-db"))
	e := sentrymcp.Event(filter.Failure{
		Call:     filter.Call{Tool: "lookup", RequestID: "7"},
		Envelope: filter.Envelope{Code: codes.InternalError, Category: codes.Server, Ref: "9b1c04e2d7a35f68"},
		Err:      err,
	})
	for _, k := range slices.Sorted(maps.Keys(e.Tags)) {
		fmt.Printf("%s=%s\n", k, e.Tags[k])
	}
	fmt.Println(e.Exception[len(e.Exception)-1].Value)
	// Output:
	// code=INTERNAL_ERROR
	// mcp.method=tools/call
	// ref=9b1c04e2d7a35f68
	// report_type=error
	// request_id=7
	// tool=lookup
	// *errutil.leafError: connect to orders-db: password=×
	// via *withstack.withStack
}

// Observer is given to the pipeline, which tells it of every failure; it
// sends an event for each server error only.
func ExampleObserver() {
	tr := &fakeTransport{}
	client, err := sentry.NewClient(sentry.ClientOptions{Dsn: "https://public@sentry.invalid/1", Transport: tr, DisableMetrics: true})
	if err != nil {
		panic(err)
	}
	hub := sentry.NewHub(client, sentry.NewScope())

	p, err := filter.New(filter.WithObserver(sentrymcp.Observer(hub)), filter.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	f := p.Handle(ctx, filter.Call{Tool: "lookup"}, fmt.Errorf("dial 10.0.0.5: password=hunter2 refused"))
	p.Handle(ctx, filter.Call{Tool: "divide"}, toolerr.New("b must not be zero.")) // a client error: no event
	events := tr.sent()
	fmt.Println(len(events), events[0].Tags["ref"] == f.Envelope.Ref, events[0].Tags["tool"])
	// Output:
	// 1 true lookup
}
