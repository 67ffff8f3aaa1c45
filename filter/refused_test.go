package filter_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/toolerr"
)

// withArguments returns err as an adapter hands it to the pipeline for a
// failed call whose arguments do not fit, as v says.
func withArguments(err error, v *domain.Validation, asked *int) filter.Input {
	return filter.Input{Err: err, Arguments: func(error) *domain.Validation {
		*asked++
		return v
	}}
}

// TestArgumentsDecideOnlyWhatWouldBeMasked checks that a failure the
// pipeline would mask is answered VALIDATION_ERROR when the adapter says the
// arguments do not fit, with the error kept in the record, and that an
// error written for the client, a panic and a cancellation keep their own
// answer.
func TestArgumentsDecideOnlyWhatWouldBeMasked(t *testing.T) {
	v := &domain.Validation{Violations: []domain.Violation{{Field: "b", Constraint: "must be number, not string", Value: "two"}}}

	var asked int
	h := newHarness(t)
	f := h.input(t, context.Background(), call, withArguments(errors.New("strconv: parsing "+canary), v, &asked))
	if f.Envelope.Code != codes.ValidationError || f.Envelope.Message != "Validation failed for b: must be number, not string" || f.Envelope.Ref != "" {
		t.Errorf("envelope %+v, want the VALIDATION_ERROR of the arguments", f.Envelope)
	}
	if strings.Contains(strings.Join(f.Texts, "\n")+string(f.Envelope.Details), "two") {
		t.Errorf("the value reached the client: %q %s", f.Texts, f.Envelope.Details)
	}
	recs := h.records(t)
	if len(recs) != 1 || recs[0]["level"] != "INFO" || !strings.Contains(recs[0]["error"].(string), canary) {
		t.Errorf("records %v, want one INFO record that keeps the error", recs)
	}

	for _, tt := range []struct {
		name string
		err  error
		code codes.Code
	}{
		{"a ToolError", toolerr.New("b must not be zero."), codes.ToolFailed},
		{"a domain error", domain.NewNotFound("Order", "1"), codes.NotFound},
		{"a panic", recovered("nil map"), codes.InternalError},
		{"a cancellation", context.Canceled, codes.Cancelled},
	} {
		t.Run(tt.name, func(t *testing.T) {
			asked = 0
			f := newHarness(t).input(t, endedAs(context.Background(), tt.err), call, withArguments(tt.err, v, &asked))
			if f.Envelope.Code != tt.code {
				t.Errorf("code %s, want %s", f.Envelope.Code, tt.code)
			}
			if asked != 0 {
				t.Errorf("the arguments were checked %d times for an answer they cannot change", asked)
			}
		})
	}

	t.Run("a check that panics", func(t *testing.T) {
		in := filter.Input{Err: errors.New("x"), Arguments: func(error) *domain.Validation { panic("validator bug") }}
		h := newHarness(t)
		if f := h.input(t, context.Background(), call, in); f.Envelope.Code != codes.InternalError {
			t.Errorf("code %s, want the masked INTERNAL_ERROR", f.Envelope.Code)
		}
	})
}

// TestInputIsTakenApart checks that what an adapter hands the pipeline
// with a failure, the tool's settings and its check of the arguments, is
// never seen past it: filters, observers and the record see the error the
// handler returned, and the tool's report-only setting holds over the
// server's.
func TestInputIsTakenApart(t *testing.T) {
	handlerErr := errors.New("dial db: " + canary)
	var seen []error
	saw := filter.Catch(func(_ context.Context, _ filter.Call, err error) (*filter.Response, error) {
		seen = append(seen, err)
		return nil, nil
	})
	var observed []error
	h := newHarness(t, filter.WithObserver(func(_ context.Context, f filter.Failure) { observed = append(observed, f.Err) }))
	in := filter.Input{Err: handlerErr, Options: []filter.ToolOption{filter.WithReportOnly(true)}}
	f := h.input(t, context.Background(), call, in, saw)
	if !f.ReportOnly {
		t.Errorf("the tool's report-only setting did not hold: %+v", f)
	}
	if len(seen) != 1 || seen[0] != handlerErr || len(observed) != 1 || observed[0] != handlerErr || f.Err != handlerErr {
		t.Errorf("filters saw %v, observers %v, the Failure %v; want the handler's error alone", seen, observed, f.Err)
	}
	if recs := h.records(t); len(recs) != 1 || strings.Contains(recs[0]["error"].(string), "callctx") {
		t.Errorf("records %v, want one with the handler's error", recs)
	}
}
