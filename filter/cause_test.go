package filter_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
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

// TestWrap: a ToolError made by toolerr.Wrap reads as fmt.Errorf("%s: %w")
// would where its cause is public: its words, ": ", then what the model
// reads of the cause, with the cause's code and advice; over a cause mcperr
// masks, its words alone, a server failure with a ref. The words of a
// ToolError not made by Wrap stay hints, as before, and no wrapper's text
// in between reaches the client.
func TestWrap(t *testing.T) {
	h := newHarness(t)
	numErr := func() error { _, err := strconv.Atoi("x1"); return err }()
	parse := filter.Public[*strconv.NumError](codes.ValidationError)
	secret := errors.New("dial 10.0.0.5: password=hunter2 refused")
	for _, c := range []struct {
		name    string
		err     error
		filters []filter.Filter
		msg     string
		code    codes.Code
		hints   []string
		server  bool
	}{
		{"over ToolErrors", toolerr.Wrap(toolerr.Wrap(toolerr.New("docs filesystem not provided"), "failed to list docs"), "failed listing docs"), nil,
			"failed listing docs: failed to list docs: docs filesystem not provided", codes.ToolFailed, nil, false},
		{"over a masked cause", toolerr.Wrap(toolerr.Wrap(secret, "failed to execute instant query"), "failed making query api call"), nil,
			"failed making query api call: failed to execute instant query", codes.ToolFailed, nil, true},
		{"over a public library error", toolerr.Wrap(numErr, "invalid sprint_id"), []filter.Filter{parse},
			`invalid sprint_id: strconv.Atoi: parsing "x1": invalid syntax`, codes.ValidationError, nil, false},
		{"through a wrapper's text", toolerr.Wrap(fmt.Errorf("query on %s: %w", "password=hunter2", domain.NewNotFound("User", "7")), "get user failed"), nil,
			"get user failed: User not found: 7", codes.NotFound, nil, false},
		{"with a hint of its own", toolerr.Wrap(toolerr.New("Order 7 is closed.").WithHint("Open a new order."), "cannot add item"), nil,
			"cannot add item: Order 7 is closed.", codes.ToolFailed, []string{"Open a new order."}, false},
		{"under WithCause", toolerr.New("get user failed").WithCause(toolerr.Wrap(toolerr.New("no such tenant"), "lookup failed")), nil,
			"get user failed", codes.ToolFailed, []string{"lookup failed", "no such tenant"}, false},
		{"over WithCause", toolerr.Wrap(toolerr.New("lookup failed").WithCause(toolerr.New("create client failed").WithCause(secret)), "get user failed"), nil,
			"get user failed: lookup failed", codes.ToolFailed, []string{"create client failed"}, true},
		{"nil cause", toolerr.Wrap(nil, "get user failed"), nil, "get user failed", codes.ToolFailed, nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := h.handle(t, context.Background(), call, c.err, c.filters...)
			recs := h.records(t)
			env := f.Envelope
			if env.Message != c.msg || env.Code != c.code || !slices.Equal(env.Hints, c.hints) || !strings.HasPrefix(f.Texts[0], c.msg) {
				t.Errorf("envelope %s %q %q, text %q; want %s %q %q", env.Code, env.Message, env.Hints, f.Texts[0], c.code, c.msg, c.hints)
			}
			if len(recs) != 1 || (recs[0]["level"] == "ERROR") != c.server || (env.Ref != "") != c.server {
				t.Errorf("ref %q, records %v: want one record, at ERROR with a ref only for a server failure (%v)", env.Ref, recs, c.server)
			}
			if b := clientBytes(t, f); strings.Contains(b, "hunter2") || strings.Contains(b, "10.0.0.5") {
				t.Errorf("a cause's text reached the client: %s", b)
			}
		})
	}
}
