package filter_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/toolerr"
)

// observed records what observers are told.
type observed struct {
	mu       sync.Mutex
	failures []filter.Failure
}

func (o *observed) Observe(_ context.Context, f filter.Failure) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.failures = append(o.failures, f)
}

func TestObserverSeesEveryFailureOnce(t *testing.T) {
	var first, second observed
	h := newHarness(t, filter.WithObserver(&first), filter.WithObserver(&second))
	ctx := context.Background()
	for _, err := range []error{
		toolerr.New("b must not be zero."),
		domain.NewNotFound("Order", "1"),
		fmt.Errorf("dial: password=%s", canary),
	} {
		r := h.p.Handle(ctx, call, err)
		if len(first.failures) == 0 {
			t.Fatal("the observer was not told")
		}
		f := first.failures[len(first.failures)-1]
		if f.Response.Message != r.Message || f.Response.Code != r.Code || f.Response.Ref != r.Ref || f.Call.Tool != call.Tool || f.Call.RequestID != call.RequestID || f.JSONRPCCode != 0 {
			t.Errorf("observer got %+v for response %+v", f, r)
		}
		if f.ErrorType != fmt.Sprintf("%T", err) {
			t.Errorf("ErrorType %q, want %T", f.ErrorType, err)
		}
	}
	if len(first.failures) != 3 || len(second.failures) != 3 {
		t.Errorf("observers told %d and %d times, want 3 each", len(first.failures), len(second.failures))
	}
	if recs := h.records(t); len(recs) != 3 {
		t.Errorf("%d records, want 3", len(recs))
	}
}

// TestObserverSeesWhatTheLogSees checks that an observer learns the error
// only as the log record holds it: redacted under WithRedaction.
func TestObserverSeesWhatTheLogSees(t *testing.T) {
	var o observed
	h := newHarness(t, filter.WithObserver(&o), filter.WithRedaction(true))
	h.p.Handle(context.Background(), call, fmt.Errorf("dial: password=%s", canary))
	rec := h.records(t)[0]
	f := o.failures[0]
	if strings.Contains(f.ErrorText, canary) || f.ErrorText != rec["error"] {
		t.Errorf("ErrorText %q, record error %q: want the redacted text of the record", f.ErrorText, rec["error"])
	}
}

func TestObserverOfRPCFailures(t *testing.T) {
	var o observed
	h := newHarness(t, filter.WithObserver(&o))
	e := h.p.HandleRPC(context.Background(), filter.Call{Kind: filter.KindResource, Resource: "file:///x", RequestID: "9"}, errors.New("boom"))
	if len(o.failures) != 1 || o.failures[0].JSONRPCCode != e.Code || e.Code != filter.CodeInternalError {
		t.Errorf("observed %+v for a JSON-RPC error %d", o.failures, e.Code)
	}
}

func TestHostileObservers(t *testing.T) {
	for name, fn := range map[string]filter.ObserverFunc{
		"panics":               func(context.Context, filter.Failure) { panic(canary) },
		"calls runtime.Goexit": func(context.Context, filter.Failure) { runtime.Goexit() },
		"changes the response": func(_ context.Context, f filter.Failure) { f.Response.Message = canary },
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, filter.WithObserver(fn))
			r := h.p.Handle(context.Background(), call, errors.New("boom"))
			if r == nil || r.Code != codes.InternalError {
				t.Fatalf("response %+v, want a masked internal error", r)
			}
			if recs := h.records(t); len(recs) != 1 {
				t.Fatalf("%d records, want 1: %v", len(recs), recs)
			}
			if strings.Contains(clientBytes(t, r), canary) {
				t.Error("what the observer did reached the client")
			}
		})
	}
	if _, err := filter.New(filter.WithObserver(nil)); err == nil {
		t.Error("WithObserver(nil) was accepted")
	}
	var nilFunc filter.ObserverFunc
	if _, err := filter.New(filter.WithObserver(nilFunc)); err == nil {
		t.Error("WithObserver of a nil function was accepted")
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
		p.Handle(context.Background(), call, fmt.Errorf("load: %w", domain.NewNotFound("Order", canary)))
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
		filter.WithObserver(filter.ObserverFunc(func(_ context.Context, f filter.Failure) {
			count[f.Response.Code]++ // a metric, say
		})),
	)
	ctx := context.Background()
	p.Handle(ctx, filter.Call{Tool: "get_order"}, domain.NewNotFound("Order", "1"))
	p.Handle(ctx, filter.Call{Tool: "get_order"}, errors.New("boom"))
	fmt.Println(count)
	// Output: map[INTERNAL_ERROR:1 NOT_FOUND:1]
}
