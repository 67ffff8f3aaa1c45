package filter_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
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

// TestToolErrorsOverUnclassifiedCause: a ToolError of no code of its own
// over another one over a cause nothing classifies (a handler's words over
// a helper's, as a migration writes them) is the server's failure as one
// is: an ERROR record with the ref the answer carries, the outer words as
// the message and the inner ones as the first hint, the retry advice the
// cause gives. An inner ToolError without a cause, or over a public error,
// explains the failure, as before.
func TestToolErrorsOverUnclassifiedCause(t *testing.T) {
	h := newHarness(t)
	inner := toolerr.New("create client failed")
	for _, c := range []struct {
		name      string
		err       error
		code      codes.Code
		category  codes.Category
		hints     []string
		retryable bool
	}{
		{"over a secret", toolerr.New("get user failed").WithCause(inner.WithCause(errors.New("dial: password=hunter2 refused"))),
			codes.ToolFailed, codes.Server, []string{"create client failed"}, false},
		{"three deep", toolerr.New("get user failed").WithCause(toolerr.New("lookup failed").WithCause(inner.WithCause(errRefused))),
			codes.ToolFailed, codes.Server, []string{"lookup failed", "create client failed"}, false},
		{"over a retryable cause", toolerr.New("get user failed").WithCause(inner.WithCause(retryableErr{})),
			codes.ToolFailed, codes.Server, []string{"create client failed"}, true},
		{"inner without a cause", toolerr.New("get user failed").WithCause(inner),
			codes.ToolFailed, codes.Client, []string{"create client failed"}, false},
		{"over a public error", toolerr.New("get user failed").WithCause(inner.WithCause(domain.NewNotFound("User", "7"))),
			codes.NotFound, codes.Client, []string{"create client failed", "User not found: 7"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := h.handle(t, context.Background(), call, c.err)
			recs := h.records(t)
			env := f.Envelope
			if env.Message != "get user failed" || env.Code != c.code || env.Category != c.category || !slices.Equal(env.Hints, c.hints) || env.Retryable != c.retryable {
				t.Errorf("envelope %s %s %q %q retryable %v, want %s %s %q %q %v", env.Code, env.Category, env.Message, env.Hints, env.Retryable,
					c.code, c.category, "get user failed", c.hints, c.retryable)
			}
			server := c.category == codes.Server
			if len(recs) != 1 || (recs[0]["level"] == "ERROR") != server || (env.Ref != "") != server || server && recs[0]["ref"] != env.Ref {
				t.Errorf("ref %q, records %v: want one record, at ERROR with the answer's ref for a server failure", env.Ref, recs)
			}
			if strings.Contains(clientBytes(t, f), "hunter2") || strings.Contains(clientBytes(t, f), "refused") {
				t.Errorf("the cause reached the client: %s", clientBytes(t, f))
			}
		})
	}
}

var errRefused = errors.New("connect: connection refused")
