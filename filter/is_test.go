package filter_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
)

func TestIs(t *testing.T) {
	r := filter.Response{Code: codes.NotFound, Message: "No such order.", Details: map[string]any{"resource": "Order"}}
	f := filter.Is(sql.ErrNoRows, r)
	r.Details["resource"] = "changed after Is" // the filter keeps its own copy
	h := newHarness(t, filter.WithFilters(f))
	call := filter.Call{Tool: "get_order"}
	for _, err := range []error{
		sql.ErrNoRows,
		fmt.Errorf("select order ord_9 where password=hunter2: %w", sql.ErrNoRows),
		errors.Join(errors.New("first"), fmt.Errorf("second: %w", sql.ErrNoRows)),
	} {
		got := h.handle(t, context.Background(), call, err)
		if got.Envelope.Code != codes.NotFound || got.Envelope.Message != "No such order." ||
			string(got.Envelope.Details) != `{"resource":"Order"}` || strings.Contains(clientBytes(t, got), "hunter2") {
			t.Errorf("%v: %+v, want the filter's NOT_FOUND", err, got.Envelope)
		}
	}
	if got := h.handle(t, context.Background(), call, fs.ErrNotExist); got.Envelope.Code != codes.InternalError {
		t.Errorf("another sentinel: %s, want it passed on and masked", got.Envelope.Code)
	}
	if got := h.handle(t, context.Background(), call, errors.New(sql.ErrNoRows.Error())); got.Envelope.Code != codes.InternalError {
		t.Errorf("an error with the same text but not the sentinel: %s, want it passed on", got.Envelope.Code)
	}
}

// TestIsRefusesWhatCannotAnswer checks that a sentinel filter without a
// sentinel or without words is refused where it is given, with a
// definition error that names filter.Is and the mistake, not the filter's
// place in a list.
func TestIsRefusesWhatCannotAnswer(t *testing.T) {
	for name, tc := range map[string]struct {
		f    filter.Filter
		want codes.Mistake
		says string
	}{
		"nil target":    {filter.Is(nil, filter.Response{Message: "x"}), codes.NilValue, "filter.Is needs the sentinel error"},
		"empty message": {filter.Is(sql.ErrNoRows, filter.Response{Code: codes.NotFound}), codes.InvalidOption, "filter.Is needs a Response with the message"},
	} {
		var de *codes.DefinitionError
		if _, err := filter.New(filter.WithFilters(tc.f)); !errors.As(err, &de) || de.Mistake != tc.want || !strings.Contains(de.Reason, tc.says) {
			t.Errorf("%s: WithFilters gave %v, want a %s definition error saying %q", name, err, tc.want, tc.says)
		}
	}
}
