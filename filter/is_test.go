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
	h := newHarness(t, filter.WithGlobalFilters(f))
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

func TestIsRefusesWhatCannotAnswer(t *testing.T) {
	for name, f := range map[string]filter.Filter{
		"nil target":    filter.Is(nil, filter.Response{Message: "x"}),
		"empty message": filter.Is(sql.ErrNoRows, filter.Response{Code: codes.NotFound}),
	} {
		if f != nil {
			t.Errorf("%s: Is returned a filter", name)
		}
		var de *codes.DefinitionError
		if _, err := filter.New(filter.WithGlobalFilters(f)); !errors.As(err, &de) || de.Mistake != codes.NilValue {
			t.Errorf("%s: WithGlobalFilters gave %v, want a NIL_VALUE definition error", name, err)
		}
	}
}
