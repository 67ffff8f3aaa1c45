package filter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	crdb "github.com/cockroachdb/errors"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/panics"
	"github.com/mcperr/mcperr/toolerr"
)

const canary = "hunter2-CANARY-9d41"

// harness is a pipeline writing JSON log records into a buffer.
type harness struct {
	p   *filter.Pipeline
	buf bytes.Buffer
}

func newHarness(t *testing.T, opts ...filter.Option) *harness {
	t.Helper()
	h := &harness{}
	logger := slog.New(slog.NewJSONHandler(&h.buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	p, err := filter.New(append([]filter.Option{filter.WithLogger(logger)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	h.p = p
	return h
}

func (h *harness) records(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	dec := json.NewDecoder(&h.buf)
	for dec.More() {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	h.buf.Reset()
	return out
}

// clientBytes is everything of a response a client can see.
func clientBytes(t *testing.T, r *filter.Response) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n" + strings.Join(r.Texts(), "\n")
}

var call = filter.Call{Tool: "lookup", RequestID: "7", SessionID: "sess-1"}

// TestContract walks the rows of the behaviour table that need no SDK.
func TestContract(t *testing.T) {
	tests := []struct {
		name      string
		err       error
		code      codes.Code
		message   string // "{ref}" stands for the ref
		details   map[string]any
		retryable any // nil: absent
		masked    bool
		level     string
		logHas    []string
	}{
		{"ToolError", toolerr.New("b must not be zero."), codes.ToolFailed, "b must not be zero.", nil, false, false, "INFO", nil},
		{"wrapped ToolError keeps message, cause to log", fmt.Errorf("handler: %w", toolerr.New("Try a smaller page.").WithCause(errors.New(canary))),
			codes.ToolFailed, "Try a smaller page.", nil, false, false, "INFO", []string{canary}},
		{"ToolError with server code", toolerr.New("The billing service is down.").WithCode(codes.ExternalServiceError),
			codes.ExternalServiceError, "The billing service is down.", nil, true, false, "ERROR", nil},
		{"NotFound", domain.NewNotFound("Order", "ord_1"), codes.NotFound, "Order not found: ord_1",
			map[string]any{"resourceType": "Order", "resourceId": "ord_1"}, false, false, "INFO", nil},
		{"Validation", domain.NewValidation("email", canary, "Must be a valid email address"), codes.ValidationError,
			"Validation failed for email: Must be a valid email address", nil, false, false, "INFO", []string{canary}},
		{"Authorization", domain.NewAuthorization("admin:"+canary, "user-"+canary), codes.Forbidden, "Access denied.", nil, false, false, "INFO",
			[]string{"user-" + canary}},
		{"Unauthenticated", &domain.Unauthenticated{Reason: "token " + canary + " expired"}, codes.Unauthorized, "Authentication required.", nil, false, false, "INFO", []string{canary}},
		{"BusinessRule", domain.NewBusinessRule("ORDER_ALREADY_DELIVERED", "Cannot change status of a delivered order", map[string]any{"currentStatus": "delivered"}),
			"ORDER_ALREADY_DELIVERED", "Cannot change status of a delivered order", map[string]any{"currentStatus": "delivered"}, nil, false, "INFO", nil},
		{"Conflict hides its cause", &domain.Conflict{Resource: "User", Message: "Email taken.", Cause: errors.New(canary)}, codes.Conflict, "Email taken.",
			map[string]any{"resourceType": "User"}, false, false, "INFO", []string{canary}},
		{"RateLimited", domain.NewRateLimited(1500 * time.Millisecond), codes.RateLimited, "Too many requests. Retry after 2 seconds.",
			map[string]any{"retryAfterSeconds": 2.0}, true, false, "INFO", nil},
		{"plain error", fmt.Errorf("dial 10.0.0.5: password=%s refused", canary), codes.InternalError,
			`Internal error in tool "lookup" (ref: {ref}).`, nil, false, true, "ERROR", []string{"password=" + canary}},
		{"cockroach error keeps its stack", crdb.Wrap(crdb.New("conn reset "+canary), "query"), codes.InternalError,
			`Internal error in tool "lookup" (ref: {ref}).`, nil, false, true, "ERROR", []string{canary, "pipeline_test.go"}},
		{"cancelled", fmt.Errorf("query %s: %w", canary, context.Canceled), codes.Cancelled,
			"The request was cancelled before the tool finished.", nil, true, false, "INFO", nil},
		{"deadline", fmt.Errorf("query %s: %w", canary, context.DeadlineExceeded), codes.Timeout,
			"The tool did not finish in time; try again, perhaps with a smaller request (ref: {ref}).", nil, true, false, "ERROR", nil},
		{"domain error beats the context error around it", fmt.Errorf("%w: %w", domain.NewNotFound("Order", "x"), context.Canceled), codes.NotFound,
			"Order not found: x", nil, false, false, "INFO", nil},
		{"joined: the public part speaks", errors.Join(errors.New(canary), domain.NewNotFound("User", "u")), codes.NotFound,
			"User not found: u", nil, false, false, "INFO", []string{canary}},
		{"panic", panics.Recovered("boom " + canary), codes.InternalError,
			`Internal error in tool "lookup" (ref: {ref}).`, nil, false, true, "ERROR", []string{canary, "goroutine"}},
		{"panic with a ToolError is still masked", panics.Recovered(toolerr.New(canary)), codes.InternalError,
			`Internal error in tool "lookup" (ref: {ref}).`, nil, false, true, "ERROR", []string{canary}},
		{"public error with empty message is masked", toolerr.New(""), codes.InternalError,
			`Internal error in tool "lookup" (ref: {ref}).`, nil, false, true, "ERROR", nil},
	}
	reg, err := codes.NewRegistry(codes.Info{Code: "ORDER_ALREADY_DELIVERED", Category: codes.Business, Description: "The order was delivered."})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, filter.WithRegistry(reg))
			r := h.p.Handle(context.Background(), call, tt.err)
			recs := h.records(t)
			if len(recs) != 1 {
				t.Fatalf("%d log records, want exactly 1: %v", len(recs), recs)
			}
			rec := recs[0]
			if r.Code != tt.code {
				t.Errorf("code = %s, want %s", r.Code, tt.code)
			}
			want := strings.ReplaceAll(tt.message, "{ref}", r.Ref)
			if r.Message != want {
				t.Errorf("message = %q, want %q", r.Message, want)
			}
			if tt.masked {
				if len(r.Ref) != 16 || rec["ref"] != r.Ref {
					t.Errorf("ref %q in the response, %v in the log; want the same 16 hex digits", r.Ref, rec["ref"])
				}
			}
			for k, v := range tt.details {
				if fmt.Sprint(r.Details[k]) != fmt.Sprint(v) {
					t.Errorf("details[%s] = %v, want %v", k, r.Details[k], v)
				}
			}
			env := map[string]any{}
			_ = json.Unmarshal([]byte(strings.SplitN(clientBytes(t, r), "\n", 2)[0]), &env)
			if tt.retryable == nil {
				tt.retryable = false // every envelope carries retryable
			}
			if env["retryable"] != tt.retryable {
				t.Errorf("retryable = %v, want %v", env["retryable"], tt.retryable)
			}
			if env["requestId"] != "7" || env["error"] != true || env["timestamp"] == "" {
				t.Errorf("envelope = %v, want error, requestId and timestamp", env)
			}
			if strings.Contains(clientBytes(t, r), canary) {
				t.Errorf("canary reached the client: %s", clientBytes(t, r))
			}
			if rec["level"] != tt.level {
				t.Errorf("level = %v, want %s", rec["level"], tt.level)
			}
			if rec["tool"] != "lookup" || rec["code"] != string(tt.code) || rec["request_id"] != "7" || rec["session_id"] != "sess-1" {
				t.Errorf("log record lacks tool, code or ids: %v", rec)
			}
			all, _ := json.Marshal(rec)
			for _, s := range tt.logHas {
				if !strings.Contains(string(all), s) {
					t.Errorf("log record lacks %q: %s", s, all)
				}
			}
		})
	}
}

func TestDomainFieldsReachTheLog(t *testing.T) {
	h := newHarness(t)
	h.p.Handle(context.Background(), call, fmt.Errorf("check: %w", domain.NewAuthorization("orders:write", "usr_7")))
	rec := h.records(t)[0]
	fields, _ := rec["fields"].(map[string]any)
	if fields["permission"] != "orders:write" || fields["subject"] != "usr_7" {
		t.Fatalf("fields = %v, want permission and subject", rec["fields"])
	}
}

func TestHintReachesModelWhenMasked(t *testing.T) {
	h := newHarness(t)
	err := crdb.WithHint(fmt.Errorf("pool exhausted: %s", canary), "The database is busy; retry in a minute.")
	r := h.p.Handle(context.Background(), call, err)
	if r.Code != codes.InternalError || !strings.Contains(r.Message, r.Ref) {
		t.Fatalf("response = %+v, want a masked internal error", r)
	}
	texts := r.Texts()
	if len(texts) != 2 || texts[0] != r.Message || texts[1] != "Code: INTERNAL_ERROR\nRetry: no.\nHint: The database is busy; retry in a minute." {
		t.Fatalf("texts = %q, want the message then the code, retry advice and hint", texts)
	}
	if strings.Contains(clientBytes(t, r), canary) {
		t.Fatal("canary reached the client")
	}
}

func TestToolErrorHint(t *testing.T) {
	h := newHarness(t)
	r := h.p.Handle(context.Background(), call, toolerr.New("b must not be zero.").WithHint("Pass a non-zero b."))
	if got := r.Texts(); len(got) != 2 || got[0] != "b must not be zero." || got[1] != "Code: TOOL_ERROR\nRetry: no, not with the same arguments.\nHint: Pass a non-zero b." {
		t.Fatalf("texts = %q", got)
	}
}

func TestAssertionHintsStayPrivate(t *testing.T) {
	h := newHarness(t)
	r := h.p.Handle(context.Background(), call, crdb.AssertionFailedf("invariant broken"))
	if len(r.Hints) != 0 {
		t.Fatalf("hints = %q, want none: the library's own hints point at its issue tracker", r.Hints)
	}
}

func TestRegistryDecidesCategoryAndRetry(t *testing.T) {
	reg, err := codes.NewRegistry(codes.Info{Code: "PAYMENT_GATEWAY_DOWN", Category: codes.Server, Description: "The gateway is down.", Retryable: true})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, filter.WithRegistry(reg))
	r := h.p.Handle(context.Background(), call, toolerr.New("Payments are down; try later.").WithCode("PAYMENT_GATEWAY_DOWN"))
	rec := h.records(t)[0]
	if r.Retryable == nil || !*r.Retryable || rec["level"] != "ERROR" || r.Ref == "" || rec["ref"] != r.Ref {
		t.Fatalf("response %+v, record %v: want retryable, logged at ERROR with a ref", r, rec)
	}
	if r.Message != "Payments are down; try later." {
		t.Fatalf("message = %q: a ToolError's message must be kept whatever its category", r.Message)
	}
}

func TestExposedErrors(t *testing.T) {
	h := newHarness(t, filter.WithExposedErrors(true))
	r := h.p.Handle(context.Background(), call, errors.New("dial tcp: refused"))
	want := fmt.Sprintf(`Internal error in tool "lookup" (ref: %s): dial tcp: refused`, r.Ref)
	if r.Message != want {
		t.Fatalf("message = %q, want %q", r.Message, want)
	}
}

func TestRedaction(t *testing.T) {
	h := newHarness(t, filter.WithRedaction(true))
	h.p.Handle(context.Background(), call, crdb.Wrapf(crdb.New("base"), "login for %s", canary))
	h.p.Handle(context.Background(), call, domain.NewValidation("ssn", canary, "Must be 9 digits"))
	h.p.Handle(context.Background(), call, panics.Recovered(canary))
	recs := h.records(t)
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3", len(recs))
	}
	for _, rec := range recs {
		all, _ := json.Marshal(rec)
		if strings.Contains(string(all), canary) {
			t.Errorf("redacted log record holds the canary: %s", all)
		}
	}
}

func TestDeterministicRefAndClock(t *testing.T) {
	at := time.Date(2024, 1, 15, 10, 30, 0, 0, time.UTC)
	h := newHarness(t, filter.WithRefGenerator(func() string { return "ref-1" }), filter.WithClock(func() time.Time { return at }))
	r := h.p.Handle(context.Background(), call, errors.New("x"))
	if r.Ref != "ref-1" || !r.Timestamp.Equal(at) {
		t.Fatalf("ref %q, timestamp %v", r.Ref, r.Timestamp)
	}
	b, _ := json.Marshal(r)
	if !strings.Contains(string(b), `"timestamp":"2024-01-15T10:30:00Z"`) {
		t.Fatalf("envelope %s lacks the RFC 3339 timestamp", b)
	}
}

func TestReporter(t *testing.T) {
	var got []filter.Incident
	h := newHarness(t, filter.WithReporter(filter.ReporterFunc(func(_ context.Context, in filter.Incident) { got = append(got, in) })))
	r := h.p.Handle(context.Background(), call, errors.New("disk full"))
	h.p.Handle(context.Background(), call, domain.NewNotFound("Order", "1"))
	if len(got) != 1 || got[0].Ref != r.Ref || got[0].Err.Error() != "disk full" || got[0].Call != call {
		t.Fatalf("incidents = %+v, want one for the internal error with its ref", got)
	}
}

func TestFailingReporterIsContained(t *testing.T) {
	h := newHarness(t, filter.WithReporter(filter.ReporterFunc(func(context.Context, filter.Incident) { panic("sentry " + canary) })))
	r := h.p.Handle(context.Background(), call, errors.New("disk full"))
	recs := h.records(t)
	if len(recs) != 1 || recs[0]["ref"] != r.Ref || !strings.Contains(fmt.Sprint(recs[0]["reporter_error"]), "sentry") {
		t.Fatalf("records = %v, want one record with the ref and the reporter's failure", recs)
	}
	if r.Code != codes.InternalError || strings.Contains(clientBytes(t, r), canary) {
		t.Fatalf("response = %+v", r)
	}

	// A server error the client could have read becomes internal too.
	r = h.p.Handle(context.Background(), call, toolerr.New("The billing service is down.").
		WithCode(codes.ExternalServiceError).WithDetails(map[string]any{"service": "billing"}))
	recs = h.records(t)
	if r.Code != codes.InternalError || r.Message != fmt.Sprintf(`Internal error in tool "lookup" (ref: %s).`, r.Ref) || r.Details != nil {
		t.Fatalf("response = %+v, want the masked internal error", r)
	}
	if len(recs) != 1 || recs[0]["ref"] != r.Ref || recs[0]["level"] != "ERROR" {
		t.Fatalf("records = %v", recs)
	}
}

func TestFailingFilterIsMasked(t *testing.T) {
	tests := map[string]filter.Filter{
		"panics": filter.Func(func(context.Context, filter.Call, error) (*filter.Response, error) {
			panic("filter bug " + canary)
		}),
		"empty message": filter.Func(func(context.Context, filter.Call, error) (*filter.Response, error) {
			return &filter.Response{Code: codes.NotFound}, nil
		}),
	}
	for name, f := range tests {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, filter.WithFilters(f))
			r := h.p.Handle(context.Background(), call, domain.NewNotFound("Order", "1"))
			recs := h.records(t)
			if r.Code != codes.InternalError || r.Message != fmt.Sprintf(`Internal error in tool "lookup" (ref: %s).`, r.Ref) {
				t.Fatalf("response = %+v, want masked internal error", r)
			}
			if len(recs) != 1 || recs[0]["ref"] != r.Ref || recs[0]["filter_error"] == nil {
				t.Fatalf("records = %v, want one with the ref and the filter's failure", recs)
			}
			if strings.Contains(clientBytes(t, r), canary) {
				t.Fatal("canary reached the client")
			}
		})
	}
}

func TestFilterResponseGetsDefaults(t *testing.T) {
	shared := &filter.Response{Code: codes.Conflict, Message: "A record with this value already exists.",
		Hints: append(make([]string, 0, 4), "Use another email.")}
	f := filter.Func(func(context.Context, filter.Call, error) (*filter.Response, error) { return shared, nil })
	h := newHarness(t, filter.WithFilters(f))
	r := h.p.Handle(context.Background(), call, crdb.WithHint(errors.New("pq: unique violation "+canary), "Check the email."))
	if r == shared || shared.RequestID != "" || !shared.Timestamp.IsZero() || shared.Hints[:2][1] != "" {
		t.Fatal("the pipeline changed the filter's own Response value")
	}
	if fmt.Sprint(r.Hints) != "[Use another email. Check the email.]" {
		t.Fatalf("hints = %q", r.Hints)
	}
	if r.Code != codes.Conflict || r.RequestID != "7" || r.Timestamp.IsZero() || r.Retryable == nil || *r.Retryable {
		t.Fatalf("response = %+v", r)
	}
	rec := h.records(t)[0]
	if rec["level"] != "INFO" || !strings.Contains(fmt.Sprint(rec["error"]), canary) {
		t.Fatalf("record = %v, want the original error at INFO", rec)
	}
}

func TestZeroCodeBecomesInternal(t *testing.T) {
	f := filter.Func(func(context.Context, filter.Call, error) (*filter.Response, error) {
		return &filter.Response{Message: "Something failed."}, nil
	})
	h := newHarness(t, filter.WithFilters(f))
	r := h.p.Handle(context.Background(), call, errors.New("x"))
	if r.Code != codes.InternalError || r.Ref == "" {
		t.Fatalf("response = %+v, want INTERNAL_ERROR with a ref", r)
	}
}

func TestUnencodableDetailsAreDropped(t *testing.T) {
	h := newHarness(t)
	r := h.p.Handle(context.Background(), call, toolerr.New("x").WithDetails(map[string]any{"ch": make(chan int)}))
	if r.Details != nil {
		t.Fatalf("details = %v, want dropped", r.Details)
	}
	if _, err := json.Marshal(r); err != nil {
		t.Fatal(err)
	}
}

func TestFilterOrderAndTransform(t *testing.T) {
	var trail []string
	mark := func(name string, next error) filter.Filter {
		return filter.Func(func(_ context.Context, _ filter.Call, err error) (*filter.Response, error) {
			trail = append(trail, name+":"+err.Error())
			return nil, next
		})
	}
	p, err := filter.New(
		filter.WithLogger(slog.New(slog.DiscardHandler)),
		filter.WithFilters(mark("global", nil)),
	)
	if err != nil {
		t.Fatal(err)
	}
	p.Handle(context.Background(), call, errors.New("orig"), mark("local", nil), mark("tool", errors.New("transformed")))
	want := "[local:orig tool:orig global:transformed]"
	if fmt.Sprint(trail) != want {
		t.Fatalf("trail = %v, want %s", trail, want)
	}
	trail = nil
	p.Handle(context.Background(), filter.Call{Tool: "unbound"}, errors.New("orig"))
	if fmt.Sprint(trail) != "[global:orig]" {
		t.Fatalf("trail for an unbound tool = %v", trail)
	}
}

func TestCatchMatchesThroughWrapping(t *testing.T) {
	var hits atomic.Int32
	nf := filter.Catch(func(_ context.Context, _ filter.Call, e *domain.NotFound) (*filter.Response, error) {
		hits.Add(1)
		return &filter.Response{Code: codes.NotFound, Message: "No " + e.Resource + " with that id."}, nil
	})
	h := newHarness(t, filter.WithFilters(nf))
	r := h.p.Handle(context.Background(), call, fmt.Errorf("a: %w", fmt.Errorf("b: %w", domain.NewNotFound("Order", "1"))))
	if r.Message != "No Order with that id." {
		t.Fatalf("message = %q", r.Message)
	}
	r = h.p.Handle(context.Background(), call, errors.New("other"))
	if r.Code != codes.InternalError || hits.Load() != 1 {
		t.Fatalf("a typed filter handled an error of another type: %+v", r)
	}
}

func TestDefinitionErrors(t *testing.T) {
	tests := []struct {
		name string
		opt  filter.Option
		code codes.Code
	}{
		{"nil global filter", filter.WithFilters(nil), codes.NilFilter},
		{"nil filter function", filter.WithFilters(filter.Func(nil)), codes.NilFilter},
		{"nil reporter function", filter.WithReporter(filter.ReporterFunc(nil)), codes.InvalidOption},
		{"nil pointer filter", filter.WithFilters((*countingFilter)(nil)), codes.NilFilter},
		{"nil pointer reporter", filter.WithReporter((*countingReporter)(nil)), codes.InvalidOption},
		{"nil ref generator", filter.WithRefGenerator(nil), codes.InvalidOption},
		{"nil clock", filter.WithClock(nil), codes.InvalidOption},
		{"nil reporter", filter.WithReporter(nil), codes.InvalidOption},
		{"nil typed filter", filter.WithFilters(filter.Catch[*domain.NotFound](nil)), codes.NilFilter},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := filter.New(tt.opt)
			var de *toolerr.DefinitionError
			if !errors.As(err, &de) || de.Code != tt.code {
				t.Fatalf("New = %v, want a definition error %s", err, tt.code)
			}
		})
	}
}

// TestAbortHandlerIsMasked checks that http.ErrAbortHandler, which a tool
// handler never runs where net/http could catch it, is an internal error.
func TestAbortHandlerIsMasked(t *testing.T) {
	h := newHarness(t)
	r := h.p.Handle(context.Background(), call, panics.Recovered(http.ErrAbortHandler))
	if r.Code != codes.InternalError || r.Ref == "" {
		t.Fatalf("response = %+v, want a masked internal error", r)
	}
}

func TestNilErrorAndDefaultLogger(t *testing.T) {
	p, err := filter.New()
	if err != nil {
		t.Fatal(err)
	}
	if r := p.Handle(context.Background(), call, nil); r != nil {
		t.Fatalf("Handle(nil) = %+v, want nil", r)
	}
	var buf bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	defer slog.SetDefault(old)
	r := p.Handle(context.Background(), call, errors.New("x"))
	if !strings.Contains(buf.String(), "ref="+r.Ref) {
		t.Fatalf("default logger got %q, want the ref", buf.String())
	}
}

func TestHandleAllocatesNothingForNil(t *testing.T) {
	p, _ := filter.New()
	ctx := context.Background()
	if n := testing.AllocsPerRun(100, func() { p.Handle(ctx, call, nil) }); n != 0 {
		t.Fatalf("Handle(nil) allocates %v times, want 0", n)
	}
}

func TestConcurrentHandle(t *testing.T) {
	h := newHarness(t)
	done := make(chan *filter.Response)
	for i := range 8 {
		go func() { done <- h.p.Handle(context.Background(), call, fmt.Errorf("e%d", i)) }()
	}
	refs := map[string]bool{}
	for range 8 {
		refs[(<-done).Ref] = true
	}
	if len(refs) != 8 {
		t.Fatalf("%d distinct refs for 8 errors", len(refs))
	}
}

// TestUnregisteredCodesNeverReachTheClient covers every source of a code: a
// filter's Response, a ToolError and a BusinessRule, malformed or unknown.
func TestUnregisteredCodesNeverReachTheClient(t *testing.T) {
	tests := []struct {
		name     string
		filter   filter.Filter
		err      error
		bad      string
		fallback codes.Code
	}{
		{"filter, malformed", filter.Func(func(context.Context, filter.Call, error) (*filter.Response, error) {
			return &filter.Response{Code: "insufficient funds", Message: "Not enough money."}, nil
		}), errors.New("x"), "insufficient funds", codes.ToolFailed},
		{"filter, unregistered", filter.Func(func(context.Context, filter.Call, error) (*filter.Response, error) {
			return &filter.Response{Code: "NO_MONEY", Message: "Not enough money."}, nil
		}), errors.New("x"), "NO_MONEY", codes.ToolFailed},
		{"ToolError, malformed", nil, toolerr.New("Not enough money.").WithCode("not a code"), "not a code", codes.ToolFailed},
		{"BusinessRule, unregistered", nil, fmt.Errorf("svc: %w", domain.NewBusinessRule("NO_MONEY", "Not enough money.", nil)), "NO_MONEY",
			codes.BusinessRuleViolation},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var opts []filter.Option
			if tt.filter != nil {
				opts = append(opts, filter.WithFilters(tt.filter))
			}
			h := newHarness(t, opts...)
			for i := range 3 {
				r := h.p.Handle(context.Background(), call, tt.err)
				if r.Code != tt.fallback || r.Message != "Not enough money." || r.Retryable == nil {
					t.Fatalf("response = %+v, want %s with the message and retryable", r, tt.fallback)
				}
				if strings.Contains(clientBytes(t, r), tt.bad) {
					t.Fatalf("the unregistered code reached the client: %s", clientBytes(t, r))
				}
				recs := h.records(t)
				warns := 0
				for _, rec := range recs {
					if rec["level"] == "WARN" {
						warns++
						if rec["unregistered_code"] != tt.bad || rec["reason"] == "" {
							t.Errorf("warning = %v", rec)
						}
					}
				}
				if want := map[bool]int{true: 1, false: 0}[i == 0]; warns != want || len(recs) != 1+want {
					t.Fatalf("call %d: records %v, want the call's record and %d warning", i, recs, want)
				}
			}
		})
	}
}

// countingFilter and countingReporter are filter and reporter types that
// tests pass as nil pointers.
type countingFilter struct{ n int }

func (c *countingFilter) Catch(context.Context, filter.Call, error) (*filter.Response, error) {
	c.n++
	return nil, nil
}

type countingReporter struct{ n int }

func (c *countingReporter) Report(context.Context, filter.Incident) { c.n++ }

// TestHandleAllocs pins the allocations of the failure path, in the
// default configuration with a JSON logger: the rendering for the model
// costs one.
func TestHandleAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes what allocates")
	}
	p, err := filter.New(filter.WithLogger(slog.New(slog.NewJSONHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		err  error
		most float64
	}{
		{toolerr.New("b must not be zero."), 6},
		{errors.New("dial 10.0.0.5: connection refused"), 7},
	} {
		if n := testing.AllocsPerRun(200, func() { p.Handle(ctx, call, tc.err) }); n > tc.most {
			t.Errorf("Handle(%T) allocates %v times, want at most %v", tc.err, n, tc.most)
		}
	}
}
