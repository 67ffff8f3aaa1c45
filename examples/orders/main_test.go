package main

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/mcperr/mcperr/adapters/gosdk/gosdktest"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/mcperrtest"
)

// TestOrders runs the program and checks what it prints.
func TestOrders(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	out := stdout.String()
	for _, want := range []string{
		"content[0]:  User not found: usr_404\n  content[1]:  Code: NOT_FOUND\n",
		"content[0]:  Validation failed for status: Must be one of: pending, processing, shipped, delivered\n  content[1]:  Code: VALIDATION_ERROR\n",
		"content[0]:  Cannot change status of a delivered order\n  content[1]:  Code: ORDER_ALREADY_DELIVERED\n",
		`Details: {"currentStatus":"delivered","orderId":"ord_2"}`,
		"content[0]:  Validation failed for orderId: must be string, not number",
		`"field":"orderId","pointer":"/orderId","reason":"type"`,
		"content[0]:  Insufficient funds for transfer\n  content[1]:  Code: INSUFFICIENT_FUNDS\n",
		`Details: {"available":5,"requested":50}`,
		"Retry: no, not with the same arguments.\n               Hint: Transfer at most the available amount, or choose another source account.\n  envelope:    code=INSUFFICIENT_FUNDS category=business retryable=false\n",
		"content[0]:  A record with this value already exists.\n  content[1]:  Code: CONFLICT\n",
		"content[0]:  Referenced record does not exist.\n  content[1]:  Code: NOT_FOUND\n",
		"  content[1]:  Code: INTERNAL_ERROR\n               Retry: no.\n  envelope:    code=INTERNAL_ERROR category=server retryable=false ref=",
		"failures seen by the global filter: get_user 2, update_order 3, transfer_funds 0, create_user 2",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	m := regexp.MustCompile(`Internal error in tool "get_user" \(ref: ([0-9a-f]{16})\)\.`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no masked internal error in:\n%s", out)
	}
	if strings.Count(stderr.String(), m[1]) != 1 || !strings.Contains(stderr.String(), "password=hunter2") {
		t.Errorf("the log should hold the ref once and the full error:\n%s", stderr.String())
	}
	for _, private := range []string{"hunter2", "10.0.0.12", "Key (", "team_9"} {
		if strings.Contains(out, private) {
			t.Errorf("client output holds %q", private)
		}
	}
}

// TestOrderErrors proves, with mcperr's test kit, what the model reads for
// each way the order service's tools fail, under each protocol version.
func TestOrderErrors(t *testing.T) {
	for _, version := range gosdktest.ProtocolVersions() {
		t.Run(version, func(t *testing.T) {
			log := mcperrtest.NewLog(t)
			server, store, _, err := newServer(log.Logger())
			if err != nil {
				t.Fatal(err)
			}
			c := gosdktest.Connect(t, server, gosdktest.WithProtocolVersion(version))

			mcperrtest.AssertSuccess(t, c.Call("get_user", map[string]any{"userId": "usr_1"}))
			mcperrtest.AssertToolError(t, c.Call("get_user", map[string]any{"userId": "usr_404"}),
				codes.NotFound, "User not found: usr_404")

			// The service's own Validation, and the schema's.
			mcperrtest.AssertValidation(t, c.Call("update_order", map[string]any{"orderId": "ord_1", "status": "lost"}), "status")
			mcperrtest.AssertValidation(t, c.Call("update_order", map[string]any{"orderId": 1, "status": "shipped"}), "orderId")

			// A business rule, and the code a per-tool filter gives one.
			mcperrtest.AssertToolError(t, c.Call("update_order", map[string]any{"orderId": "ord_2", "status": "pending"}),
				OrderAlreadyDelivered, "Cannot change status of a delivered order")
			res := c.Call("transfer_funds", map[string]any{"fromAccount": "acc_2", "toAccount": "acc_1", "amount": 50})
			if mcperrtest.AssertToolError(t, res, InsufficientFunds, "Insufficient funds for transfer") {
				var got map[string]float64
				if err := json.Unmarshal(res.Envelope.Details, &got); err != nil || got["available"] != 5 || got["requested"] != 50 || len(got) != 2 {
					t.Errorf("details = %s (%v)", res.Envelope.Details, err)
				}
			}

			// The database filter answers constraint violations, in words
			// that hold none of the database's.
			res = c.Call("create_user", map[string]any{"id": "usr_2", "email": "ann@example.com", "teamId": "team_1"})
			mcperrtest.AssertToolError(t, res, codes.Conflict, "A record with this value already exists.")
			mcperrtest.AssertNoCanary(t, res, "Key (")

			// and rethrows a lost connection: masked, logged once.
			store.GoDown()
			res = c.Call("get_user", map[string]any{"userId": "usr_1"})
			mcperrtest.AssertMasked(t, res, log)
			mcperrtest.AssertNoCanary(t, res, "hunter2")
		})
	}
}
