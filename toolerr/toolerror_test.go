package toolerr_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/toolerr"
)

func TestToolError(t *testing.T) {
	cause := errors.New("upstream said 503")
	e := toolerr.New("The weather service is down; try again in a minute.").
		WithCode(codes.ExternalServiceError).
		WithDetails(map[string]any{"service": "weather"}).
		WithHint("Ask again later.").
		WithRetryable(true).
		WithCause(cause)
	if e.PublicMessage() != "The weather service is down; try again in a minute." {
		t.Errorf("message = %q", e.PublicMessage())
	}
	if e.Error() != "The weather service is down; try again in a minute.: upstream said 503" {
		t.Errorf("Error() = %q", e.Error())
	}
	if e.ErrorCode() != codes.ExternalServiceError || e.ErrorHint() != "Ask again later." {
		t.Errorf("code %s, hint %q", e.ErrorCode(), e.ErrorHint())
	}
	if r, known, _ := toolerr.RetryAdvice(e); !r || !known {
		t.Error("retryable not kept")
	}
	if !errors.Is(e, cause) {
		t.Error("cause not unwrapped")
	}
	if e.PublicDetails()["service"] != "weather" {
		t.Errorf("details = %v", e.PublicDetails())
	}
}

func TestToolErrorIsImmutable(t *testing.T) {
	base := toolerr.New("base")
	details := map[string]any{"k": 1}
	withCode := base.WithCode("A_CODE").WithDetails(details)
	details["k"] = 2
	withCode.PublicDetails()["k"] = 3
	if base.ErrorCode() != codes.ToolFailed {
		t.Errorf("WithCode changed the original: %s", base.ErrorCode())
	}
	if withCode.PublicDetails()["k"] != 1 {
		t.Errorf("details shared with the caller: %v", withCode.PublicDetails())
	}
	if _, known, _ := toolerr.RetryAdvice(base); known {
		t.Error("retryable known on a fresh ToolError")
	}
}

func TestNilSafety(t *testing.T) {
	var e *toolerr.ToolError
	if e.WithCode("X") != nil || e.WithHint("h") != nil || e.WithCause(errors.New("x")) != nil || e.WithDetails(nil) != nil || e.WithRetryable(true) != nil {
		t.Error("With on nil returned non-nil")
	}
	if e.PublicMessage() != "" || e.Error() != "<nil>" || e.Unwrap() != nil || e.ErrorHint() != "" || e.PublicDetails() != nil {
		t.Error("nil ToolError accessors")
	}
}

// secretCause is a cause whose text must reach the log and never the
// message.
type secretCause struct{ addr string }

func (e *secretCause) Error() string { return "dial " + e.addr + ": password=hunter2 refused" }

func TestWithCauseKeepsTheCauseForTheLogOnly(t *testing.T) {
	cause := &secretCause{addr: "10.0.0.5"}
	err := toolerr.New(fmt.Sprintf("Order %s could not be loaded; try again shortly.", "o-7")).WithCause(cause)
	if got, want := err.PublicMessage(), "Order o-7 could not be loaded; try again shortly."; got != want {
		t.Errorf("PublicMessage() = %q, want %q", got, want)
	}
	if got, want := err.Error(), "Order o-7 could not be loaded; try again shortly.: dial 10.0.0.5: password=hunter2 refused"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	// Through a further wrapping, as a handler would return it.
	wrapped := fmt.Errorf("handler: %w", err)
	var sc *secretCause
	if !errors.As(wrapped, &sc) || sc != cause || !errors.Is(wrapped, cause) {
		t.Error("errors.As or errors.Is did not find the cause through a wrapper")
	}
	var pub toolerr.PublicError
	if !errors.As(wrapped, &pub) || strings.Contains(pub.PublicMessage(), "hunter2") {
		t.Errorf("public message through a wrapper: %v", pub)
	}

	// Several causes: join them.
	other := errors.New("replica down")
	both := toolerr.New("Both replicas are down.").WithCause(errors.Join(cause, other))
	if !errors.Is(both, cause) || !errors.Is(both, other) {
		t.Errorf("joined causes not found in %v", both)
	}

	// A nil cause leaves none, and the ToolError is still returned.
	none := toolerr.New("The file is gone.").WithCause(nil)
	if none == nil || none.Unwrap() != nil || none.Error() != "The file is gone." {
		t.Errorf("WithCause(nil) = %#v", none)
	}
}
