package filter_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/toolerr"
)

func TestReportOnlyFailureSaysWhatWouldBeSent(t *testing.T) {
	var o observed
	h := newHarness(t, filter.WithReportOnly(true), filter.WithObserver(o.observe))
	call := filter.Call{Tool: "lookup"}

	f := h.handle(t, context.Background(), call, errors.New("dial: password=hunter2"))
	if !f.ReportOnly || f.Envelope.Code != codes.InternalError || f.Envelope.Message != masked(f.Envelope.Ref) {
		t.Errorf("masked failure in report-only mode: %+v", f)
	}
	recs := h.records(t)
	if len(recs) != 1 || recs[0]["report_only"] != true || recs[0]["masked"] != true ||
		recs[0]["would_send"] != masked(f.Envelope.Ref) || recs[0]["level"] != "ERROR" || recs[0]["ref"] != f.Envelope.Ref {
		t.Errorf("records %v, want one ERROR saying what would be sent", recs)
	}

	// Written for mcperr: the bare SDK would send its Error(), cause and
	// all, so report-only mode answers it as enforcing does.
	f = h.handle(t, context.Background(), call, toolerr.New("Order 7 is not open.").WithCause(errors.New("dial: password=hunter2")))
	recs = h.records(t)
	if f.ReportOnly || f.Envelope.Message != "Order 7 is not open." || len(recs) != 1 || recs[0]["report_only"] != nil || recs[0]["level"] != "ERROR" {
		t.Errorf("public failure in report-only mode: %+v, records %v", f, recs)
	}
	if len(o.failures) != 2 || !o.failures[0].ReportOnly || o.failures[1].ReportOnly {
		t.Errorf("the observer saw %+v, want a report-only failure, then an answered one", o.failures)
	}
}

func TestEnforcingFailureIsNotReportOnly(t *testing.T) {
	h := newHarness(t)
	f := h.handle(t, context.Background(), filter.Call{Tool: "lookup"}, errors.New("boom"))
	if f.ReportOnly || f.HandBuilt {
		t.Errorf("enforcing: %+v", f)
	}
	for _, rec := range h.records(t) {
		for _, k := range []string{"report_only", "would_send", "masked", "hand_built"} {
			if _, ok := rec[k]; ok {
				t.Errorf("an enforcing record has %s: %v", k, rec)
			}
		}
	}
}

func TestReportOnlyUnderRedaction(t *testing.T) {
	h := newHarness(t, filter.WithReportOnly(true), filter.WithRedaction(true))
	f := h.handle(t, context.Background(), filter.Call{Tool: "lookup"}, errors.New("dial: password=hunter2"))
	recs := h.records(t)
	if len(recs) != 1 || recs[0]["would_send"] != masked(f.Envelope.Ref) {
		t.Fatalf("records %v, want the masked text as would_send", recs)
	}
	if strings.Contains(recs[0]["error"].(string), "hunter2") {
		t.Errorf("redaction kept the secret: %v", recs[0])
	}
}

func TestBadHandBuiltPolicy(t *testing.T) {
	for _, hb := range []filter.HandBuilt{-1, 3} {
		_, err := filter.New(filter.WithHandBuilt(hb))
		var de *codes.DefinitionError
		if !errors.As(err, &de) || de.Mistake != codes.InvalidOption {
			t.Errorf("WithHandBuilt(%d): %v, want INVALID_OPTION", hb, err)
		}
	}
	for _, hb := range []filter.HandBuilt{filter.PassHandBuilt, filter.ReportHandBuilt, filter.MaskHandBuilt} {
		if _, err := filter.New(filter.WithHandBuilt(hb)); err != nil {
			t.Errorf("WithHandBuilt(%d): %v", hb, err)
		}
	}
}
