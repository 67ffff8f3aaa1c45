package sentrymcp_test

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"

	"github.com/cockroachdb/errors"
	"github.com/getsentry/sentry-go"

	"github.com/mcperr/mcperr/contrib/sentrymcp"
	"github.com/mcperr/mcperr/filter"
)

// Event builds the event of an incident: the error's safe parts only.
func ExampleEvent() {
	err := errors.Wrapf(errors.Newf("password=%s", "hunter2"), "connect to %s", errors.Safe("orders-db"))
	e := sentrymcp.Event(filter.Incident{Ref: "9b1c04e2d7a35f68", Call: filter.Call{Tool: "lookup", RequestID: "7"}, Code: "INTERNAL_ERROR", Err: err})
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

// Reporter is given to the pipeline, which calls it once per server error.
func ExampleReporter() {
	tr := &fakeTransport{}
	client, err := sentry.NewClient(sentry.ClientOptions{Dsn: "https://public@sentry.invalid/1", Transport: tr, DisableMetrics: true})
	if err != nil {
		panic(err)
	}
	hub := sentry.NewHub(client, sentry.NewScope())

	p, err := filter.New(filter.WithReporter(sentrymcp.Reporter(hub)), filter.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		panic(err)
	}
	r := p.Handle(context.Background(), filter.Call{Tool: "lookup"}, fmt.Errorf("dial 10.0.0.5: password=hunter2 refused"))
	events := tr.sent()
	fmt.Println(len(events), events[0].Tags["ref"] == r.Ref, events[0].Tags["tool"])
	// Output:
	// 1 true lookup
}
