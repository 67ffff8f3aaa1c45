package filter_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
)

// A request that is not a tool call, named by Call.Method, fails with a
// JSON-RPC error: its code is Failure.JSONRPCCode, its message the
// envelope's, its data the envelope.
func ExamplePipeline_Handle_resource() {
	p, err := filter.New(filter.WithLogger(stdoutLogger()), filter.WithRefGenerator(fixedRef))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()

	// A resource handler that fails: masked, logged once with the ref.
	read := filter.Call{Method: "resources/read", Resource: "file:///orders.db", ProtocolVersion: "2026-07-28", RequestID: "7"}
	f := p.Handle(ctx, read, errors.New("connection refused by 10.0.0.12:5432"))
	fmt.Println(f.JSONRPCCode, f.Envelope.Message)

	// A domain error of a prompt: its public message, -32602, the envelope
	// as data.
	get := filter.Call{Method: "prompts/get", Prompt: "summarize_order", RequestID: "8"}
	f = p.Handle(ctx, get, domain.NewNotFound("Order", "ord_404"))
	env := f.Envelope
	env.Timestamp = "2026-01-15T10:30:00Z" // the time of the failure, fixed here for the output
	data, _ := json.Marshal(env)
	fmt.Println(f.JSONRPCCode, env.Message)
	fmt.Println(string(data))
	// Output:
	// level=ERROR msg="resource read failed" resource=file:///orders.db code=INTERNAL_ERROR ref=4f9c2a7d1e0b3c58 error="connection refused by 10.0.0.12:5432"
	// -32603 Internal error in resource "file:///orders.db" (ref: 4f9c2a7d1e0b3c58).
	// level=INFO msg="prompt get failed" prompt=summarize_order code=NOT_FOUND error="Order not found: ord_404"
	// -32602 Order not found: ord_404
	// {"version":1,"error":true,"code":"NOT_FOUND","category":"client","message":"Order not found: ord_404","details":{"resourceId":"ord_404","resourceType":"Order"},"retryable":false,"timestamp":"2026-01-15T10:30:00Z","requestId":"8"}
}

// A resource not found carries its URI in the envelope. On protocol
// 2025-11-25 and earlier its code is -32002, which the specification's
// resources page names; on later revisions, and when the revision is
// unknown, -32602.
func ExampleEnvelope() {
	p, _ := filter.New(filter.WithLogger(discard()))
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		read := filter.Call{Method: "resources/read", Resource: "file:///a.txt", ProtocolVersion: version}
		f := p.Handle(context.Background(), read, domain.NewNotFound("File", "a.txt"))
		fmt.Println(version, f.JSONRPCCode, f.Envelope.URI, f.Envelope.Code)
	}
	// Output:
	// 2025-11-25 -32002 file:///a.txt NOT_FOUND
	// 2026-07-28 -32602 file:///a.txt NOT_FOUND
}
