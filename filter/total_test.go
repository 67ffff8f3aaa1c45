package filter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	crdb "github.com/cockroachdb/errors"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/toolerr"
)

// panicky is an error whose Error method panics with a secret.
type panicky struct{}

func (*panicky) Error() string { panic("Error() of " + canary) }

// selfish is an error that unwraps to itself.
type selfish struct{ msg string }

func (e *selfish) Error() string { return e.msg }
func (e *selfish) Unwrap() error { return e }

// pingPong errors unwrap to each other.
type pingPong struct{ other *pingPong }

func (e *pingPong) Error() string { return "ping " + canary }
func (e *pingPong) Unwrap() error { return e.other }

// joinSelf is an Unwrap() []error that returns itself.
type joinSelf struct{}

func (e *joinSelf) Error() string   { return "join " + canary }
func (e *joinSelf) Unwrap() []error { return []error{errors.New("a"), e} }

// valueCycle is a value type whose Unwrap returns itself.
type valueCycle struct{ n int }

func (e valueCycle) Error() string { return "value cycle" }
func (e valueCycle) Unwrap() error { return e }

// unwrapPanics panics in Unwrap.
type unwrapPanics struct{}

func (unwrapPanics) Error() string { return "unwrap panics" }
func (unwrapPanics) Unwrap() error { panic("Unwrap of " + canary) }

// nilPublic is a public error type used as a typed nil.
type nilPublic struct{ msg string }

func (e *nilPublic) Error() string                 { return e.msg }
func (e *nilPublic) ErrorCode() codes.Code         { return codes.NotFound }
func (e *nilPublic) PublicMessage() string         { return e.msg }
func (e *nilPublic) Is(target error) bool          { return e.msg == "" }
func (e *nilPublic) As(target any) bool            { return false }
func (e *nilPublic) PublicDetails() map[string]any { return nil }

// deepChain returns an error wrapped n times.
func deepChain(n int) error {
	err := errors.New("bottom " + canary)
	for i := range n {
		err = fmt.Errorf("layer %d: %w", i, err)
	}
	return err
}

// checkMasked checks the invariants of a masked answer: one response with
// a ref, in exactly one record, and no canary in anything the client sees.
func checkMasked(t *testing.T, h *harness, r *filter.Response) map[string]any {
	t.Helper()
	recs := h.records(t)
	if r == nil || r.Code != codes.InternalError || len(r.Ref) != 16 {
		t.Fatalf("response = %+v, want a masked INTERNAL_ERROR with a ref", r)
	}
	if want := fmt.Sprintf(`Internal error in tool "lookup" (ref: %s).`, r.Ref); r.Message != want {
		t.Errorf("message = %q, want %q", r.Message, want)
	}
	if strings.Contains(clientBytes(t, r), canary) {
		t.Errorf("canary reached the client: %s", clientBytes(t, r))
	}
	n := 0
	var rec map[string]any
	for _, x := range recs {
		if x["ref"] == r.Ref {
			n++
			rec = x
		}
	}
	if n != 1 || len(recs) != 1 {
		t.Fatalf("records %v, want exactly one, with the ref %s", recs, r.Ref)
	}
	return rec
}

// TestHostileErrors throws errors that fight back at the pipeline: each gets
// one masked answer, one record, and the call returns.
func TestHostileErrors(t *testing.T) {
	var typedNil *nilPublic
	pp := &pingPong{}
	pp.other = &pingPong{other: pp}
	tests := []struct {
		name   string
		err    error
		logHas string
	}{
		{"Error panics", &panicky{}, "its Error method panicked"},
		{"Error panics, wrapped", fmt.Errorf("handler: %w", &panicky{}), "PANIC"},
		{"Unwrap returns itself", &selfish{msg: "self " + canary}, "cyclic"},
		{"two errors point at each other", pp, "cyclic"},
		{"Unwrap []error returns itself", &joinSelf{}, "cyclic"},
		{"a value type unwraps to itself", valueCycle{}, "cyclic"},
		{"Unwrap panics", unwrapPanics{}, "panicked"},
		{"chain longer than MaxChain", deepChain(filter.MaxChain + 5), "more than"},
		{"typed nil public error", typedNil, "panicked"},
		{"typed nil public error, wrapped", fmt.Errorf("x: %w", typedNil), "panicked"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			r := h.p.Handle(context.Background(), call, tt.err)
			rec := checkMasked(t, h, r)
			all, _ := json.Marshal(rec)
			if !strings.Contains(string(all), tt.logHas) {
				t.Errorf("record %s does not say %q", all, tt.logHas)
			}
		})
	}
}

// TestHostileFilters checks filters that return errors that fight back.
func TestHostileFilters(t *testing.T) {
	var typedNil *panicky
	for _, tt := range []struct {
		name string
		next error
	}{
		{"typed nil whose Error panics", typedNil},
		{"cyclic", &selfish{msg: "self " + canary}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			transform := filter.Func(func(context.Context, filter.Call, error) (*filter.Response, error) { return nil, tt.next })
			seen := 0
			after := filter.Func(func(_ context.Context, _ filter.Call, err error) (*filter.Response, error) {
				seen++
				_ = err.Error()
				return nil, nil
			})
			h := newHarness(t, filter.WithFilters(transform, after))
			checkMasked(t, h, h.p.Handle(context.Background(), call, errors.New("orig")))
			if seen != 1 {
				t.Errorf("the next filter ran %d times, want once", seen)
			}
		})
	}
}

// TestHintsRule checks which hints reach the model: those attached on
// purpose at the top of the error, never one deeper in the chain, below a
// ToolError's cause, or an issue link.
func TestHintsRule(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"WithHint at the top of a masked error", crdb.WithHint(errors.New("pool "+canary), "Retry in a minute."), "[Retry in a minute.]"},
		{"WithHint under Wrap and WithStack", crdb.Wrap(crdb.WithStack(crdb.WithHint(errors.New("pool"), "Retry.")), "ctx"), "[Retry.]"},
		{"ToolError.WithHint, wrapped", fmt.Errorf("h: %w", toolerr.New("No.").WithHint("Ask nicely.")), "[Ask nicely.]"},
		{"an issue link", crdb.WithIssueLink(errors.New("x"), crdb.IssueLink{IssueURL: "https://tracker.internal/" + canary, Detail: canary}), "[]"},
		{"a hint below a plain wrapper", fmt.Errorf("query: %w", crdb.WithHint(errors.New("pq"), "driver hint "+canary)), "[]"},
		{"a third-party hint type", fmt.Errorf("q: %w", driverErr{}), "[]"},
		{"a hint at the top of a third-party hint type", driverErr{}, "[]"},
		{"the hint of a ToolError's cause", toolerr.New("Down.").WithCause(crdb.WithHint(errors.New("x"), "cause hint "+canary)), "[]"},
		{"an assertion failure", crdb.AssertionFailedf("invariant broken"), "[]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			r := h.p.Handle(context.Background(), call, tt.err)
			if got := fmt.Sprint(r.Hints); got != tt.want && !(tt.want == "[]" && r.Hints == nil) {
				t.Errorf("hints %q, want %s", r.Hints, tt.want)
			}
			if strings.Contains(clientBytes(t, r), canary) {
				t.Errorf("canary reached the client: %s", clientBytes(t, r))
			}
		})
	}
}

// driverErr is a third-party error with a hint of its own.
type driverErr struct{}

func (driverErr) Error() string     { return "driver" }
func (driverErr) ErrorHint() string { return "see https://driver.internal/" + canary }

// TestRefsCannotBeForged checks that a filter's ref is replaced, and that a
// generator's empty or repeated ref is neutralised.
func TestRefsCannotBeForged(t *testing.T) {
	forge := filter.Func(func(context.Context, filter.Call, error) (*filter.Response, error) {
		return &filter.Response{Code: codes.ExternalServiceError, Message: "The gateway is down.", Ref: "forged"}, nil
	})
	h := newHarness(t, filter.WithFilters(forge))
	a := h.p.Handle(context.Background(), call, errors.New("x"))
	b := h.p.Handle(context.Background(), call, errors.New("y"))
	if a.Ref == "forged" || a.Ref == "" || a.Ref == b.Ref {
		t.Errorf("refs %q and %q, want two fresh ones", a.Ref, b.Ref)
	}
	for _, gen := range []func() string{
		func() string { return "" },
		func() string { return "same" },
		func() string { return "has space\n" },
		func() string { panic("gen") },
	} {
		h := newHarness(t, filter.WithRefGenerator(gen))
		refs := map[string]bool{}
		for range 3 {
			r := h.p.Handle(context.Background(), call, errors.New("x"))
			if r.Ref == "" || refs[r.Ref] || strings.ContainsAny(r.Ref, " \n") {
				t.Errorf("ref %q empty, malformed or repeated", r.Ref)
			}
			refs[r.Ref] = true
		}
		warns := 0
		for _, rec := range h.records(t) {
			if rec["level"] == "WARN" {
				warns++
			}
		}
		if warns != 1 {
			t.Errorf("%d warnings about the generator, want 1", warns)
		}
	}
}

// TestRedactionIsExact checks that what the client read is logged readably
// and everything private is redacted, details_error included.
func TestRedactionIsExact(t *testing.T) {
	bad := filter.Func(func(context.Context, filter.Call, error) (*filter.Response, error) {
		return &filter.Response{Code: codes.Conflict, Message: "That email is taken.", Details: map[string]any{"x": make(chan int)}}, nil
	})
	h := newHarness(t, filter.WithRedaction(true), filter.WithFilters(bad))
	h.p.Handle(context.Background(), call, crdb.Newf("user %s exists", "ann@example.com"))
	rec := h.records(t)[0]
	all, _ := json.Marshal(rec)
	if strings.Contains(string(all), "ann@example.com") {
		t.Errorf("record not redacted: %s", all)
	}
	if rec["message"] != "That email is taken." {
		t.Errorf("message = %v, want the client's text, readable", rec["message"])
	}
	if de, _ := rec["details_error"].(string); de == "" || strings.Contains(de, "chan") {
		t.Errorf("details_error = %q, want it present and redacted", de)
	}
}

// TestBoundedOutput checks that a client or an error cannot amplify what is
// logged or sent.
func TestBoundedOutput(t *testing.T) {
	huge := strings.Repeat("A", 1<<20)
	h := newHarness(t)
	h.p.Handle(context.Background(), call, domain.NewValidation("field", huge, "Too long."))
	if n := h.buf.Len(); n > 4*filter.MaxLogValue {
		t.Errorf("a 1 MiB value wrote %d bytes of log", n)
	}
	h.records(t)

	r := h.p.Handle(context.Background(), call, toolerr.New(huge).WithHint(huge).WithDetails(map[string]any{"v": huge}))
	if len(r.Message) > filter.MaxMessage || len(r.Hints) != 1 || len(r.Hints[0]) > filter.MaxHint || r.Details != nil {
		t.Errorf("response of %d bytes message, %d hints, details %v: want them bounded", len(r.Message), len(r.Hints), r.Details != nil)
	}
	h.records(t)

	cyclic := map[string]any{}
	cyclic["self"] = cyclic
	var text bytes.Buffer
	p, _ := filter.New(filter.WithLogger(slog.New(slog.NewTextHandler(&text, nil))))
	r = p.Handle(context.Background(), call, domain.NewBusinessRule(codes.BusinessRuleViolation, "No.", cyclic))
	if r.Message != "No." || r.Details != nil || !strings.Contains(text.String(), "nested too deep") {
		t.Errorf("cyclic context: response %+v, log %q", r, text.String())
	}
}

// TestFailingReporterIsMaskedOnce checks a reporter that panics: one
// masked answer, one record that says why.
func TestFailingReporterIsMaskedOnce(t *testing.T) {
	calls := 0
	rep := filter.ReporterFunc(func(context.Context, filter.Incident) { calls++; panic("reporter " + canary) })
	h := newHarness(t, filter.WithReporter(rep))
	rec := checkMasked(t, h, h.p.Handle(context.Background(), call, errors.New("x")))
	if calls != 1 || rec["reporter_error"] == nil {
		t.Errorf("reporter called %d times, record %v", calls, rec)
	}
}
