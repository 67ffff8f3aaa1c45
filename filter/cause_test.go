package filter_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/toolerr"
)

// retryableErr is a dependency's error that says it may be retried.
type retryableErr struct{}

func (retryableErr) Error() string   { return "connection refused: password=hunter2" }
func (retryableErr) Retryable() bool { return true }

// TestToolErrorOverUnclassifiedCause: the words of a migrated site,
// toolerr.New(...).WithCause(err), over a cause nothing classifies, reach
// the model, and the failure is the server's: an ERROR record with the ref
// the answer carries, the server category for observers, and retry advice
// from the cause, or "the outcome is unknown", never "no".
func TestToolErrorOverUnclassifiedCause(t *testing.T) {
	var o observed
	h := newHarness(t, filter.WithObserver(o.observe))
	f := h.handle(t, context.Background(), call, toolerr.New("Failed to get user.").WithCause(errors.New("dial: password=hunter2 refused")))
	recs := h.records(t)
	env := f.Envelope
	if env.Message != "Failed to get user." || env.Code != codes.ToolFailed || env.Category != codes.Server {
		t.Errorf("envelope %+v, want the tool's words, TOOL_ERROR, category server", env)
	}
	if len(env.Ref) != 16 || len(recs) != 1 || recs[0]["level"] != "ERROR" || recs[0]["ref"] != env.Ref {
		t.Errorf("ref %q, records %v: want one ERROR record with the answer's ref", env.Ref, recs)
	}
	if env.Retryable || env.Outcome != "unknown" || !strings.Contains(f.Texts[1], "the outcome is unknown") || !strings.Contains(f.Texts[1], env.Ref) {
		t.Errorf("retryable %v, outcome %q, text %q: want the outcome unknown and the ref", env.Retryable, env.Outcome, f.Texts[1])
	}
	if strings.Contains(clientBytes(t, f), "hunter2") {
		t.Errorf("the cause reached the client: %s", clientBytes(t, f))
	}
	if len(o.failures) != 1 || o.failures[0].Envelope.Category != codes.Server {
		t.Errorf("the observer saw %+v, want one server failure", o.failures)
	}

	// The cause says it may be retried: its advice holds.
	f = h.handle(t, context.Background(), call, toolerr.New("Failed to get user.").WithCause(retryableErr{}))
	if env := f.Envelope; !env.Retryable || env.Outcome != "" || env.Category != codes.Server {
		t.Errorf("envelope %+v, want retryable, as the cause says, in the server category", env)
	}
	h.records(t)

	// A cause a filter classifies is answered as before: in the filter's
	// code and category, with the tool's words.
	unavailable := filter.Is(errRefused, filter.Response{Code: codes.Unavailable, Message: "The user service is unavailable.", RetryAfter: time.Second})
	f = h.handle(t, context.Background(), call, toolerr.New("Failed to get user.").WithCause(errRefused), unavailable)
	if env := f.Envelope; env.Code != codes.Unavailable || env.Message != "Failed to get user." || !env.Retryable {
		t.Errorf("envelope %+v, want UNAVAILABLE in the tool's words, retryable", env)
	}
	h.records(t)

	// Without a cause, a ToolError is the client's: INFO, no ref.
	f = h.handle(t, context.Background(), call, toolerr.New("Order 7 is not open."))
	if recs := h.records(t); f.Envelope.Category != codes.Client || f.Envelope.Ref != "" || recs[0]["level"] != "INFO" {
		t.Errorf("envelope %+v, records %v, want a client failure at INFO without a ref", f.Envelope, recs)
	}
}

var errRefused = errors.New("connect: connection refused")
