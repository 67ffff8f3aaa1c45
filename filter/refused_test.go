package filter_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/internal/callctx"
	"github.com/mcperr/mcperr/toolerr"
)

// withArguments returns a context whose call says its arguments do not fit:
// as an adapter prepares it for a failed call.
func withArguments(v *domain.Validation, asked *int) context.Context {
	ctx := callctx.With(context.Background(), nil)
	callctx.From(ctx).Arguments = func() error {
		*asked++
		return v
	}
	return ctx
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
	f := h.handle(t, withArguments(v, &asked), call, errors.New("strconv: parsing "+canary))
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
			f := newHarness(t).handle(t, endedAs(withArguments(v, &asked), tt.err), call, tt.err)
			if f.Envelope.Code != tt.code {
				t.Errorf("code %s, want %s", f.Envelope.Code, tt.code)
			}
			if asked != 0 {
				t.Errorf("the arguments were checked %d times for an answer they cannot change", asked)
			}
		})
	}

	t.Run("a check that panics", func(t *testing.T) {
		ctx := callctx.With(context.Background(), nil)
		callctx.From(ctx).Arguments = func() error { panic("validator bug") }
		h := newHarness(t)
		if f := h.handle(t, ctx, call, errors.New("x")); f.Envelope.Code != codes.InternalError {
			t.Errorf("code %s, want the masked INTERNAL_ERROR", f.Envelope.Code)
		}
	})
}
