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
		"text:     User not found: usr_404\n  code:     NOT_FOUND",
		"text:     Validation failed for status: Must be one of: pending, processing, shipped, delivered\n  code:     VALIDATION_ERROR",
		"text:     Cannot change status of a delivered order\n  code:     ORDER_ALREADY_DELIVERED",
		`details:  {"currentStatus":"delivered","orderId":"ord_2"}`,
		"text:     Validation failed for orderId: must be string, not number",
		"text:     Insufficient funds for transfer\n  text:     Hint: Transfer at most the available amount, or choose another source account.\n  code:     INSUFFICIENT_FUNDS",
		`details:  {"available":5,"requested":50}`,
		"text:     A record with this value already exists.\n  code:     CONFLICT",
		"text:     Referenced record does not exist.\n  code:     NOT_FOUND",
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
