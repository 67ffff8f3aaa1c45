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
	"reflect"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	crdb "github.com/cockroachdb/errors"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/toolerr"
)

const canary = "hunter2-CANARY-9d41"

// The bounds the package documentation states.
const (
	maxChain      = 256
	maxLogValue   = 8 << 10
	maxMessage    = 16 << 10
	maxDetails    = 16 << 10
	maxHints      = 8
	maxHint       = 1 << 10
	maxRetryAfter = 7 * 24 * time.Hour
	maxBlocks     = 16
)

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

// handle runs Handle and checks that the envelope of what it returns fits
// the schema.
func (h *harness) handle(t *testing.T, ctx context.Context, call filter.Call, err error, filters ...filter.Filter) *filter.Failure {
	t.Helper()
	return checked(t, h.p.Handle(ctx, call, err, filters...))
}

// input runs HandleInput and checks the envelope of what it returns.
func (h *harness) input(t *testing.T, ctx context.Context, call filter.Call, in filter.Input, filters ...filter.Filter) *filter.Failure {
	t.Helper()
	return checked(t, h.p.HandleInput(ctx, call, in, filters...))
}

// checked checks that the envelope of f, if any, fits the schema, and
// returns f.
func checked(t testing.TB, f *filter.Failure) *filter.Failure {
	t.Helper()
	if f != nil {
		filter.CheckEnvelope(t, f.Envelope)
	}
	return f
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

// clientBytes is everything of a failure a client can see: the envelope's
// JSON, the text blocks and the JSON-RPC code.
func clientBytes(t testing.TB, f *filter.Failure) string {
	t.Helper()
	b, err := json.Marshal(f.Envelope)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s\n%s\n%d", b, strings.Join(f.Texts, "\n"), f.JSONRPCCode)
}

// details decodes the details of an envelope; nil if there are none.
func details(t testing.TB, e filter.Envelope) map[string]any {
	t.Helper()
	if e.Details == nil {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(e.Details, &m); err != nil {
		t.Fatalf("details %s: %v", e.Details, err)
	}
	return m
}

// recovered panics with v and returns what Serve makes of it: a
// *filter.PanicError with the value and the stack.
func recovered(v any) (err error) {
	defer func() { err = &filter.PanicError{Value: recover(), Stack: debug.Stack()} }()
	panic(v)
}

// masked is the text of a masked error of the tool "lookup".
func masked(ref string) string { return fmt.Sprintf(`Internal error in tool "lookup" (ref: %s).`, ref) }

var call = filter.Call{Tool: "lookup", RequestID: "7", SessionID: "sess-1"}

// TestContract walks the rows of the behaviour table that need no SDK.
func TestContract(t *testing.T) {
	tests := []struct {
		name      string
		err       error
		code      codes.Code
		message   string // "{ref}" stands for the ref
		details   map[string]any
		retryable bool
		masked    bool
		level     string
		logHas    []string
	}{
		{"ToolError", toolerr.New("b must not be zero."), codes.ToolFailed, "b must not be zero.", nil, false, false, "INFO", nil},
		{"wrapped ToolError keeps message, its unclassified cause a server failure", fmt.Errorf("handler: %w", toolerr.New("Try a smaller page.").WithCause(errors.New(canary))),
			codes.ToolFailed, "Try a smaller page.", nil, false, false, "ERROR", []string{canary}},
		{"ToolError over a public cause", toolerr.New("Cannot ship.").WithCause(domain.NewNotFound("Order", "o1")),
			codes.NotFound, "Cannot ship.", nil, false, false, "INFO", nil},
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
			"ORDER_ALREADY_DELIVERED", "Cannot change status of a delivered order", map[string]any{"currentStatus": "delivered"}, false, false, "INFO", nil},
		{"Conflict hides its cause", &domain.Conflict{Resource: "User", Message: "Email taken.", Cause: errors.New(canary)}, codes.Conflict, "Email taken.",
			map[string]any{"resourceType": "User"}, false, false, "INFO", []string{canary}},
		{"RateLimited", domain.NewRateLimited(1500 * time.Millisecond), codes.RateLimited, "Too many requests. Retry after 2 seconds.",
			map[string]any{"retryAfterSeconds": 2.0}, true, false, "INFO", nil},
		{"plain error", fmt.Errorf("dial 10.0.0.5: password=%s refused", canary), codes.InternalError,
			masked("{ref}"), nil, false, true, "ERROR", []string{"password=" + canary}},
		{"cockroach error keeps its stack", crdb.Wrap(crdb.New("conn reset "+canary), "query"), codes.InternalError,
			masked("{ref}"), nil, false, true, "ERROR", []string{canary, "pipeline_test.go"}},
		{"cancelled", fmt.Errorf("query %s: %w", canary, context.Canceled), codes.Cancelled,
			"The request was cancelled before the tool finished.", nil, false, false, "INFO", nil},
		{"deadline", fmt.Errorf("query %s: %w", canary, context.DeadlineExceeded), codes.Timeout,
			"The tool did not finish in time, and may have done its work before it stopped (ref: {ref}).", nil, false, false, "ERROR", nil},
		{"domain error beats the context error around it", fmt.Errorf("%w: %w", domain.NewNotFound("Order", "x"), context.Canceled), codes.NotFound,
			"Order not found: x", nil, false, false, "INFO", nil},
		{"joined: the public part speaks", errors.Join(errors.New(canary), domain.NewNotFound("User", "u")), codes.NotFound,
			"User not found: u", nil, false, false, "INFO", []string{canary}},
		{"panic", recovered("boom " + canary), codes.InternalError,
			masked("{ref}"), nil, false, true, "ERROR", []string{canary, "goroutine"}},
		{"panic(nil)", recovered(nil), codes.InternalError,
			masked("{ref}"), nil, false, true, "ERROR", []string{"panic called with nil argument", "goroutine"}},
		{"panic with a ToolError is still masked", recovered(toolerr.New(canary)), codes.InternalError,
			masked("{ref}"), nil, false, true, "ERROR", []string{canary}},
		{"public error with empty message is masked", toolerr.New(""), codes.InternalError,
			masked("{ref}"), nil, false, true, "ERROR", nil},
	}
	reg, err := codes.NewRegistry(codes.Info{Code: "ORDER_ALREADY_DELIVERED", Category: codes.Business, Description: "The order was delivered."})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, filter.WithRegistry(reg))
			f := h.handle(t, endedAs(context.Background(), tt.err), call, tt.err)
			recs := h.records(t)
			if len(recs) != 1 {
				t.Fatalf("%d log records, want exactly 1: %v", len(recs), recs)
			}
			rec, env := recs[0], f.Envelope
			if env.Code != tt.code {
				t.Errorf("code = %s, want %s", env.Code, tt.code)
			}
			want := strings.ReplaceAll(tt.message, "{ref}", env.Ref)
			if env.Message != want || len(f.Texts) != 2 || f.Texts[0] != want {
				t.Errorf("message = %q, texts %q, want %q first", env.Message, f.Texts, want)
			}
			if tt.masked {
				if len(env.Ref) != 16 || rec["ref"] != env.Ref {
					t.Errorf("ref %q in the envelope, %v in the log; want the same 16 hex digits", env.Ref, rec["ref"])
				}
				if env.Details != nil || env.Hints != nil {
					t.Errorf("a masked error has details %s or hints %q", env.Details, env.Hints)
				}
			}
			got := details(t, env)
			for k, v := range tt.details {
				if fmt.Sprint(got[k]) != fmt.Sprint(v) {
					t.Errorf("details[%s] = %v, want %v", k, got[k], v)
				}
			}
			if env.Retryable != tt.retryable {
				t.Errorf("retryable = %v, want %v", env.Retryable, tt.retryable)
			}
			if env.RequestID != "7" || !env.Error || env.Version != 1 || !strings.HasSuffix(env.Timestamp, "Z") {
				t.Errorf("envelope = %+v, want error, version 1, requestId 7 and a UTC timestamp", env)
			}
			if f.Call != call || f.Err != tt.err || f.JSONRPCCode != 0 || f.ErrorText != rec["error"] {
				t.Errorf("failure call %+v, err %v, JSON-RPC code %d, error text %q (record %q)", f.Call, f.Err, f.JSONRPCCode, f.ErrorText, rec["error"])
			}
			if strings.Contains(clientBytes(t, f), canary) {
				t.Errorf("canary reached the client: %s", clientBytes(t, f))
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
	h.handle(t, context.Background(), call, fmt.Errorf("check: %w", domain.NewValidation("status", "lost", "Must be one of: a, b")))
	rec := h.records(t)[0]
	fields, _ := rec["fields"].(map[string]any)
	status, _ := fields["status"].(map[string]any)
	if status["value"] != "lost" || status["constraint"] != "Must be one of: a, b" {
		t.Fatalf("fields = %v, want the value and the constraint", rec["fields"])
	}
	// An Authorization has no log view of its own: its Error text is the
	// log's, permission and subject included.
	h.handle(t, context.Background(), call, fmt.Errorf("check: %w", domain.NewAuthorization("orders:write", "usr_7")))
	rec = h.records(t)[0]
	if e, _ := rec["error"].(string); !strings.Contains(e, "orders:write") || !strings.Contains(e, "usr_7") {
		t.Fatalf("record %v, want the permission and subject in the error", rec)
	}
}

// TestMaskedErrorHasNoHint checks that a hint attached to a masked error
// with cockroachdb/errors reaches nothing the client reads: only a public
// error's own hint and a filter's hints are sent.
func TestMaskedErrorHasNoHint(t *testing.T) {
	const hint = "The database is busy; retry in a minute."
	h := newHarness(t)
	err := crdb.WithHint(fmt.Errorf("pool exhausted: %s", canary), hint)
	f := h.handle(t, context.Background(), call, err)
	env := f.Envelope
	if env.Code != codes.InternalError || env.Message != masked(env.Ref) {
		t.Fatalf("envelope = %+v, want a masked internal error", env)
	}
	if want := []string{masked(env.Ref), "Code: INTERNAL_ERROR\nRetry: no."}; !reflect.DeepEqual(f.Texts, want) {
		t.Fatalf("texts = %q, want %q", f.Texts, want)
	}
	if env.Hints != nil {
		t.Errorf("hints = %q, want none", env.Hints)
	}
	for _, s := range []string{canary, "database is busy", "Hint"} {
		if strings.Contains(clientBytes(t, f), s) {
			t.Errorf("%q reached the client: %s", s, clientBytes(t, f))
		}
	}
}

func TestToolErrorHint(t *testing.T) {
	h := newHarness(t)
	f := h.handle(t, context.Background(), call, toolerr.New("b must not be zero.").WithHint("Pass a non-zero b."))
	if want := []string{"b must not be zero.", "Code: TOOL_ERROR\nRetry: no, not with the same arguments.\nHint: Pass a non-zero b."}; !reflect.DeepEqual(f.Texts, want) {
		t.Fatalf("texts = %q, want %q", f.Texts, want)
	}
	if !reflect.DeepEqual(f.Envelope.Hints, []string{"Pass a non-zero b."}) {
		t.Fatalf("hints = %q", f.Envelope.Hints)
	}
	if rec := h.records(t)[0]; fmt.Sprint(rec["hints"]) != "[Pass a non-zero b.]" {
		t.Errorf("record hints = %v, want the hint sent", rec["hints"])
	}
}

func TestRegistryDecidesCategoryAndRetry(t *testing.T) {
	reg, err := codes.NewRegistry(codes.Info{Code: "PAYMENT_GATEWAY_DOWN", Category: codes.Server, Description: "The gateway is down.", Retryable: true})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, filter.WithRegistry(reg))
	f := h.handle(t, context.Background(), call, toolerr.New("Payments are down; try later.").WithCode("PAYMENT_GATEWAY_DOWN"))
	rec, env := h.records(t)[0], f.Envelope
	if !env.Retryable || env.Category != codes.Server || rec["level"] != "ERROR" || env.Ref == "" || rec["ref"] != env.Ref {
		t.Fatalf("envelope %+v, record %v: want retryable, a server error logged at ERROR with a ref", env, rec)
	}
	if env.Message != "Payments are down; try later." {
		t.Fatalf("message = %q: a ToolError's message must be kept whatever its category", env.Message)
	}
}

func TestRedaction(t *testing.T) {
	h := newHarness(t, filter.WithRedaction(true))
	h.handle(t, context.Background(), call, crdb.Wrapf(crdb.New("base"), "login for %s", canary))
	h.handle(t, context.Background(), call, domain.NewValidation("ssn", canary, "Must be 9 digits"))
	h.handle(t, context.Background(), call, recovered(canary))
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

// TestRefAndTimestamp checks the ref of a custom generator, and that the
// timestamp is the time of the failure, in RFC 3339, UTC.
func TestRefAndTimestamp(t *testing.T) {
	h := newHarness(t, filter.WithRefGenerator(func() string { return "ref-1" }))
	before := time.Now()
	f := h.handle(t, context.Background(), call, errors.New("x"))
	after := time.Now()
	if f.Envelope.Ref != "ref-1" || f.Envelope.Message != masked("ref-1") {
		t.Fatalf("ref %q, message %q", f.Envelope.Ref, f.Envelope.Message)
	}
	at, err := time.Parse(time.RFC3339Nano, f.Envelope.Timestamp)
	if err != nil || !strings.HasSuffix(f.Envelope.Timestamp, "Z") {
		t.Fatalf("timestamp %q is not RFC 3339 in UTC: %v", f.Envelope.Timestamp, err)
	}
	if at.Before(before.Add(-time.Second)) || at.After(after.Add(time.Second)) {
		t.Fatalf("timestamp %v, not between %v and %v", at, before, after)
	}
}

func TestFailingFilterIsMasked(t *testing.T) {
	tests := map[string]filter.Filter{
		"panics": filter.Catch(func(context.Context, filter.Call, error) (*filter.Response, error) {
			panic("filter bug " + canary)
		}),
		"empty message": filter.Catch(func(context.Context, filter.Call, error) (*filter.Response, error) {
			return &filter.Response{Code: codes.NotFound}, nil
		}),
	}
	for name, fl := range tests {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, filter.WithFilters(fl))
			f := h.handle(t, context.Background(), call, domain.NewNotFound("Order", "1"))
			recs := h.records(t)
			if f.Envelope.Code != codes.InternalError || f.Envelope.Message != masked(f.Envelope.Ref) {
				t.Fatalf("envelope = %+v, want masked internal error", f.Envelope)
			}
			if len(recs) != 1 || recs[0]["ref"] != f.Envelope.Ref || recs[0]["filter_error"] == nil {
				t.Fatalf("records = %v, want one with the ref and the filter's failure", recs)
			}
			if strings.Contains(clientBytes(t, f), canary) {
				t.Fatal("canary reached the client")
			}
			if name == "panics" {
				// The stack of the filter's panic reaches the log.
				if s, _ := recs[0]["stack"].(string); !strings.Contains(s, "TestFailingFilterIsMasked") {
					t.Errorf("stack = %q, want the filter's", s)
				}
			}
		})
	}
}

func TestFilterResponseIsTheFiltersOwn(t *testing.T) {
	shared := &filter.Response{Code: codes.Conflict, Message: "A record with this value already exists.",
		Hints: append(make([]string, 0, 4), "Use another email.")}
	before := *shared
	fl := filter.Catch(func(context.Context, filter.Call, error) (*filter.Response, error) { return shared, nil })
	h := newHarness(t, filter.WithFilters(fl))
	f := h.handle(t, context.Background(), call, crdb.WithHint(errors.New("pq: unique violation "+canary), "Check the email."))
	if !reflect.DeepEqual(*shared, before) || shared.Hints[:2][1] != "" {
		t.Fatal("the pipeline changed the filter's own Response value")
	}
	// Only the filter's hints are sent, not one of the error it handled.
	if !reflect.DeepEqual(f.Envelope.Hints, []string{"Use another email."}) {
		t.Fatalf("hints = %q", f.Envelope.Hints)
	}
	env := f.Envelope
	if env.Code != codes.Conflict || env.Category != codes.Client || env.RequestID != "7" || env.Timestamp == "" || env.Retryable || env.Ref != "" {
		t.Fatalf("envelope = %+v", env)
	}
	rec := h.records(t)[0]
	if rec["level"] != "INFO" || !strings.Contains(fmt.Sprint(rec["error"]), canary) {
		t.Fatalf("record = %v, want the original error at INFO", rec)
	}
}

// TestFilterHintsAreBounded checks the hints of a filter's Response: empty
// and repeated ones dropped, each bounded, at most eight.
func TestFilterHintsAreBounded(t *testing.T) {
	long := strings.Repeat("é", maxHint)
	hints := []string{"", "a", "a", long}
	for i := range 12 {
		hints = append(hints, fmt.Sprint("h", i))
	}
	fl := filter.Catch(func(context.Context, filter.Call, error) (*filter.Response, error) {
		return &filter.Response{Code: codes.Conflict, Message: "Taken.", Hints: hints}, nil
	})
	h := newHarness(t, filter.WithFilters(fl))
	got := h.handle(t, context.Background(), call, errors.New("x")).Envelope.Hints
	if len(got) != maxHints || got[0] != "a" || got[2] != "h0" || got[maxHints-1] != "h5" {
		t.Fatalf("hints = %q", got)
	}
	if len(got[1]) > maxHint || !strings.HasPrefix(long, strings.TrimSuffix(got[1], "…")) {
		t.Errorf("a long hint of %d bytes, want it cut to at most %d", len(got[1]), maxHint)
	}
}

func TestZeroCodeBecomesInternal(t *testing.T) {
	fl := filter.Catch(func(context.Context, filter.Call, error) (*filter.Response, error) {
		return &filter.Response{Message: "Something failed."}, nil
	})
	h := newHarness(t, filter.WithFilters(fl))
	f := h.handle(t, context.Background(), call, errors.New("x"))
	if f.Envelope.Code != codes.InternalError || f.Envelope.Ref == "" || f.Envelope.Category != codes.Server {
		t.Fatalf("envelope = %+v, want INTERNAL_ERROR with a ref", f.Envelope)
	}
}

func TestUnencodableDetailsAreDropped(t *testing.T) {
	h := newHarness(t)
	f := h.handle(t, context.Background(), call, toolerr.New("x").WithDetails(map[string]any{"ch": make(chan int)}))
	if f.Envelope.Details != nil {
		t.Fatalf("details = %s, want dropped", f.Envelope.Details)
	}
	if rec := h.records(t)[0]; rec["details_error"] == nil {
		t.Errorf("record %v lacks details_error", rec)
	}
	for _, empty := range []map[string]any{{}, nil} {
		if f := h.handle(t, context.Background(), call, toolerr.New("x").WithDetails(empty)); f.Envelope.Details != nil {
			t.Errorf("details %v sent as %s, want none", empty, f.Envelope.Details)
		}
	}
}

func TestFilterOrderAndTransform(t *testing.T) {
	var trail []string
	mark := func(name string, next error) filter.Filter {
		return filter.Catch(func(_ context.Context, _ filter.Call, err error) (*filter.Response, error) {
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
	f := checked(t, p.Handle(context.Background(), call, errors.New("orig"), mark("local", nil), mark("tool", errors.New("transformed"))))
	want := "[local:orig tool:orig global:transformed]"
	if fmt.Sprint(trail) != want {
		t.Fatalf("trail = %v, want %s", trail, want)
	}
	if f.Err == nil || f.Err.Error() != "orig" {
		t.Errorf("Failure.Err = %v, want the error as the handler returned it", f.Err)
	}
	trail = nil
	checked(t, p.Handle(context.Background(), filter.Call{Tool: "unbound"}, errors.New("orig")))
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
	f := h.handle(t, context.Background(), call, fmt.Errorf("a: %w", fmt.Errorf("b: %w", domain.NewNotFound("Order", "1"))))
	if f.Envelope.Message != "No Order with that id." {
		t.Fatalf("message = %q", f.Envelope.Message)
	}
	f = h.handle(t, context.Background(), call, errors.New("other"))
	if f.Envelope.Code != codes.InternalError || hits.Load() != 1 {
		t.Fatalf("a typed filter handled an error of another type: %+v", f.Envelope)
	}
}

func TestDefinitionErrors(t *testing.T) {
	tests := []struct {
		name string
		opt  filter.Option
		says string
	}{
		{"nil global filter", filter.WithFilters(filter.Catch(func(context.Context, filter.Call, error) (*filter.Response, error) { return nil, nil }), nil),
			"filter 1 given to WithFilters is nil"},
		{"nil filter function", filter.WithFilters(filter.Catch[error](nil)), "filter 0 given to WithFilters: filter.Catch needs a function"},
		{"nil pointer filter", filter.WithFilters((*countingFilter)(nil)), "filter 0 given to WithFilters is nil"},
		{"nil typed filter", filter.WithFilters(filter.Catch[*domain.NotFound](nil)), "filter.Catch needs a function"},
		{"sentinel filter without a sentinel", filter.WithFilters(filter.Is(nil, filter.Response{Message: "No such order."})), "filter.Is needs the sentinel error"},
		{"nil observer", filter.WithObserver(nil), "WithObserver needs an observer"},
		{"nil renderer", filter.WithRenderer(nil), "WithRenderer needs a function"},
		{"nil ref generator", filter.WithRefGenerator(nil), "WithRefGenerator needs a function"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := filter.New(tt.opt)
			var de *codes.DefinitionError
			if !errors.As(err, &de) || de.Mistake != codes.NilValue || !strings.Contains(de.Reason, tt.says) {
				t.Fatalf("New = %v, want a NIL_VALUE definition error saying %q", err, tt.says)
			}
			if p != nil {
				t.Fatal("New returned a pipeline with its error")
			}
		})
	}
	if p, err := filter.New(filter.WithLogger(nil), filter.WithRegistry(nil)); err != nil || p == nil {
		t.Fatalf("New with a nil logger and registry = %v, %v; want the defaults", p, err)
	}
	// A nil option, such as one left unset in a list, and a sentinel
	// filter without words: what was meant is not known.
	for _, tc := range []struct {
		opts []filter.Option
		want codes.Mistake
		says string
	}{
		{[]filter.Option{filter.WithRedaction(true), nil}, codes.NilValue, "option 1 given to filter.New is nil"},
		{[]filter.Option{filter.WithFilters(filter.Is(errors.New("no rows"), filter.Response{Code: codes.NotFound}))}, codes.InvalidOption,
			"filter.Is needs a Response with the message"},
	} {
		p, err := filter.New(tc.opts...)
		var de *codes.DefinitionError
		if !errors.As(err, &de) || de.Mistake != tc.want || !strings.Contains(de.Reason, tc.says) || p != nil {
			t.Errorf("New = %v, %v; want a %s definition error saying %q", p, err, tc.want, tc.says)
		}
	}
}

// TestLogHandlerNil checks that LogHandler refuses a nil handler at
// start-up, as regexp.MustCompile does a bad pattern, rather than return a
// handler that panics at the first record.
func TestLogHandlerNil(t *testing.T) {
	defer func() {
		var de *codes.DefinitionError
		if err, _ := recover().(error); !errors.As(err, &de) || de.Mistake != codes.NilValue || !strings.Contains(de.Reason, "filter.LogHandler needs") {
			t.Errorf("LogHandler(nil) panicked with %v, want a NIL_VALUE definition error", err)
		}
	}()
	filter.LogHandler(nil)
	t.Error("LogHandler(nil) returned")
}

// TestAbortHandlerIsMasked checks that http.ErrAbortHandler, which a tool
// handler never runs where net/http could catch it, is an internal error.
func TestAbortHandlerIsMasked(t *testing.T) {
	h := newHarness(t)
	f := h.handle(t, context.Background(), call, recovered(http.ErrAbortHandler))
	if f.Envelope.Code != codes.InternalError || f.Envelope.Ref == "" {
		t.Fatalf("envelope = %+v, want a masked internal error", f.Envelope)
	}
	if recs := h.records(t); len(recs) != 1 || recs[0]["level"] != "ERROR" || recs[0]["ref"] != f.Envelope.Ref {
		t.Fatalf("records %v, want one ERROR record with the ref", recs)
	}
}

func TestNilErrorAndDefaultLogger(t *testing.T) {
	p, err := filter.New()
	if err != nil {
		t.Fatal(err)
	}
	if f := p.Handle(context.Background(), call, nil); f != nil {
		t.Fatalf("Handle(nil) = %+v, want nil", f)
	}
	var buf bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	defer slog.SetDefault(old)
	var nilCtx context.Context // what a careless caller passes
	f := checked(t, p.Handle(nilCtx, call, errors.New("x")))
	if !strings.Contains(buf.String(), "ref="+f.Envelope.Ref) || strings.Count(buf.String(), "\n") != 1 {
		t.Fatalf("default logger got %q, want one record with the ref", buf.String())
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
	done := make(chan *filter.Failure)
	for i := range 8 {
		go func() { done <- h.p.Handle(context.Background(), call, fmt.Errorf("e%d", i)) }()
	}
	refs := map[string]bool{}
	for range 8 {
		f := checked(t, <-done)
		refs[f.Envelope.Ref] = true
	}
	if len(refs) != 8 {
		t.Fatalf("%d distinct refs for 8 errors", len(refs))
	}
	if recs := h.records(t); len(recs) != 8 {
		t.Fatalf("%d records for 8 errors", len(recs))
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
		category codes.Category
	}{
		{"filter, malformed", filter.Catch(func(context.Context, filter.Call, error) (*filter.Response, error) {
			return &filter.Response{Code: "insufficient funds", Message: "Not enough money."}, nil
		}), errors.New("x"), "insufficient funds", codes.ToolFailed, codes.Client},
		{"filter, unregistered", filter.Catch(func(context.Context, filter.Call, error) (*filter.Response, error) {
			return &filter.Response{Code: "NO_MONEY", Message: "Not enough money."}, nil
		}), errors.New("x"), "NO_MONEY", codes.ToolFailed, codes.Client},
		{"ToolError, malformed", nil, toolerr.New("Not enough money.").WithCode("not a code"), "not a code", codes.ToolFailed, codes.Client},
		{"BusinessRule, unregistered", nil, fmt.Errorf("svc: %w", domain.NewBusinessRule("NO_MONEY", "Not enough money.", nil)), "NO_MONEY",
			codes.BusinessRuleViolation, codes.Business},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var opts []filter.Option
			if tt.filter != nil {
				opts = append(opts, filter.WithFilters(tt.filter))
			}
			h := newHarness(t, opts...)
			for i := range 3 {
				f := h.handle(t, context.Background(), call, tt.err)
				if f.Envelope.Code != tt.fallback || f.Envelope.Category != tt.category || f.Envelope.Message != "Not enough money." {
					t.Fatalf("envelope = %+v, want %s with the message", f.Envelope, tt.fallback)
				}
				if strings.Contains(clientBytes(t, f), tt.bad) {
					t.Fatalf("the unregistered code reached the client: %s", clientBytes(t, f))
				}
				recs := h.records(t)
				warns := 0
				for _, rec := range recs {
					if rec["level"] == "WARN" {
						warns++
						if rec["unregistered_code"] != tt.bad || rec["reason"] == "" || rec["sent_as"] != string(tt.fallback) {
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

// countingFilter is a filter type that tests pass as a nil pointer.
type countingFilter struct{ n int }

func (c *countingFilter) Catch(context.Context, filter.Call, error) (*filter.Response, error) {
	c.n++
	return nil, nil
}

// TestHandleAllocs pins the allocations of the failure path, in the
// default configuration with a JSON logger: the handling, the Failure
// (which holds its blocks and envelope), the timestamp, the block the
// model reads and the log record's attributes past slog's inline five; an
// internal error adds its ref and its masked text.
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
		{toolerr.New("b must not be zero."), 5},
		{errors.New("dial 10.0.0.5: connection refused"), 7},
	} {
		if n := testing.AllocsPerRun(200, func() { p.Handle(ctx, call, tc.err) }); n > tc.most {
			t.Errorf("Handle(%T) allocates %v times, want at most %v", tc.err, n, tc.most)
		}
	}
}

// detailed is an error with a detailed form, as the errors of
// cockroachdb/errors and pkg/errors have, where their stacks are.
type detailed struct{ msg string }

func (e *detailed) Error() string { return e.msg }
func (e *detailed) Format(s fmt.State, verb rune) {
	if verb == 'v' && s.Flag('+') {
		fmt.Fprintf(s, "%s\n  at the detailed form of %s", e.msg, canary)
		return
	}
	fmt.Fprint(s, e.msg)
}

// formatPanics is a fmt.Formatter whose Format panics.
type formatPanics struct{}

func (formatPanics) Error() string          { return "format panics" }
func (formatPanics) Format(fmt.State, rune) { panic("Format of " + canary) }

// TestStackInTheLog checks where the stack of a record comes from: a
// panic's stack, or the detailed form (%+v) of the first fmt.Formatter of
// the chain; nothing else has one.
func TestStackInTheLog(t *testing.T) {
	panicked := recovered("boom")
	var pe *filter.PanicError
	errors.As(panicked, &pe)
	tests := []struct {
		name string
		err  error
		want string // a part of the stack; "" for no stack
	}{
		{"plain error", errors.New("x"), ""},
		{"wrapped plain errors", fmt.Errorf("a: %w", errors.Join(errors.New("x"), errors.New("y"))), ""},
		{"a public error", toolerr.New("No.").WithCause(errors.New("x")), ""},
		{"a Formatter", &detailed{"x"}, "at the detailed form of"},
		// The detailed form of the first Formatter, however deep plain
		// layers put it.
		{"a Formatter under fmt.Errorf", fmt.Errorf("a: %w", &detailed{"x"}), "at the detailed form of"},
		{"a Formatter in a join", errors.Join(errors.New("y"), &detailed{"x"}), "at the detailed form of"},
		{"a Formatter under a ToolError", toolerr.New("No.").WithCause(&detailed{"x"}), "at the detailed form of"},
		{"cockroachdb/errors under fmt.Errorf", fmt.Errorf("query: %w", crdb.New("x")), "pipeline_test.go"},
		{"cockroachdb/errors", crdb.New("x"), "pipeline_test.go"},
		{"a panic", panicked, string(pe.Stack)},
		{"a panic, wrapped", fmt.Errorf("handler: %w", panicked), string(pe.Stack)},
		{"a Formatter that panics", fmt.Errorf("a: %w", formatPanics{}), "PANIC=Format method"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.handle(t, context.Background(), call, tt.err)
			recs := h.records(t)
			if len(recs) != 1 {
				t.Fatalf("records %v, want one", recs)
			}
			stack, has := recs[0]["stack"].(string)
			switch {
			case tt.want == "" && has:
				t.Errorf("stack %q, want none", stack)
			case tt.want != "" && !strings.Contains(stack, tt.want):
				t.Errorf("stack %q, want it to hold %q", stack, tt.want)
			}
		})
	}
	// Under redaction, the detailed form is redacted too.
	h := newHarness(t, filter.WithRedaction(true))
	for _, err := range []error{&detailed{"x"}, fmt.Errorf("a: %w", formatPanics{})} {
		h.handle(t, context.Background(), call, err)
		if recs := h.records(t); len(recs) != 1 || recs[0]["stack"] == nil || strings.Contains(fmt.Sprint(recs[0]), canary) {
			t.Errorf("redacted records %v, want one with a stack without the canary", recs)
		}
	}
}
