package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	crdb "github.com/cockroachdb/errors"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/toolerr"
)

// The service layer: plain Go, shared by both SDKs, returning mcperr's
// errors. Each function is one way a tool can fail.

var statuses = []string{"pending", "processing", "shipped", "delivered"}

// Divide fails with a ToolError, a message written for the model.
func Divide(a, b float64) (float64, error) {
	if b == 0 {
		return 0, toolerr.New("b must not be zero.").WithHint("Pass a non-zero b.")
	}
	return a / b, nil
}

// GetOrder fails with a NotFound for any order but ord_1.
func GetOrder(id string) (string, error) {
	if id != "ord_1" {
		return "", domain.NewNotFound("Order", id)
	}
	return "Order ord_1: pending", nil
}

// SetStatus fails with a Validation for a status outside the list.
func SetStatus(id, status string) (string, error) {
	if !slices.Contains(statuses, status) {
		return "", domain.NewValidation("status", status, "Must be one of: "+strings.Join(statuses, ", "))
	}
	return fmt.Sprintf("Order %s is now %s.", id, status), nil
}

// DeleteOrder always fails with an Authorization: the caller lacks the
// permission, which only the log may name.
func DeleteOrder(id string) (string, error) {
	return "", domain.NewAuthorization("orders:delete", "usr_guest")
}

// ShipOrder fails with a BusinessRule for a delivered order.
func ShipOrder(id string) (string, error) {
	if id == "ord_delivered" {
		return "", domain.NewBusinessRule("ORDER_ALREADY_DELIVERED", "Cannot change status of a delivered order",
			map[string]any{"orderId": id, "currentStatus": "delivered"})
	}
	return fmt.Sprintf("Order %s shipped.", id), nil
}

// Lookup fails the way an outage does, with a secret in the error and in
// the hint its driver attached.
func Lookup() (string, error) {
	err := fmt.Errorf("query orders: dial tcp 10.0.0.12:5432: connection refused (user=app password=hunter2)")
	return "", crdb.WithHint(err, "Check DATABASE_URL=postgres://app:hunter2@10.0.0.12/orders")
}

// Replica fails the way a sub-operation does when its own context is
// cancelled while the request is alive: a server failure, not the
// client's cancellation.
func Replica(ctx context.Context) (string, error) {
	child, cancel := context.WithCancel(ctx)
	cancel() // a hedged read that lost: the server's own doing
	return "", fmt.Errorf("query replica: %w", child.Err())
}

// Crash panics, the way a bug does.
func Crash() (string, error) {
	var cache map[string]string
	//lint:ignore SA5000 the bug is the point: this tool shows a panic
	cache["key"] = "hunter2" // assignment to entry in nil map
	return "", nil
}

// Quote is rate limited: it asks the caller to wait 30 seconds.
func Quote() (string, error) {
	return "", domain.NewRateLimited(30 * time.Second)
}

// CallTimeout is the time the server gives each tool call: the deadline of
// the request's own context.
const CallTimeout = 200 * time.Millisecond

// Slow runs out of time: its work takes longer than the server gives a
// call.
func Slow(ctx context.Context) (string, error) {
	select {
	case <-time.After(time.Second):
		return "done", nil
	case <-ctx.Done():
		return "", fmt.Errorf("render report: %w", ctx.Err())
	}
}

// Charge runs out of time while the payment service may be charging the
// card: a second call could charge it twice.
func Charge(ctx context.Context) (string, error) {
	select {
	case <-time.After(time.Second):
		return "charged", nil
	case <-ctx.Done():
		return "", fmt.Errorf("charge card: %w", ctx.Err())
	}
}

// stockReads counts the reads of the stock replica.
var stockReads atomic.Int64

// Stock reads the stock from a replica that is busy at every other read:
// a transient failure, worth calling again after a moment.
func Stock() (string, error) {
	if stockReads.Add(1)%2 == 1 {
		return "", toolerr.New("The stock replica is busy.").WithCode(codes.Unavailable).WithRetryAfter(20 * time.Millisecond)
	}
	return "12 in stock", nil
}

// Forecast is the output of the forecast tool, which declares an output
// schema.
type Forecast struct {
	City    string  `json:"city"`
	TempC   float64 `json:"tempC"`
	Summary string  `json:"summary"`
}

// weatherKey stands for a credential the service holds.
var weatherKey = "hunter2"

// GetForecast fails with an internal error for Atlantis.
func GetForecast(city string) (Forecast, error) {
	if city == "Atlantis" {
		return Forecast{}, fmt.Errorf("weather api: 401 for key %s", weatherKey)
	}
	return Forecast{City: city, TempC: 21.5, Summary: "Sunny"}, nil
}

// placeOrderSchema is the input schema of place_order: a customer, and
// items each with a sku and a whole quantity of at least 1.
var placeOrderSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"customer":{"type":"string"},` +
	`"items":{"type":"array","items":{"type":"object","properties":{"sku":{"type":"string"},"qty":{"type":"integer","minimum":1}},"required":["sku","qty"]}}},` +
	`"required":["customer","items"]}`)

// PlaceOrder places an order of n items. Its handlers read their arguments
// loosely, as many servers do: without the check of arguments before the
// handler (-check-arguments), an order with a quantity of "two" is placed.
func PlaceOrder(n int) string {
	return fmt.Sprintf("Order placed: %d items.", n)
}
