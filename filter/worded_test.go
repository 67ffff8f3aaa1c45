package filter_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mcperr/mcperr/codes"
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
					h = newHarness(t, filter.WithGlobalFilters(upstreamFilter))
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
	h := newHarness(t, filter.WithGlobalFilters(rewrite))
	f := h.handle(t, context.Background(), filter.Call{Tool: "t"}, toolerr.New("stale").WithCause(errors.New("version 3")))
	if f.Envelope.Code != codes.Conflict || f.Envelope.Message != "Rewritten: stale" {
		t.Errorf("a filter of ToolErrors: %s %q, want its own answer", f.Envelope.Code, f.Envelope.Message)
	}

	transform := filter.Catch(func(_ context.Context, _ filter.Call, e *upstreamError) (*filter.Response, error) {
		return nil, &upstreamError{404}
	})
	h = newHarness(t, filter.WithGlobalFilters(transform, upstreamFilter))
	err := toolerr.New("failed to list").WithCause(&upstreamError{500})
	f = h.handle(t, context.Background(), filter.Call{Tool: "t"}, err)
	if f.Envelope.Code != codes.NotFound || f.Envelope.Message != "failed to list" {
		t.Errorf("a transformed cause: %s %q, want NOT_FOUND with the ToolError's words", f.Envelope.Code, f.Envelope.Message)
	}
	if recs := h.records(t); len(recs) != 1 || !strings.Contains(fmt.Sprint(recs[0]["error"]), ": 500 ") {
		t.Errorf("records %v, want the error as returned", recs)
	}

	panics := filter.Catch(func(context.Context, filter.Call, *upstreamError) (*filter.Response, error) { panic("boom") })
	h = newHarness(t, filter.WithGlobalFilters(panics))
	f = h.handle(t, context.Background(), filter.Call{Tool: "t"}, toolerr.New("failed").WithCause(&upstreamError{404}))
	if f.Envelope.Code != codes.InternalError {
		t.Errorf("a filter that panics on the cause: %s, want INTERNAL_ERROR", f.Envelope.Code)
	}
}
