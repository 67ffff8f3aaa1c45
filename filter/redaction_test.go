package filter_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	crdb "github.com/cockroachdb/errors"

	"github.com/mcperr/mcperr/filter"
)

// TestRedactedRecordSaysWhatFailed checks that a redacted record keeps the
// tool, code, ref, ids, the parts cockroachdb/errors marks safe and the Go
// types of the chain, and nothing unsafe.
func TestRedactedRecordSaysWhatFailed(t *testing.T) {
	h := newHarness(t, filter.WithRedaction(true))
	err := fmt.Errorf("lookup order: %w", crdb.Wrapf(crdb.Newf("dial %s: password=%s", crdb.Safe("10.0.0.5:5432"), "hunter2"), "query replica %d", 2))
	f := h.handle(t, context.Background(), filter.Call{Tool: "get_order", SessionID: "s1", RequestID: "r1"}, err)
	recs := h.records(t)
	if len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	r := recs[0]
	if r["tool"] != "get_order" || r["code"] != "INTERNAL_ERROR" || r["ref"] != f.Envelope.Ref || r["request_id"] != "r1" || r["session_id"] != "s1" {
		t.Errorf("record %v lacks what identifies the failure", r)
	}
	text := fmt.Sprint(r["error"])
	if !strings.Contains(text, "dial 10.0.0.5:5432: password=‹×›") || !strings.Contains(text, "query replica ‹×›") {
		t.Errorf("error %q, want the safe parts kept and the rest redacted", text)
	}
	if r["error_types"] != "*fmt.wrapError *withstack.withStack *errutil.withPrefix *errutil.leafError" {
		t.Errorf("error_types %q", r["error_types"])
	}
	for k, v := range r {
		if strings.Contains(fmt.Sprint(v), "hunter2") || strings.Contains(fmt.Sprint(v), "lookup order") {
			t.Errorf("%s holds what redaction hides: %v", k, v)
		}
	}
}

// TestRedactedRecordHidesURICredentials checks that a resource's URI in a
// redacted record loses its password and query.
func TestRedactedRecordHidesURICredentials(t *testing.T) {
	h := newHarness(t, filter.WithRedaction(true))
	call := filter.Call{Method: "resources/read", Resource: "db://app:hunter2@db.internal/orders?token=s3cret"}
	h.handle(t, context.Background(), call, fmt.Errorf("read: %w", crdb.New("refused")))
	recs := h.records(t)
	if len(recs) != 1 || recs[0]["resource"] != "db://app:‹×›@db.internal/orders?‹×›" {
		t.Fatalf("records %v, want the URI without its password and query", recs)
	}
	for k, v := range recs[0] {
		if s := fmt.Sprint(v); strings.Contains(s, "hunter2") || strings.Contains(s, "s3cret") {
			t.Errorf("%s = %v holds the URI's secrets", k, v)
		}
	}
}
