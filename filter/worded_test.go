package filter_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/toolerr"
)

// upstreamError stands for a client library's error that a filter knows.
type upstreamError struct{ status int }

func (e *upstreamError) Error() string { return fmt.Sprintf("GET /issues/7: %d %s", e.status, canary) }

var upstreamFilter = filter.Catch(func(_ context.Context, _ filter.Call, e *upstreamError) (*filter.Response, error) {
	if e.status != 404 {
		return nil, nil
	}
	return &filter.Response{Code: codes.NotFound, Message: "The service has no such record.",
		Details: map[string]any{"httpStatus": e.status}, Hints: []string{"Check the identifiers."}}, nil
})

// TestToolErrorKeepsItsWordsOverItsCause checks that a filter that answers
// the cause of a ToolError gives the failure its class, while the model
// reads the ToolError's words first: "failed to get issue" over an
// upstream's 404 is NOT_FOUND, says what failed and that the record does
// not exist, and never the upstream's text.
func TestToolErrorKeepsItsWordsOverItsCause(t *testing.T) {
	te := toolerr.New("failed to get issue").WithHint("Ask for the issue's number.")
	for name, err := range map[string]error{
		"ToolError over the cause":          te.WithCause(fmt.Errorf("get: %w", &upstreamError{404})),
		"ToolError wrapped, over the cause": fmt.Errorf("tool: %w", te.WithCause(&upstreamError{404})),
	} {
		t.Run(name, func(t *testing.T) {
			for _, where := range []string{"global", "tool"} {
				var h *harness
				var f *filter.Failure
				if where == "global" {
					h = newHarness(t, filter.WithFilters(upstreamFilter))
					f = h.handle(t, context.Background(), filter.Call{Tool: "get_issue"}, err)
				} else {
					h = newHarness(t)
					f = h.handle(t, context.Background(), filter.Call{Tool: "get_issue"}, err, upstreamFilter)
				}
				env := f.Envelope
				if env.Code != codes.NotFound || env.Message != "failed to get issue" || string(env.Details) != `{"httpStatus":404}` {
					t.Errorf("%s: envelope %s %q %s, want NOT_FOUND, the ToolError's message, the filter's details", where, env.Code, env.Message, env.Details)
				}
				if want := []string{"The service has no such record.", "Check the identifiers.", "Ask for the issue's number."}; !slices.Equal(env.Hints, want) {
					t.Errorf("%s: hints %q, want %q", where, env.Hints, want)
				}
				if f.Texts[0] != "failed to get issue" || !strings.Contains(f.Texts[1], "Hint: The service has no such record.") {
					t.Errorf("%s: the model reads %q", where, f.Texts)
				}
				if strings.Contains(strings.Join(f.Texts, "\n"), canary) {
					t.Errorf("%s: the upstream's text reached the model: %q", where, f.Texts)
				}
				if recs := h.records(t); len(recs) != 1 || !strings.Contains(fmt.Sprint(recs[0]["error"]), canary) {
					t.Errorf("%s: records %v, want one keeping the upstream's text", where, recs)
				}
			}
		})
	}
}

// TestToolErrorCauseOfferedFirst checks the order the filters see a
// ToolError in: its cause first, then, when no filter answers the cause,
// the whole error, so a filter of ToolErrors still answers them, and a
// cause the filters transform does not change the error handled.
func TestToolErrorCauseOfferedFirst(t *testing.T) {
	rewrite := filter.Catch(func(_ context.Context, _ filter.Call, e *toolerr.ToolError) (*filter.Response, error) {
		return &filter.Response{Code: codes.Conflict, Message: "Rewritten: " + e.PublicMessage()}, nil
	})
	h := newHarness(t, filter.WithFilters(rewrite))
	f := h.handle(t, context.Background(), filter.Call{Tool: "t"}, toolerr.New("stale").WithCause(errors.New("version 3")))
	if f.Envelope.Code != codes.Conflict || f.Envelope.Message != "Rewritten: stale" {
		t.Errorf("a filter of ToolErrors: %s %q, want its own answer", f.Envelope.Code, f.Envelope.Message)
	}

	transform := filter.Catch(func(_ context.Context, _ filter.Call, e *upstreamError) (*filter.Response, error) {
		return nil, &upstreamError{404}
	})
	h = newHarness(t, filter.WithFilters(transform, upstreamFilter))
	err := toolerr.New("failed to list").WithCause(&upstreamError{500})
	f = h.handle(t, context.Background(), filter.Call{Tool: "t"}, err)
	if f.Envelope.Code != codes.NotFound || f.Envelope.Message != "failed to list" {
		t.Errorf("a transformed cause: %s %q, want NOT_FOUND with the ToolError's words", f.Envelope.Code, f.Envelope.Message)
	}
	if recs := h.records(t); len(recs) != 1 || !strings.Contains(fmt.Sprint(recs[0]["error"]), ": 500 ") {
		t.Errorf("records %v, want the error as returned", recs)
	}

	panics := filter.Catch(func(context.Context, filter.Call, *upstreamError) (*filter.Response, error) { panic("boom") })
	h = newHarness(t, filter.WithFilters(panics))
	f = h.handle(t, context.Background(), filter.Call{Tool: "t"}, toolerr.New("failed").WithCause(&upstreamError{404}))
	if f.Envelope.Code != codes.InternalError {
		t.Errorf("a filter that panics on the cause: %s, want INTERNAL_ERROR", f.Envelope.Code)
	}
}

// TestPublicErrorInToolErrorCause checks that a domain error or a ToolError
// in a ToolError's cause, which no filter answers, answers like a filter's
// answer to the cause: its code, details and retry advice, the outer
// ToolError's words first and its own as the first hint; a filter that
// answers the cause still decides.
func TestPublicErrorInToolErrorCause(t *testing.T) {
	notFound := domain.NewNotFound("Datasource", "ds-7")
	cases := []struct {
		name      string
		err       error
		filters   []filter.Filter
		code      codes.Code
		hints     []string
		detailKey string
	}{
		{"a domain error, wrapped", toolerr.New("creating the client").WithHint("List the datasources first.").WithCause(fmt.Errorf("lookup: %w", notFound)),
			nil, codes.NotFound, []string{notFound.PublicMessage(), "List the datasources first."}, "resourceId"},
		{"a ToolError", toolerr.New("creating the client").WithCause(toolerr.New("datasource with UID 'x' not found").WithHint("Check the UID.")),
			nil, codes.ToolFailed, []string{"datasource with UID 'x' not found", "Check the UID."}, ""},
		{"a ToolError under one with a code", toolerr.New("creating the client").WithCode(codes.Conflict).WithCause(toolerr.New("busy").WithCode(codes.Unavailable)),
			nil, codes.Unavailable, []string{"busy"}, ""},
		{"a filter answers the cause first", toolerr.New("creating the client").WithCause(errors.Join(&upstreamError{404}, notFound)),
			[]filter.Filter{upstreamFilter}, codes.NotFound, []string{"The service has no such record.", "Check the identifiers."}, "httpStatus"},
		{"no public error in the cause", toolerr.New("creating the client").WithCause(errors.New(canary)),
			nil, codes.ToolFailed, nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, filter.WithFilters(c.filters...))
			f := h.handle(t, context.Background(), filter.Call{Tool: "t"}, c.err)
			env := f.Envelope
			if env.Code != c.code || env.Message != "creating the client" || f.Texts[0] != "creating the client" {
				t.Errorf("%s %q, model reads %q; want %s with the outer ToolError's words", env.Code, env.Message, f.Texts[0], c.code)
			}
			if !slices.Equal(env.Hints, c.hints) {
				t.Errorf("hints %q, want %q", env.Hints, c.hints)
			}
			if c.detailKey != "" && !strings.Contains(string(env.Details), c.detailKey) {
				t.Errorf("details %s, want the cause's (%s)", env.Details, c.detailKey)
			}
			if strings.Contains(strings.Join(f.Texts, "\n"), canary) {
				t.Errorf("the cause's text reached the model: %q", f.Texts)
			}
		})
	}
}
