package filter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"reflect"
	"runtime/debug"
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
type valueCycle struct{ _ int }

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

// checkMasked checks the invariants of a masked answer: one failure with
// a ref, in exactly one record, and no canary in anything the client sees.
func checkMasked(t *testing.T, h *harness, f *filter.Failure) map[string]any {
	t.Helper()
	recs := h.records(t)
	if f == nil || f.Envelope.Code != codes.InternalError || len(f.Envelope.Ref) != 16 {
		t.Fatalf("failure = %+v, want a masked INTERNAL_ERROR with a ref", f)
	}
	if want := masked(f.Envelope.Ref); f.Envelope.Message != want || f.Texts[0] != want {
		t.Errorf("message = %q, texts %q, want %q", f.Envelope.Message, f.Texts, want)
	}
	if f.Envelope.Details != nil || f.Envelope.Hints != nil {
		t.Errorf("a masked error has details %s or hints %q", f.Envelope.Details, f.Envelope.Hints)
	}
	if strings.Contains(clientBytes(t, f), canary) {
		t.Errorf("canary reached the client: %s", clientBytes(t, f))
	}
	n := 0
	var rec map[string]any
	for _, x := range recs {
		if x["ref"] == f.Envelope.Ref {
			n++
			rec = x
		}
	}
	if n != 1 || len(recs) != 1 {
		t.Fatalf("records %v, want exactly one, with the ref %s", recs, f.Envelope.Ref)
	}
	return rec
}

// hostile are errors that fight back at the pipeline, and what the record
// of each says.
func hostile() []struct {
	name   string
	err    error
	logHas string
} {
	var typedNil *nilPublic
	pp := &pingPong{}
	pp.other = &pingPong{other: pp}
	return []struct {
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
		{"chain longer than 256 errors", deepChain(maxChain + 5), "more than"},
		{"a join of more than 256 errors", errors.Join(manyErrors(maxChain + 1)...), "more than"},
		{"typed nil public error", typedNil, "panicked"},
		{"typed nil public error, wrapped", fmt.Errorf("x: %w", typedNil), "nil"},
		{"typed nil domain.Authorization", (*domain.Authorization)(nil), "nil"},
		{"typed nil domain.Authorization, wrapped", fmt.Errorf("x: %w", (*domain.Authorization)(nil)), "nil"},
		{"a cockroachdb error around a cycle", crdb.Wrap(&selfish{msg: "self " + canary}, "query"), "cyclic"},
		{"cockroachdb errors around a cycle", crdb.Wrap(crdb.WithStack(&selfish{msg: "self " + canary}), "query"), "cyclic"},
		{"a cockroachdb error around a cycle, joined", errors.Join(errors.New("h"), crdb.WithStack(pp)), "cyclic"},
	}
}

// hostileCaseEnv names the case of TestHostileErrors that a child process
// runs, as "plain/NAME" or "redacted/NAME".
const hostileCaseEnv = "MCPERR_FILTER_HOSTILE_CASE"

// TestHostileErrors throws errors that fight back at the pipeline, with
// and without redaction: each gets one masked answer, one record, and the
// call returns. A walk of a chain that does not end overflows the stack,
// which no recover can stop, so each case runs in a process of its own: a
// crash fails the case rather than the whole test binary.
func TestHostileErrors(t *testing.T) {
	if c := os.Getenv(hostileCaseEnv); c != "" {
		debug.SetMaxStack(64 << 20) // a runaway walk overflows quickly
		mode, name, _ := strings.Cut(c, "/")
		for _, tt := range hostile() {
			if tt.name != name {
				continue
			}
			h := newHarness(t, filter.WithRedaction(mode == "redacted"))
			rec := checkMasked(t, h, h.handle(t, context.Background(), call, tt.err))
			all, _ := json.Marshal(rec)
			switch {
			case mode == "plain" && !strings.Contains(string(all), tt.logHas):
				t.Errorf("record %s does not say %q", all, tt.logHas)
			case mode == "redacted" && strings.Contains(string(all), canary):
				t.Errorf("redacted record %s holds the canary", all)
			}
			return
		}
		t.Fatalf("no case %q", c)
	}
	for _, mode := range []string{"plain", "redacted"} {
		for _, tt := range hostile() {
			t.Run(mode+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				cmd := exec.Command(os.Args[0], "-test.run=^TestHostileErrors$", "-test.v")
				cmd.Env = append(os.Environ(), hostileCaseEnv+"="+mode+"/"+tt.name)
				out, err := cmd.CombinedOutput()
				if err != nil {
					lines := strings.SplitN(string(out), "\n", 12)
					t.Errorf("the case failed (%v):\n%s", err, strings.Join(lines[:min(len(lines), 11)], "\n"))
				}
			})
		}
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
			transform := filter.Catch(func(context.Context, filter.Call, error) (*filter.Response, error) { return nil, tt.next })
			seen := 0
			after := filter.Catch(func(_ context.Context, _ filter.Call, err error) (*filter.Response, error) {
				seen++
				_ = err.Error()
				return nil, nil
			})
			h := newHarness(t, filter.WithFilters(transform, after))
			checkMasked(t, h, h.handle(t, context.Background(), call, errors.New("orig")))
			if seen != 1 {
				t.Errorf("the next filter ran %d times, want once", seen)
			}
		})
	}
}

// TestHintsRule checks which hints reach the model: a public error's own
// hint, wherever it is in the chain, and nothing else: never a hint of
// cockroachdb/errors (on a masked error or around a public one), one below
// a ToolError's cause, a third-party hint type, or an issue link.
func TestHintsRule(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want []string
	}{
		{"ToolError.WithHint", toolerr.New("No.").WithHint("Ask nicely."), []string{"Ask nicely."}},
		{"ToolError.WithHint, wrapped", fmt.Errorf("h: %w", toolerr.New("No.").WithHint("Ask nicely.")), []string{"Ask nicely."}},
		{"ToolError.WithHint under cockroachdb layers", crdb.Wrap(crdb.WithStack(toolerr.New("No.").WithHint("Ask nicely.")), "ctx "+canary), []string{"Ask nicely."}},
		{"a cockroachdb hint around a ToolError", crdb.WithHint(toolerr.New("No."), "outer hint "+canary), nil},
		{"a cockroachdb hint around a ToolError with its own", crdb.WithHint(toolerr.New("No.").WithHint("Ask nicely."), "outer hint "+canary), []string{"Ask nicely."}},
		{"WithHint at the top of a masked error", crdb.WithHint(errors.New("pool "+canary), "Retry in a minute. "+canary), nil},
		{"WithHint under Wrap and WithStack", crdb.Wrap(crdb.WithStack(crdb.WithHint(errors.New("pool"), "Retry. "+canary)), "ctx"), nil},
		{"an issue link", crdb.WithIssueLink(errors.New("x"), crdb.IssueLink{IssueURL: "https://tracker.internal/" + canary, Detail: canary}), nil},
		{"a hint below a plain wrapper", fmt.Errorf("query: %w", crdb.WithHint(errors.New("pq"), "driver hint "+canary)), nil},
		{"a third-party hint type", fmt.Errorf("q: %w", driverErr{}), nil},
		{"a hint at the top of a third-party hint type", driverErr{}, nil},
		{"the hint of a ToolError's cause", toolerr.New("Down.").WithCause(crdb.WithHint(errors.New("x"), "cause hint "+canary)), nil},
		{"a domain error under a cockroachdb hint", crdb.WithHint(domain.NewNotFound("Order", "1"), "hint "+canary), nil},
		{"an assertion failure", crdb.AssertionFailedf("invariant broken"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			f := h.handle(t, context.Background(), call, tt.err)
			if !reflect.DeepEqual(f.Envelope.Hints, tt.want) {
				t.Errorf("hints %q, want %q", f.Envelope.Hints, tt.want)
			}
			if got := strings.Count(strings.Join(f.Texts, "\n"), "Hint: "); got != len(tt.want) {
				t.Errorf("texts %q have %d hints, want %d", f.Texts, got, len(tt.want))
			}
			if strings.Contains(clientBytes(t, f), canary) {
				t.Errorf("canary reached the client: %s", clientBytes(t, f))
			}
		})
	}
}

// driverErr is a third-party error with a hint of its own.
type driverErr struct{}

func (driverErr) Error() string     { return "driver" }
func (driverErr) ErrorHint() string { return "see https://driver.internal/" + canary }

// TestRefsAreThePipelines checks that only the pipeline makes refs: a
// filter cannot set one, and a generator's invalid ref is replaced by a
// random one.
func TestRefsAreThePipelines(t *testing.T) {
	respond := filter.Catch(func(context.Context, filter.Call, error) (*filter.Response, error) {
		return &filter.Response{Code: codes.ExternalServiceError, Message: "The gateway is down (ref: forged)."}, nil
	})
	h := newHarness(t, filter.WithFilters(respond))
	a := h.handle(t, context.Background(), call, errors.New("x"))
	b := h.handle(t, context.Background(), call, errors.New("y"))
	if a.Envelope.Ref == "forged" || len(a.Envelope.Ref) != 16 || a.Envelope.Ref == b.Envelope.Ref {
		t.Errorf("refs %q and %q, want two fresh ones", a.Envelope.Ref, b.Envelope.Ref)
	}
	if !strings.HasSuffix(a.Texts[1], "\nRef: "+a.Envelope.Ref) {
		t.Errorf("text %q does not name the pipeline's ref", a.Texts[1])
	}
	for name, gen := range map[string]func() string{
		"empty":     func() string { return "" },
		"malformed": func() string { return "has space\n" },
		"too long":  func() string { return strings.Repeat("r", 65) },
		"private":   func() string { return "ref " + canary },
		"panics":    func() string { panic("gen " + canary) },
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, filter.WithRefGenerator(gen))
			refs := map[string]bool{}
			for range 3 {
				f := h.handle(t, context.Background(), call, errors.New("x"))
				if len(f.Envelope.Ref) != 16 || refs[f.Envelope.Ref] {
					t.Errorf("ref %q, want a fresh random one", f.Envelope.Ref)
				}
				refs[f.Envelope.Ref] = true
				recs := h.records(t)
				if len(recs) != 1 || recs[0]["ref"] != f.Envelope.Ref {
					t.Errorf("records %v, want one with the ref", recs)
				}
				if strings.Contains(clientBytes(t, f), canary) {
					t.Errorf("the generator's text reached the client: %s", clientBytes(t, f))
				}
			}
		})
	}
	// A valid ref is used as it is, even repeated: the generator is the
	// application's.
	h = newHarness(t, filter.WithRefGenerator(func() string { return "same" }))
	for range 2 {
		if f := h.handle(t, context.Background(), call, errors.New("x")); f.Envelope.Ref != "same" {
			t.Errorf("ref %q, want the generator's", f.Envelope.Ref)
		}
	}
}

// TestRedactionIsExact checks that what the client read is logged readably
// and everything private is redacted, details_error included.
func TestRedactionIsExact(t *testing.T) {
	bad := filter.Catch(func(context.Context, filter.Call, error) (*filter.Response, error) {
		return &filter.Response{Code: codes.Conflict, Message: "That email is taken.", Details: map[string]any{"x": make(chan int)}}, nil
	})
	h := newHarness(t, filter.WithRedaction(true), filter.WithFilters(bad))
	h.handle(t, context.Background(), call, crdb.Newf("user %s exists", "ann@example.com"))
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
	h.handle(t, context.Background(), call, domain.NewValidation("field", huge, "Too long."))
	if n := h.buf.Len(); n > 4*maxLogValue {
		t.Errorf("a 1 MiB value wrote %d bytes of log", n)
	}
	h.records(t)

	f := h.handle(t, context.Background(), call, toolerr.New(huge).WithHint(huge).WithDetails(map[string]any{"v": huge}))
	env := f.Envelope
	if len(env.Message) > maxMessage || len(env.Hints) != 1 || len(env.Hints[0]) > maxHint || env.Details != nil {
		t.Errorf("a message of %d bytes, %d hints, details %s: want them bounded", len(env.Message), len(env.Hints), env.Details)
	}
	for _, b := range f.Texts {
		if len(b) > maxMessage {
			t.Errorf("a text block of %d bytes", len(b))
		}
	}
	if rec := h.records(t)[0]; rec["details_error"] == nil {
		t.Errorf("record %v does not say why the details were not sent", rec)
	}

	// Details just under the bound are sent; just over, not.
	for _, tc := range []struct {
		n    int
		sent bool
	}{{maxDetails - len(`{"v":""}`), true}, {maxDetails - len(`{"v":""}`) + 1, false}} {
		f := h.handle(t, context.Background(), call, toolerr.New("x").WithDetails(map[string]any{"v": strings.Repeat("d", tc.n)}))
		if (f.Envelope.Details != nil) != tc.sent || len(f.Envelope.Details) > maxDetails {
			t.Errorf("details of %d bytes of JSON: sent %v, want %v", len(`{"v":""}`)+tc.n, f.Envelope.Details != nil, tc.sent)
		}
		h.records(t)
	}

	// A request id is bounded too.
	f = h.handle(t, context.Background(), filter.Call{Tool: "lookup", RequestID: huge}, toolerr.New("x"))
	if n := len(f.Envelope.RequestID); n == 0 || n > 256 {
		t.Errorf("a request id of %d bytes", n)
	}
	if n := h.buf.Len(); n > 4*maxLogValue {
		t.Errorf("a 1 MiB request id wrote %d bytes of log", n)
	}
	h.records(t)

	cyclic := map[string]any{}
	cyclic["self"] = cyclic
	var text bytes.Buffer
	p, _ := filter.New(filter.WithLogger(slog.New(slog.NewTextHandler(&text, nil))))
	f = checked(t, p.Handle(context.Background(), call, domain.NewBusinessRule(codes.BusinessRuleViolation, "No.", cyclic)))
	if f.Envelope.Message != "No." || f.Envelope.Details != nil || !strings.Contains(text.String(), "details_error") {
		t.Errorf("cyclic context: failure %+v, log %q", f.Envelope, text.String())
	}
}

// TestBoundedLogValues checks the log view of a Validation whose values
// are cyclic, enormous or nested deep: the record is written, bounded.
func TestBoundedLogValues(t *testing.T) {
	cyclic := map[string]any{}
	cyclic["self"] = cyclic
	deep := any("bottom")
	for range 50 {
		deep = []any{deep}
	}
	many := make([]domain.Violation, 200)
	for i := range many {
		many[i] = domain.Violation{Field: fmt.Sprint("f", i), Constraint: "bad", Value: strings.Repeat("v", 1<<16)}
	}
	for name, v := range map[string]*domain.Validation{
		"cyclic":   {Violations: []domain.Violation{{Field: "a", Constraint: "bad", Value: cyclic}}},
		"deep":     {Violations: []domain.Violation{{Field: "a", Constraint: "bad", Value: deep}}},
		"many":     {Violations: many},
		"huge key": {Violations: []domain.Violation{{Field: strings.Repeat("k", 1<<16), Constraint: "bad", Value: 1}}},
	} {
		t.Run(name, func(t *testing.T) {
			var text bytes.Buffer
			p, _ := filter.New(filter.WithLogger(slog.New(slog.NewJSONHandler(&text, nil))))
			f := checked(t, p.Handle(context.Background(), call, v))
			if f.Envelope.Code != codes.ValidationError {
				t.Fatalf("code %s", f.Envelope.Code)
			}
			// At most 64 attributes of a group are logged, each at most
			// 8 KiB.
			if n := text.Len(); n == 0 || n > 64*(maxLogValue+1<<10) {
				t.Errorf("%d bytes of log", n)
			}
			if strings.Count(text.String(), "\n") != 1 {
				t.Errorf("want one record: %.500s", text.String())
			}
		})
	}
}

// manyErrors returns n distinct errors.
func manyErrors(n int) []error {
	out := make([]error, n)
	for i := range out {
		out[i] = fmt.Errorf("e%d %s", i, canary)
	}
	return out
}

// incomparable is a public error of a type that == cannot compare: a
// value type with a map, as an application may well declare.
type incomparable struct{ fields map[string]any }

func (e incomparable) Error() string         { return "invalid fields" }
func (e incomparable) ErrorCode() codes.Code { return codes.NotFound }
func (e incomparable) PublicMessage() string { return "No such order." }

// privateIncomparable is a plain error of a type == cannot compare.
type privateIncomparable struct{ path []string }

func (e privateIncomparable) Error() string { return "lookup failed at " + strings.Join(e.path, "/") }

// TestIncomparableErrors checks errors of types == cannot compare: they are
// answered like any other, and logged once through the logger.
func TestIncomparableErrors(t *testing.T) {
	var o observed
	h := newHarness(t, filter.WithObserver(o.observe))
	f := h.handle(t, context.Background(), call, incomparable{fields: map[string]any{"id": 1}})
	if f.Envelope.Code != codes.NotFound || f.Envelope.Message != "No such order." || f.Envelope.Ref != "" {
		t.Errorf("envelope %+v, want the public NOT_FOUND", f.Envelope)
	}
	if len(o.failures) != 1 || !reflect.DeepEqual(o.failures[0].Envelope, f.Envelope) {
		t.Errorf("the observer was told %+v, the client gets %+v", o.failures, f.Envelope)
	}
	if recs := h.records(t); len(recs) != 1 || recs[0]["code"] != "NOT_FOUND" || recs[0]["level"] != "INFO" {
		t.Errorf("records %v, want one INFO record of NOT_FOUND", recs)
	}
	f = h.handle(t, context.Background(), call, privateIncomparable{path: []string{"a", canary}})
	checkMasked(t, h, f)
}
