package filter_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
)

func ExamplePipeline_HandleRPC() {
	p, err := filter.New(filter.WithLogger(stdoutLogger()), filter.WithRefGenerator(fixedRef),
		filter.WithClock(func() time.Time { return time.Date(2026, 1, 15, 10, 30, 0, 0, time.UTC) }))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()

	// A resource handler that fails: masked, logged once with the ref.
	read := filter.Call{Kind: filter.KindResource, Resource: "file:///orders.db", ProtocolVersion: "2026-07-28", RequestID: "7"}
	e := p.HandleRPC(ctx, read, errors.New("connection refused by 10.0.0.12:5432"))
	fmt.Println(e.Code, e.Message)

	// A domain error of a prompt: its public message, -32602, the envelope
	// as data.
	get := filter.Call{Kind: filter.KindPrompt, Prompt: "summarize_order", RequestID: "8"}
	e = p.HandleRPC(ctx, get, domain.NewNotFound("Order", "ord_404"))
	data, _ := json.Marshal(e.Data)
	fmt.Println(e.Code, e.Message)
	fmt.Println(string(data))
	// Output:
	// level=ERROR msg="resource read failed" resource=file:///orders.db code=INTERNAL_ERROR ref=4f9c2a7d1e0b3c58 error="connection refused by 10.0.0.12:5432"
	// -32603 Internal error in resource "file:///orders.db" (ref: 4f9c2a7d1e0b3c58).
	// level=INFO msg="prompt get failed" prompt=summarize_order code=NOT_FOUND error="Order not found: ord_404" fields.resource_type=Order fields.resource_id=ord_404
	// -32602 Order not found: ord_404
	// {"version":1,"error":true,"code":"NOT_FOUND","category":"client","message":"Order not found: ord_404","details":{"resourceId":"ord_404","resourceType":"Order"},"retryable":false,"timestamp":"2026-01-15T10:30:00Z","requestId":"8"}
}

func ExampleKind() {
	for _, k := range []filter.Kind{filter.KindTool, filter.KindResource, filter.KindPrompt, filter.KindCompletion} {
		fmt.Println(k, k.Method())
	}
	// Output:
	// tool tools/call
	// resource resources/read
	// prompt prompts/get
	// completion completion/complete
}

func ExampleCall_Target() {
	fmt.Println(filter.Call{Tool: "divide"}.Target())
	fmt.Println(filter.Call{Kind: filter.KindResource, Resource: "orders://ord_1"}.Target())
	fmt.Println(filter.Call{Kind: filter.KindCompletion, Prompt: "greet"}.Target())
	// Output:
	// divide
	// orders://ord_1
	// greet
}

func ExampleErrorData_MarshalJSON() {
	d := filter.ErrorData{Envelope: filter.Envelope{Version: filter.EnvelopeVersion, Error: true, Code: "NOT_FOUND", Category: codes.Client,
		Message: "File not found: a.txt", Timestamp: "2026-01-15T10:30:00Z"}, URI: "file:///a.txt"}
	b, _ := json.Marshal(d)
	fmt.Println(string(b))
	// Output:
	// {"uri":"file:///a.txt","version":1,"error":true,"code":"NOT_FOUND","category":"client","message":"File not found: a.txt","retryable":false,"timestamp":"2026-01-15T10:30:00Z"}
}
