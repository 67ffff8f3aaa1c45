package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
)

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
