package filter_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/toolerr"
)

// quietError is a library's error type whose text may be empty.
type quietError struct{ text string }

func (e *quietError) Error() string { return e.text }

func TestPublic(t *testing.T) {
	h := newHarness(t, filter.WithFilters(filter.Public[*strconv.NumError](codes.ValidationError), filter.Public[*quietError](codes.ValidationError)))
	call := filter.Call{Tool: "get_page"}
	numErr := &strconv.NumError{Func: "ParseInt", Num: "12x", Err: strconv.ErrSyntax}
	for _, tc := range []struct {
		name string
		err  error
		code codes.Code
		msg  string
	}{
		{"the error itself", numErr, codes.ValidationError, numErr.Error()},
		{"wrapped: its own words, not the wrapper's", fmt.Errorf("parse: password=hunter2: %w", numErr), codes.ValidationError, numErr.Error()},
		{"in a join", errors.Join(errors.New("dial 10.0.0.5"), numErr), codes.ValidationError, numErr.Error()},
		{"another type: passed on", errors.New("dial 10.0.0.5: password=hunter2"), codes.InternalError, ""},
		{"a nil pointer of the type: passed on", fmt.Errorf("parse: %w", (*strconv.NumError)(nil)), codes.InternalError, ""},
		{"an empty text: passed on", fmt.Errorf("password=hunter2: %w", &quietError{}), codes.InternalError, ""},
		{"a blank text: passed on", &quietError{" \n"}, codes.InternalError, ""},
	} {
		f := h.handle(t, context.Background(), call, tc.err)
		if f.Envelope.Code != tc.code || tc.msg != "" && f.Envelope.Message != tc.msg {
			t.Errorf("%s: %s %q, want %s %q", tc.name, f.Envelope.Code, f.Envelope.Message, tc.code, tc.msg)
		}
		if strings.Contains(clientBytes(t, f), "hunter2") || strings.Contains(clientBytes(t, f), "parse:") {
			t.Errorf("%s: a wrapper's text reached the client: %q", tc.name, f.Texts)
		}
		if recs := h.records(t); len(recs) != 1 {
			t.Errorf("%s: %d records, want 1", tc.name, len(recs))
		}
	}
}

// TestPublicIsBounded checks that a long text is cut like any message.
func TestPublicIsBounded(t *testing.T) {
	h := newHarness(t, filter.WithFilters(filter.Public[*quietError](codes.ValidationError)))
	f := h.handle(t, context.Background(), filter.Call{Tool: "parse"}, &quietError{strings.Repeat("x", 1<<20)})
	if f.Envelope.Code != codes.ValidationError || len(f.Envelope.Message) > 16<<10 || !strings.HasSuffix(f.Envelope.Message, "…") {
		t.Errorf("a 1 MiB text: %s, %d bytes", f.Envelope.Code, len(f.Envelope.Message))
	}
}

// TestPublicUnderToolError checks that a ToolError's words stay first: the
// public error in its cause gives the code, and its text follows as a hint.
func TestPublicUnderToolError(t *testing.T) {
	h := newHarness(t, filter.WithFilters(filter.Public[*json.SyntaxError](codes.ValidationError)))
	var syntax *json.SyntaxError
	errors.As(json.Unmarshal([]byte("{"), new(any)), &syntax)
	f := h.handle(t, context.Background(), filter.Call{Tool: "import"}, toolerr.New("The document is not JSON.").WithCause(syntax))
	if f.Envelope.Code != codes.ValidationError || f.Envelope.Message != "The document is not JSON." ||
		len(f.Envelope.Hints) != 1 || f.Envelope.Hints[0] != syntax.Error() {
		t.Errorf("%+v", f.Envelope)
	}
}

func TestPublicRefusesWhatCannotAnswer(t *testing.T) {
	for name, f := range map[string]filter.Filter{
		"E = error": filter.Public[error](codes.ValidationError),
		"no code":   filter.Public[*strconv.NumError](""),
	} {
		var de *codes.DefinitionError
		if _, err := filter.New(filter.WithFilters(f)); !errors.As(err, &de) || de.Mistake != codes.InvalidOption || !strings.Contains(de.Reason, "filter.Public needs") {
			t.Errorf("%s: WithFilters gave %v, want an INVALID_OPTION naming filter.Public", name, err)
		}
	}
}
