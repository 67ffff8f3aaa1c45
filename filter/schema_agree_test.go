package filter_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
)

// TestAnswersFitTheSchema checks that what an error or a filter puts in an
// answer cannot make its envelope break the published schema, and that
// the retry advice is the same in the message, the block and the envelope.
func TestAnswersFitTheSchema(t *testing.T) {
	call := filter.Call{Tool: "x"}
	validation := func(details map[string]any) filter.Filter {
		return filter.Catch(func(context.Context, filter.Call, error) (*filter.Response, error) {
			return &filter.Response{Code: codes.ValidationError, Message: "Bad input.", Details: details}, nil
		})
	}
	for _, tc := range []struct {
		name        string
		err         error
		filter      filter.Filter
		wantDetails string
	}{
		{"violations in a business rule's details are its own", domain.NewBusinessRule("", "Too many.", map[string]any{"violations": 2}), nil, `{"violations":2}`},
		{"a VALIDATION_ERROR with violations of the wrong form", nil, validation(map[string]any{"violations": 2}), ""},
		{"a VALIDATION_ERROR whose violation lacks its field", nil, validation(map[string]any{"violations": []any{map[string]any{"constraint": "x"}}}), ""},
		{"a VALIDATION_ERROR with a bad pointer", nil, validation(map[string]any{"violations": []any{map[string]any{"field": "a", "constraint": "x", "pointer": "a~2"}}}), ""},
		{"a VALIDATION_ERROR with good violations", nil, validation(map[string]any{"violations": []any{map[string]any{"field": "a", "constraint": "x", "pointer": "/a"}}}),
			`{"violations":[{"constraint":"x","field":"a","pointer":"/a"}]}`},
		{"a VALIDATION_ERROR with other details", nil, validation(map[string]any{"hint": "x"}), `{"hint":"x"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var opts []filter.Option
			if tc.filter != nil {
				opts = append(opts, filter.WithFilters(tc.filter))
			}
			h := newHarness(t, opts...)
			err := tc.err
			if err == nil {
				err = domain.NewValidation("a", 1, "x")
			}
			f := h.handle(t, context.Background(), call, err) // checks the schema
			if string(f.Envelope.Details) != tc.wantDetails {
				t.Errorf("details %s, want %q", f.Envelope.Details, tc.wantDetails)
			}
			if tc.wantDetails == "" && !strings.Contains(h.buf.String(), "details_error") {
				t.Errorf("dropped details without a details_error in the record: %s", h.buf.String())
			}
		})
	}
}

func TestRetryAdviceAgrees(t *testing.T) {
	h := newHarness(t)
	f := h.handle(t, context.Background(), filter.Call{Tool: "x"}, domain.NewRateLimited(1e6*time.Hour))
	if f.Envelope.RetryAfterSeconds != 604800 {
		t.Fatalf("retryAfterSeconds %v, want a week", f.Envelope.RetryAfterSeconds)
	}
	all := strings.Join(f.Texts, "\n") + string(f.Envelope.Details)
	if !strings.Contains(f.Envelope.Message, "604800 seconds") || strings.Contains(all, "3600000000") {
		t.Errorf("message %q, texts %q, details %s: the delay must be the week the envelope says", f.Envelope.Message, f.Texts, f.Envelope.Details)
	}
}
