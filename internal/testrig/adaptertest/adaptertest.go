// Package adaptertest is the one table of tool-call cases that every mcperr
// adapter is tested against, so that a go-sdk server and a mcp-go server
// provably answer each kind of failure the same way.
//
// An adapter's test registers Tools on a real server of its SDK, calls each
// Case through that SDK's real client, converts what the client received
// into a Result, and hands it to Check with the server's captured log.
package adaptertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	crdb "github.com/cockroachdb/errors"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/toolerr"
)

// Canary is a secret planted in internal errors, panics, validation values
// and authorization subjects. It must never appear in any byte a client
// receives.
const Canary = "hunter2-CANARY-5e1f"

// SelfBuilt is returned by a Behaviour to ask the adapter's test to answer
// with an isError result that the handler builds itself, with Text as its
// only content. mcperr must pass such a result through untouched.
type SelfBuilt struct{ Text string }

func (s *SelfBuilt) Error() string { return "self-built error result: " + s.Text }

// Behaviour is what a tool does, independent of any SDK. It returns the text
// of a successful result, or an error; it may panic.
type Behaviour func(ctx context.Context, args map[string]any) (string, error)

// Tool is a tool the adapters register.
type Tool struct {
	Name        string
	Description string
	// InputSchema is the tool's JSON input schema.
	InputSchema json.RawMessage
	// OutputSchema, when set, is the tool's JSON output schema; a
	// successful call returns {"text": ...} as structured content.
	OutputSchema json.RawMessage
	Do           Behaviour
}

// Schemas used by the tools.
var (
	EmptySchema  = json.RawMessage(`{"type":"object"}`)
	ItemsSchema  = json.RawMessage(`{"type":"object","properties":{"items":{"type":"array","items":{"type":"object","properties":{"qty":{"type":"integer","minimum":1}},"required":["qty"]}}},"required":["items"]}`)
	DivideSchema = json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"],"additionalProperties":false}`)
	OutputSchema = json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)
)

// Registry returns the registry of the table's own codes, INVENTORY_EXHAUSTED
// (with a documentation URL) and ORDER_ALREADY_DELIVERED. Adapters' tests give it to their pipelines
// with filter.WithRegistry.
func Registry() *codes.Registry {
	r, err := codes.NewRegistry(
		codes.Info{Code: "INVENTORY_EXHAUSTED", Category: codes.Business, Description: "Not enough stock.",
			DocURL: "https://docs.example.com/errors#INVENTORY_EXHAUSTED"},
		codes.Info{Code: "ORDER_ALREADY_DELIVERED", Category: codes.Business, Description: "The order was delivered."},
	)
	if err != nil {
		panic(err)
	}
	return r
}

// Calls counts the calls that reached the handlers of divide and
// order_items, so that a test can tell whether the SDK refused arguments
// before the handler ran (go-sdk does, for a typed tool) or the handler ran
// and failed on them (a raw handler, mcp-go).
var Calls atomic.Int64

// strictArgs returns an error unless args hold exactly the numbers named,
// as a handler that decodes its arguments strictly would.
func strictArgs(args map[string]any, names ...string) error {
	for _, n := range names {
		if _, ok := args[n].(float64); !ok {
			return fmt.Errorf("decode arguments: %q is %T, want a number", n, args[n])
		}
	}
	for k := range args {
		if !slices.Contains(names, k) {
			return fmt.Errorf("decode arguments: unknown field %q", k)
		}
	}
	return nil
}

// Tools returns the tools of the table.
func Tools() []Tool {
	fail := func(err error) Behaviour {
		return func(context.Context, map[string]any) (string, error) { return "", err }
	}
	return []Tool{
		{Name: "divide", Description: "Divides a by b.", InputSchema: DivideSchema, Do: func(_ context.Context, args map[string]any) (string, error) {
			Calls.Add(1)
			if err := strictArgs(args, "a", "b"); err != nil {
				return "", err
			}
			a, b := args["a"].(float64), args["b"].(float64)
			if b == 0 {
				return "", toolerr.New("b must not be zero.").WithHint("Pass a non-zero b.")
			}
			return fmt.Sprint(a / b), nil
		}},
		{Name: "ok", Description: "Succeeds.", InputSchema: EmptySchema, Do: func(context.Context, map[string]any) (string, error) { return "all good", nil }},
		{Name: "coded_tool_error", InputSchema: EmptySchema, Do: fail(toolerr.New("Not enough stock for 3 units.").
			WithCode("INVENTORY_EXHAUSTED").WithDetails(map[string]any{"available": 2}).WithRetryable(false).
			WithCause(errors.New("stock service said: " + Canary)))},
		{Name: "user_lookup", InputSchema: EmptySchema, Do: fail(toolerr.New("Failed to get user.").
			WithCause(fmt.Errorf("dial tcp 10.0.0.5:5432: password=%s: connection refused", Canary)))},
		{Name: "user_lookup_nested", InputSchema: EmptySchema, Do: fail(toolerr.New("Failed to get user.").
			WithCause(toolerr.New("The directory client failed.").WithCause(fmt.Errorf("dial tcp 10.0.0.5:5432: password=%s: connection refused", Canary))))},
		{Name: "user_lookup_wrapped", InputSchema: EmptySchema, Do: fail(toolerr.Wrap(toolerr.Wrap(
			fmt.Errorf("dial tcp 10.0.0.5:5432: password=%s: connection refused", Canary), "directory lookup failed"), "failed to get user"))},
		{Name: "ship_wrapped", InputSchema: EmptySchema, Do: fail(toolerr.Wrap(toolerr.Wrap(
			fmt.Errorf("load %s: %w", Canary, domain.NewNotFound("Order", "ord_404")), "no order to ship"), "could not ship the order"))},
		{Name: "busy", InputSchema: EmptySchema, Do: fail(toolerr.New("The billing service is busy.").
			WithCode(codes.ExternalServiceError).WithRetryAfter(1500 * time.Millisecond).WithCause(errors.New("billing: 503 " + Canary)))},
		{Name: "order_items", Description: "Orders items.", InputSchema: ItemsSchema, Do: func(_ context.Context, args map[string]any) (string, error) {
			Calls.Add(1)
			items, _ := args["items"].([]any)
			for i, it := range items {
				m, _ := it.(map[string]any)
				if q, _ := m["qty"].(float64); q < 1 {
					return "", fmt.Errorf("order_items: item %d has quantity %v", i, m["qty"])
				}
			}
			return "ordered", nil
		}},
		{Name: "not_found", InputSchema: EmptySchema, Do: fail(fmt.Errorf("load order: %w", domain.NewNotFound("Order", "ord_404")))},
		{Name: "step_not_found", InputSchema: EmptySchema, Do: fail(toolerr.New("Could not ship the order.").
			WithCause(fmt.Errorf("load order %s: %w", Canary, domain.NewNotFound("Order", "ord_404"))))},
		{Name: "validation", InputSchema: EmptySchema, Do: fail(domain.NewValidation("status", Canary, "Must be one of: pending, shipped"))},
		{Name: "authorization", InputSchema: EmptySchema, Do: fail(domain.NewAuthorization("orders:write:"+Canary, "user-"+Canary))},
		{Name: "business_rule", InputSchema: EmptySchema, Do: fail(domain.NewBusinessRule("ORDER_ALREADY_DELIVERED",
			"Cannot change status of a delivered order", map[string]any{"orderId": "ord_1", "currentStatus": "delivered"}))},
		{Name: "conflict", InputSchema: EmptySchema, Do: fail(&domain.Conflict{Resource: "User", Message: "A user with this email already exists.", Cause: errors.New("pq: duplicate key " + Canary)})},
		{Name: "rate_limited", InputSchema: EmptySchema, Do: fail(domain.NewRateLimited(30 * time.Second))},
		{Name: "internal", InputSchema: EmptySchema, Do: fail(fmt.Errorf("dial 10.0.0.5: password=%s refused", Canary))},
		{Name: "hinted_internal", InputSchema: EmptySchema, Do: fail(crdb.WithHint(crdb.Newf("db %s down", Canary), "The database is restarting; retry in a minute."))},
		{Name: "joined", InputSchema: EmptySchema, Do: fail(errors.Join(errors.New("cleanup: "+Canary), domain.NewNotFound("User", "usr_9")))},
		{Name: "panic", InputSchema: EmptySchema, Do: func(context.Context, map[string]any) (string, error) { panic("nil map write near " + Canary) }},
		{Name: "panic_error", InputSchema: EmptySchema, Do: func(context.Context, map[string]any) (string, error) {
			panic(toolerr.New("a ToolError thrown with panic is still a panic: " + Canary))
		}},
		{Name: "cancelled", InputSchema: EmptySchema, Do: fail(fmt.Errorf("query %s: %w", Canary, context.Canceled))},
		{Name: "deadline", InputSchema: EmptySchema, Do: fail(fmt.Errorf("call %s: %w", Canary, context.DeadlineExceeded))},
		{Name: "self_built", InputSchema: EmptySchema, Do: fail(&SelfBuilt{Text: "handler-built error text"})},
		{Name: "with_output", InputSchema: EmptySchema, OutputSchema: OutputSchema, Do: func(_ context.Context, args map[string]any) (string, error) {
			if args["fail"] == true {
				return "", fmt.Errorf("render %s: broken", Canary)
			}
			return "structured", nil
		}},
	}
}

// Expect is what a client must receive for a Case.
type Expect struct {
	// ProtocolError means a JSON-RPC error, not a tool result.
	ProtocolError bool
	// IsError is the result's isError.
	IsError bool
	// Code is the envelope's code; zero when there is no envelope.
	Code codes.Code
	// Text is the first text block exactly; "{ref}" stands for the ref.
	Text string
	// Rest are the text blocks after the first, exactly, as the default
	// renderer makes them; "{ref}" stands for the ref.
	Rest []string
	// Category is the envelope's category.
	Category string
	// DocURL is the envelope's docUrl.
	DocURL string
	// RetryAfter is the envelope's retryAfterSeconds; zero: absent.
	RetryAfter float64
	// Fields are the fields a validation error must name, in order.
	Fields []string
	// Details must be a subset of the envelope's details.
	Details map[string]any
	// Retryable is the envelope's retryable flag, when it must be known.
	Retryable *bool
	// Masked means a ref in the text and in exactly one error-level record.
	Masked bool
	// Server means a server error that is not masked: a ref in the
	// envelope and in exactly one error-level record.
	Server bool
	// Logged is the number of log records the call must write.
	Logged int
	// LogContains are strings the log record must hold (the full error).
	LogContains []string
	// HandlerSkipped means the handler must not have run. No case of the
	// shared table sets it: arguments are checked against the schema only
	// once a call has failed, so whether the handler ran depends on the SDK
	// (go-sdk refuses a typed tool's arguments before its handler; a raw
	// handler or an mcp-go handler runs and fails on them). An adapter's
	// own cases may set it.
	HandlerSkipped bool
}

// Case is one call and what it must give.
type Case struct {
	Name string
	Tool string
	Args map[string]any
	Want Expect
}

var (
	yes = true
	no  = false
)

// Blocks of the default rendering that many cases share.
const (
	noRetry     = "\nRetry: no, not with the same arguments."
	internalRun = "Code: INTERNAL_ERROR\nRetry: no."
)

// Cases returns the table.
func Cases() []Case {
	return []Case{
		{"success", "ok", nil, Expect{Text: "all good"}},
		{"ToolError", "divide", map[string]any{"a": 1, "b": 0}, Expect{IsError: true, Code: codes.ToolFailed, Category: "client",
			Text: "b must not be zero.", Rest: []string{"Code: TOOL_ERROR" + noRetry + "\nHint: Pass a non-zero b."}, Retryable: &no, Logged: 1}},
		{"ToolError with code, details and cause", "coded_tool_error", nil, Expect{IsError: true, Code: "INVENTORY_EXHAUSTED", Category: "business",
			Text: "Not enough stock for 3 units.", Rest: []string{"Code: INVENTORY_EXHAUSTED\nDetails: {\"available\":2}" + noRetry},
			Details: map[string]any{"available": 2.0}, Retryable: &no, DocURL: "https://docs.example.com/errors#INVENTORY_EXHAUSTED", Logged: 1,
			LogContains: []string{"stock service said: " + Canary}}},
		{"ToolError over a cause nothing classifies", "user_lookup", nil, Expect{IsError: true, Code: codes.ToolFailed, Category: "server",
			Text: "Failed to get user.", Rest: []string{"Code: TOOL_ERROR\nRetry: not before checking; the outcome is unknown, and the tool may have done its work before it failed.\nRef: {ref}"},
			Retryable: &no, Server: true, Logged: 1, LogContains: []string{"connection refused"}}},
		{"ToolError over a ToolError over a cause nothing classifies", "user_lookup_nested", nil, Expect{IsError: true, Code: codes.ToolFailed, Category: "server",
			Text: "Failed to get user.", Rest: []string{"Code: TOOL_ERROR\nRetry: not before checking; the outcome is unknown, and the tool may have done its work before it failed.\nRef: {ref}\nHint: The directory client failed."},
			Retryable: &no, Server: true, Logged: 1, LogContains: []string{"connection refused"}}},
		{"toolerr.Wrap over toolerr.Wrap over a cause nothing classifies", "user_lookup_wrapped", nil, Expect{IsError: true, Code: codes.ToolFailed, Category: "server",
			Text: "failed to get user: directory lookup failed", Rest: []string{"Code: TOOL_ERROR\nRetry: not before checking; the outcome is unknown, and the tool may have done its work before it failed.\nRef: {ref}"},
			Retryable: &no, Server: true, Logged: 1, LogContains: []string{"connection refused"}}},
		{"toolerr.Wrap over toolerr.Wrap over a NotFound in a wrapper", "ship_wrapped", nil, Expect{IsError: true, Code: codes.NotFound, Category: "client",
			Text:    "could not ship the order: no order to ship: Order not found: ord_404",
			Rest:    []string{"Code: NOT_FOUND\nDetails: {\"resourceId\":\"ord_404\",\"resourceType\":\"Order\"}" + noRetry},
			Details: map[string]any{"resourceType": "Order", "resourceId": "ord_404"}, Logged: 1}},
		{"ToolError with a server code and a retry delay", "busy", nil, Expect{IsError: true, Code: codes.ExternalServiceError, Category: "server",
			Text: "The billing service is busy.", Rest: []string{"Code: EXTERNAL_SERVICE_ERROR\nRetry: yes, after 2 seconds.\nRef: {ref}"},
			Retryable: &yes, RetryAfter: 1.5, Server: true, Logged: 1, LogContains: []string{"billing: 503 " + Canary}}},
		{"NotFound", "not_found", nil, Expect{IsError: true, Code: codes.NotFound, Category: "client", Text: "Order not found: ord_404",
			Rest:    []string{"Code: NOT_FOUND\nDetails: {\"resourceId\":\"ord_404\",\"resourceType\":\"Order\"}" + noRetry},
			Details: map[string]any{"resourceType": "Order", "resourceId": "ord_404"}, Logged: 1}},
		{"NotFound under a ToolError's words", "step_not_found", nil, Expect{IsError: true, Code: codes.NotFound, Category: "client", Text: "Could not ship the order.",
			Rest:    []string{"Code: NOT_FOUND\nDetails: {\"resourceId\":\"ord_404\",\"resourceType\":\"Order\"}" + noRetry + "\nHint: Order not found: ord_404"},
			Details: map[string]any{"resourceType": "Order", "resourceId": "ord_404"}, Logged: 1, LogContains: []string{Canary}}},
		{"Validation from the service", "validation", nil, Expect{IsError: true, Code: codes.ValidationError, Category: "client",
			Text:   "Validation failed for status: Must be one of: pending, shipped",
			Rest:   []string{"Code: VALIDATION_ERROR\nDetails: {\"violations\":[{\"constraint\":\"Must be one of: pending, shipped\",\"field\":\"status\"}]}" + noRetry},
			Fields: []string{"status"}, Logged: 1, LogContains: []string{Canary}}},
		{"Authorization", "authorization", nil, Expect{IsError: true, Code: codes.Forbidden, Category: "client", Text: "Access denied.",
			Rest: []string{"Code: FORBIDDEN" + noRetry}, Logged: 1, LogContains: []string{"user-" + Canary}}},
		{"BusinessRule", "business_rule", nil, Expect{IsError: true, Code: "ORDER_ALREADY_DELIVERED", Category: "business",
			Text:    "Cannot change status of a delivered order",
			Rest:    []string{"Code: ORDER_ALREADY_DELIVERED\nDetails: {\"currentStatus\":\"delivered\",\"orderId\":\"ord_1\"}" + noRetry},
			Details: map[string]any{"currentStatus": "delivered"}, Logged: 1}},
		{"Conflict", "conflict", nil, Expect{IsError: true, Code: codes.Conflict, Category: "client", Text: "A user with this email already exists.",
			Rest: []string{"Code: CONFLICT\nDetails: {\"resourceType\":\"User\"}" + noRetry}, Logged: 1}},
		{"RateLimited", "rate_limited", nil, Expect{IsError: true, Code: codes.RateLimited, Category: "client",
			Text: "Too many requests. Retry after 30 seconds.", Rest: []string{"Code: RATE_LIMITED\nDetails: {\"retryAfterSeconds\":30}\nRetry: yes, after 30 seconds."},
			Details: map[string]any{"retryAfterSeconds": 30.0}, Retryable: &yes, RetryAfter: 30, Logged: 1}},
		{"plain error with a secret", "internal", nil, Expect{IsError: true, Code: codes.InternalError, Category: "server",
			Text: `Internal error in tool "internal" (ref: {ref}).`, Rest: []string{internalRun}, Masked: true, Retryable: &no, Logged: 1,
			LogContains: []string{"password=" + Canary}}},
		// A masked error has no hints, not even a cockroachdb/errors hint
		// meant for users.
		{"hint of a masked error does not reach the model", "hinted_internal", nil, Expect{IsError: true, Code: codes.InternalError, Category: "server",
			Text: `Internal error in tool "hinted_internal" (ref: {ref}).`, Rest: []string{internalRun},
			Masked: true, Logged: 1, LogContains: []string{"db " + Canary + " down"}}},
		{"joined errors", "joined", nil, Expect{IsError: true, Code: codes.NotFound, Category: "client", Text: "User not found: usr_9",
			Rest: []string{"Code: NOT_FOUND\nDetails: {\"resourceId\":\"usr_9\",\"resourceType\":\"User\"}" + noRetry}, Logged: 1}},
		{"panic", "panic", nil, Expect{IsError: true, Code: codes.InternalError, Category: "server",
			Text: `Internal error in tool "panic" (ref: {ref}).`, Rest: []string{internalRun}, Masked: true, Logged: 1, LogContains: []string{Canary, "goroutine"}}},
		{"panic with a ToolError value", "panic_error", nil, Expect{IsError: true, Code: codes.InternalError, Category: "server",
			Text: `Internal error in tool "panic_error" (ref: {ref}).`, Rest: []string{internalRun}, Masked: true, Logged: 1}},
		{"server survives a panic", "ok", nil, Expect{Text: "all good"}},
		// A sub-operation's context cancelled or past its deadline while the
		// request is alive: the server's failure, not the client's.
		{"cancelled sub-operation", "cancelled", nil, Expect{IsError: true, Code: codes.InternalError, Category: "server",
			Text: `Internal error in tool "cancelled" (ref: {ref}).`, Rest: []string{internalRun}, Masked: true, Logged: 1,
			LogContains: []string{"context canceled"}}},
		{"sub-operation past its deadline", "deadline", nil, Expect{IsError: true, Code: codes.InternalError, Category: "server",
			Text: `Internal error in tool "deadline" (ref: {ref}).`, Rest: []string{internalRun}, Masked: true, Logged: 1,
			LogContains: []string{"context deadline exceeded"}}},
		{"missing argument", "divide", map[string]any{"a": 1}, Expect{IsError: true, Code: codes.ValidationError, Category: "client",
			Text:   "Validation failed for b: is required",
			Rest:   []string{"Code: VALIDATION_ERROR\nDetails: {\"violations\":[{\"constraint\":\"is required\",\"field\":\"b\",\"pointer\":\"/b\",\"reason\":\"required\"}]}" + noRetry},
			Fields: []string{"b"}, Logged: 1}},
		{"wrong type", "divide", map[string]any{"a": Canary, "b": 2}, Expect{IsError: true, Code: codes.ValidationError, Category: "client",
			Text:   "Validation failed for a: must be number, not string",
			Rest:   []string{"Code: VALIDATION_ERROR\nDetails: {\"violations\":[{\"constraint\":\"must be number, not string\",\"field\":\"a\",\"pointer\":\"/a\",\"reason\":\"type\"}]}" + noRetry},
			Fields: []string{"a"}, Logged: 1}},
		{"extra argument", "divide", map[string]any{"a": 1, "b": 2, "token": Canary}, Expect{IsError: true, Code: codes.ValidationError, Category: "client",
			Text:   "Validation failed for token: is not a known property; remove it",
			Rest:   []string{"Code: VALIDATION_ERROR\nDetails: {\"violations\":[{\"constraint\":\"is not a known property; remove it\",\"field\":\"token\",\"pointer\":\"/token\",\"reason\":\"additionalProperties\"}]}" + noRetry},
			Fields: []string{"token"}, Logged: 1}},
		{"nested field", "order_items", map[string]any{"items": []any{map[string]any{"qty": 1}, map[string]any{"qty": 0}}}, Expect{IsError: true,
			Code: codes.ValidationError, Category: "client", Text: "Validation failed for items/1/qty: must be at least 1",
			Rest:   []string{"Code: VALIDATION_ERROR\nDetails: {\"violations\":[{\"constraint\":\"must be at least 1\",\"field\":\"items/1/qty\",\"pointer\":\"/items/1/qty\",\"reason\":\"minimum\"}]}" + noRetry},
			Fields: []string{"items/1/qty"}, Logged: 1}},
		{"self-built error result", "self_built", nil, Expect{IsError: true, Text: "handler-built error text"}},
		{"output schema, success", "with_output", nil, Expect{Text: `{"text":"structured"}`}},
		{"output schema, failure", "with_output", map[string]any{"fail": true}, Expect{IsError: true, Code: codes.InternalError, Category: "server",
			Text: `Internal error in tool "with_output" (ref: {ref}).`, Rest: []string{internalRun}, Masked: true, Logged: 1}},
		{"unknown tool", "no_such_tool", nil, Expect{ProtocolError: true}},
	}
}
