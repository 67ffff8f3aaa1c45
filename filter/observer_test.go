package filter_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/toolerr"
)

// observed records what an observer is told.
type observed struct {
	mu       sync.Mutex
	failures []filter.Failure
}

func (o *observed) observe(_ context.Context, f filter.Failure) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.failures = append(o.failures, f)
}

func TestObserverSeesEveryFailureOnce(t *testing.T) {
	var first, second observed
	h := newHarness(t, filter.WithObserver(first.observe), filter.WithObserver(second.observe))
	ctx := context.Background()
	for _, err := range []error{
		toolerr.New("b must not be zero."),
		domain.NewNotFound("Order", "1"),
		fmt.Errorf("dial: password=%s", canary),
	} {
		r := h.handle(t, ctx, call, err)
		if len(first.failures) == 0 {
			t.Fatal("the observer was not told")
		}
		f := first.failures[len(first.failures)-1]
		if !reflect.DeepEqual(f, *r) {
			t.Errorf("observer got %+v for the failure %+v", f, *r)
		}
		if f.Err != err {
			t.Errorf("observer got the error %v, want %v", f.Err, err)
		}
	}
	if len(first.failures) != 3 || len(second.failures) != 3 {
		t.Errorf("observers told %d and %d times, want 3 each", len(first.failures), len(second.failures))
	}
	if recs := h.records(t); len(recs) != 3 {
		t.Errorf("%d records, want 3", len(recs))
	}
}

// TestObserverAsReporter is what an error tracker does with an Observer:
// it looks at server failures, and reads the error and the ref.
func TestObserverAsReporter(t *testing.T) {
	type incident struct {
		ref, tool string
		err       error
	}
	var got []incident
	report := func(_ context.Context, f filter.Failure) {
		if f.Envelope.Category == codes.Server {
			got = append(got, incident{f.Envelope.Ref, f.Call.Tool, f.Err})
		}
	}
	h := newHarness(t, filter.WithObserver(report))
	disk := errors.New("disk full")
	r := h.handle(t, context.Background(), call, disk)
	h.handle(t, context.Background(), call, domain.NewNotFound("Order", "1"))
	h.handle(t, context.Background(), call, toolerr.New("Refused.").WithCode(codes.Forbidden))
	if len(got) != 1 || got[0].ref != r.Envelope.Ref || got[0].ref == "" || got[0].err != disk || got[0].tool != call.Tool {
		t.Fatalf("incidents = %+v, want one for the internal error with its ref", got)
	}
	// A panic reaches it as the *filter.PanicError the adapter handed on.
	got = nil
	panicked := recovered("nil map " + canary)
	h.handle(t, context.Background(), call, panicked)
	var pe *filter.PanicError
	if len(got) != 1 || !errors.As(got[0].err, &pe) || pe.Value != "nil map "+canary || len(pe.Stack) == 0 {
		t.Fatalf("incidents = %+v, want the panic with its value and stack", got)
	}
}

// TestObserverFindsAFilterPanic checks that an observer finds the panic of
// a filter with errors.As, as the documentation of PanicError says.
func TestObserverFindsAFilterPanic(t *testing.T) {
	var o observed
	buggy := filter.Catch(func(context.Context, filter.Call, error) (*filter.Response, error) { panic("index out of range") })
	h := newHarness(t, filter.WithFilters(buggy), filter.WithObserver(o.observe))
	h.handle(t, context.Background(), call, errors.New("x"))
	if len(o.failures) != 1 {
		t.Fatalf("observer told %d times", len(o.failures))
	}
	var pe *filter.PanicError
	if f := o.failures[0]; !errors.As(f.Err, &pe) || pe.Value != "index out of range" {
		t.Errorf("the observer's Failure.Err is %v: errors.As finds no *filter.PanicError of the filter", f.Err)
	}
}

// TestObserverSeesWhatTheLogSees checks that an observer learns the error
// text only as the log record holds it: redacted under WithRedaction.
func TestObserverSeesWhatTheLogSees(t *testing.T) {
	var o observed
	h := newHarness(t, filter.WithObserver(o.observe), filter.WithRedaction(true))
	h.handle(t, context.Background(), call, fmt.Errorf("dial: password=%s", canary))
	rec := h.records(t)[0]
	f := o.failures[0]
	if strings.Contains(f.ErrorText, canary) || f.ErrorText != rec["error"] {
		t.Errorf("ErrorText %q, record error %q: want the redacted text of the record", f.ErrorText, rec["error"])
	}
}

func TestObserverOfRPCFailures(t *testing.T) {
	var o observed
	h := newHarness(t, filter.WithObserver(o.observe))
	f := h.handle(t, context.Background(), filter.Call{Method: "resources/read", Resource: "file:///x", RequestID: "9"}, errors.New("boom"))
	if len(o.failures) != 1 || o.failures[0].JSONRPCCode != f.JSONRPCCode || f.JSONRPCCode != -32603 {
		t.Errorf("observed %+v for a JSON-RPC error %d", o.failures, f.JSONRPCCode)
	}
}

// TestHostileObservers checks observers that fail: the answer was final
// before they ran, so it stays as it is; the one record notes a panic.
func TestHostileObservers(t *testing.T) {
	for name, o := range map[string]func(context.Context, filter.Failure){
		"panics":                  func(context.Context, filter.Failure) { panic(canary) },
		"panics with a nil error": func(context.Context, filter.Failure) { panic((*panickyErr)(nil)) },
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, filter.WithObserver(o))
			for _, tc := range []struct {
				err  error
				code codes.Code
			}{
				{errors.New("boom"), codes.InternalError},
				{toolerr.New("The billing service is down.").WithCode(codes.ExternalServiceError).WithDetails(map[string]any{"service": "billing"}),
					codes.ExternalServiceError},
				{domain.NewNotFound("Order", "1"), codes.NotFound},
			} {
				f := h.handle(t, context.Background(), call, tc.err)
				if f == nil || f.Envelope.Code != tc.code {
					t.Fatalf("envelope %+v, want %s: an observer cannot change the answer", f, tc.code)
				}
				recs := h.records(t)
				if len(recs) != 1 || recs[0]["observer_error"] == nil || recs[0]["ref"] != nilIfEmpty(f.Envelope.Ref) {
					t.Fatalf("records %v, want one with the ref and observer_error", recs)
				}
				if strings.Contains(clientBytes(t, f), canary) {
					t.Error("what the observer did reached the client")
				}
			}
		})
	}
}

// panickyErr is an error whose Error panics, even on a nil receiver.
type panickyErr struct{}

func (*panickyErr) Error() string { panic("Error() of " + canary) }

// nilIfEmpty is what a decoded record holds for an attribute that is s:
// nothing when s is empty.
func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// viewsError is a server failure with everything an extension point could
// write to: a text block, details, a hint, a ref, retry advice that says no.
var viewsError = toolerr.New("The billing service refused the charge.").WithCode(codes.ExternalServiceError).WithRetryable(false).
	WithDetails(map[string]any{"service": "billing"}).WithHint("Ask for another card.")

// sameFailure reports how got differs from want, the timestamps aside.
func sameFailure(t *testing.T, got, want *filter.Failure) {
	t.Helper()
	g, w := *got, *want
	g.Envelope.Timestamp, w.Envelope.Timestamp = "", ""
	if !reflect.DeepEqual(g.Call, w.Call) || !reflect.DeepEqual(g.Texts, w.Texts) || !reflect.DeepEqual(g.Envelope, w.Envelope) ||
		g.JSONRPCCode != w.JSONRPCCode || g.Err != w.Err || g.ErrorText != w.ErrorText {
		t.Errorf("failure\n got %+v\nwant %+v", g, w)
	}
}

// TestObserverGetsAView checks that an Observer receives a value: writing
// to everything it was given changes nothing the pipeline returns or logs,
// and nothing the next observer sees.
func TestObserverGetsAView(t *testing.T) {
	fixed := func() string { return "ref-1" }
	vandal := func(_ context.Context, f filter.Failure) {
		f.Texts[0] = canary
		f.Texts[1] = canary
		f.Envelope.Hints[0] = canary
		for i := range f.Envelope.Details {
			f.Envelope.Details[i] = 'X'
		}
		f.Envelope.Retryable = true
		f.Envelope.Message, f.Envelope.Code, f.Envelope.Ref = canary, "HACKED", "forged"
		f.Call.Tool = canary
	}
	var after observed
	plain := newHarness(t, filter.WithRefGenerator(fixed))
	h := newHarness(t, filter.WithRefGenerator(fixed), filter.WithObserver(vandal), filter.WithObserver(after.observe))
	want := plain.handle(t, context.Background(), call, viewsError)
	got := h.handle(t, context.Background(), call, viewsError)
	sameFailure(t, got, want)
	if got.Envelope.Retryable || !strings.Contains(got.Texts[1], "\nRetry: no.\n") {
		t.Errorf("envelope retryable %v, text %q: want false, and the text saying \"Retry: no.\"", got.Envelope.Retryable, got.Texts[1])
	}
	if string(got.Envelope.Details) != `{"service":"billing"}` || !reflect.DeepEqual(got.Envelope.Hints, []string{"Ask for another card."}) {
		t.Errorf("details %s, hints %q", got.Envelope.Details, got.Envelope.Hints)
	}
	if len(after.failures) != 1 {
		t.Fatalf("the second observer was told %d times", len(after.failures))
	}
	sameFailure(t, &after.failures[0], want)
	recs, plainRecs := h.records(t), plain.records(t)
	if len(recs) != 1 || len(plainRecs) != 1 {
		t.Fatalf("records %v, want one", recs)
	}
	delete(recs[0], "time")
	delete(plainRecs[0], "time")
	if !reflect.DeepEqual(recs[0], plainRecs[0]) {
		t.Errorf("record %v\nwithout the observer %v", recs[0], plainRecs[0])
	}
	if strings.Contains(clientBytes(t, got), canary) {
		t.Error("what the observer wrote reached the client")
	}
}

// TestRendererGetsAView checks that a Renderer receives a value: writing to
// its Envelope changes nothing sent or logged but the blocks it returns.
func TestRendererGetsAView(t *testing.T) {
	fixed := func() string { return "ref-1" }
	vandal := func(e filter.Envelope) []string {
		out := filter.RenderForModel(e)
		e.Hints[0] = canary
		for i := range e.Details {
			e.Details[i] = 'X'
		}
		e.Retryable = true
		e.Message, e.Code, e.Ref, e.RequestID = canary, "HACKED", "forged", "forged"
		return out
	}
	plain := newHarness(t, filter.WithRefGenerator(fixed))
	h := newHarness(t, filter.WithRefGenerator(fixed), filter.WithRenderer(vandal))
	want := plain.handle(t, context.Background(), call, viewsError)
	got := h.handle(t, context.Background(), call, viewsError)
	sameFailure(t, got, want)
	if got.Envelope.Retryable || !strings.Contains(got.Texts[1], "\nRetry: no.\n") {
		t.Errorf("envelope retryable %v, text %q: want false, and the text saying \"Retry: no.\"", got.Envelope.Retryable, got.Texts[1])
	}
	recs, plainRecs := h.records(t), plain.records(t)
	delete(recs[0], "time")
	delete(plainRecs[0], "time")
	if !reflect.DeepEqual(recs, plainRecs) {
		t.Errorf("records %v\nwithout the renderer %v", recs, plainRecs)
	}
}

// TestRecordKeepsTheErrorValue checks that a log handler receives the
// error as an error: its text is what the record always held, and, without
// redaction only, errors.As finds the error itself.
func TestRecordKeepsTheErrorValue(t *testing.T) {
	for _, redact := range []bool{false, true} {
		var got slog.Value
		capture := slog.New(handlerFunc(func(_ context.Context, r slog.Record) error {
			r.Attrs(func(a slog.Attr) bool {
				if a.Key == "error" {
					got = a.Value
				}
				return true
			})
			return nil
		}))
		p, err := filter.New(filter.WithLogger(capture), filter.WithRedaction(redact))
		if err != nil {
			t.Fatal(err)
		}
		checked(t, p.Handle(context.Background(), call, fmt.Errorf("load: %w", domain.NewNotFound("Order", canary))))
		e, ok := got.Any().(error)
		if !ok {
			t.Fatalf("redact=%v: the error attribute is %T, want an error", redact, got.Any())
		}
		var nf *domain.NotFound
		found := errors.As(e, &nf)
		switch {
		case !redact && (!found || e.Error() != "load: Order not found: "+canary):
			t.Errorf("without redaction: text %q, errors.As found %v; want the full text and the NotFound", e.Error(), found)
		case redact && (found || strings.Contains(e.Error(), canary)):
			t.Errorf("with redaction: text %q, errors.As found %v; want neither the secret nor the error", e.Error(), found)
		}
	}
}

// handlerFunc is a slog handler that hands every record to a function.
type handlerFunc func(context.Context, slog.Record) error

func (h handlerFunc) Enabled(context.Context, slog.Level) bool        { return true }
func (h handlerFunc) Handle(ctx context.Context, r slog.Record) error { return h(ctx, r) }
func (h handlerFunc) WithAttrs([]slog.Attr) slog.Handler              { return h }
func (h handlerFunc) WithGroup(string) slog.Handler                   { return h }

func ExampleWithObserver() {
	count := map[codes.Code]int{}
	p, _ := filter.New(
		filter.WithLogger(slog.New(slog.DiscardHandler)),
		filter.WithObserver(func(_ context.Context, f filter.Failure) {
			count[f.Envelope.Code]++ // a metric, say
		}),
	)
	ctx := context.Background()
	p.Handle(ctx, filter.Call{Tool: "get_order"}, domain.NewNotFound("Order", "1"))
	p.Handle(ctx, filter.Call{Tool: "get_order"}, errors.New("boom"))
	fmt.Println(count)
	// Output: map[INTERNAL_ERROR:1 NOT_FOUND:1]
}

// An error tracker is an observer that looks at server failures: their
// ref names the one log record, and Err is the error itself, for the
// server only.
func ExampleWithObserver_errorTracker() {
	sentry := func(_ context.Context, f filter.Failure) {
		if f.Envelope.Category == codes.Server {
			fmt.Printf("report %s in %s: %v\n", f.Envelope.Ref, f.Call.Tool, f.Err)
		}
	}
	p, _ := filter.New(filter.WithLogger(slog.New(slog.DiscardHandler)), filter.WithObserver(sentry), filter.WithRefGenerator(fixedRef))
	p.Handle(context.Background(), filter.Call{Tool: "lookup"}, errors.New("disk full"))
	p.Handle(context.Background(), filter.Call{Tool: "lookup"}, domain.NewNotFound("Order", "1")) // not a server error
	// Output: report 4f9c2a7d1e0b3c58 in lookup: disk full
}
