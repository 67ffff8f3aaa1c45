package toolerr_test

import (
	"errors"
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
	if e.Message() != "The weather service is down; try again in a minute." || e.PublicMessage() != e.Message() {
		t.Errorf("message = %q", e.Message())
	}
	if e.Error() != "The weather service is down; try again in a minute.: upstream said 503" {
		t.Errorf("Error() = %q", e.Error())
	}
	if e.ErrorCode() != codes.ExternalServiceError || e.ErrorHint() != "Ask again later." {
		t.Errorf("code %s, hint %q", e.ErrorCode(), e.ErrorHint())
	}
	if r, known := toolerr.RetryableOf(e); !r || !known {
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
	if _, known := toolerr.RetryableOf(base); known {
		t.Error("retryable known on a fresh ToolError")
	}
}

func TestNilSafety(t *testing.T) {
	var e *toolerr.ToolError
	if e.WithCode("X") != nil || e.WithHint("h") != nil || e.WithCause(errors.New("x")) != nil || e.WithDetails(nil) != nil || e.WithRetryable(true) != nil {
		t.Error("With on nil returned non-nil")
	}
	if e.Message() != "" || e.Error() != "<nil>" || e.Unwrap() != nil || e.ErrorHint() != "" || e.PublicDetails() != nil {
		t.Error("nil ToolError accessors")
	}
	if toolerr.Wrap(nil, "msg") != nil {
		t.Error("Wrap(nil) != nil")
	}
}

func TestWrap(t *testing.T) {
	cause := errors.New("secret db host")
	err := toolerr.Wrap(cause, "The order service is down.")
	var te *toolerr.ToolError
	if !errors.As(err, &te) || te.Message() != "The order service is down." || !errors.Is(err, cause) {
		t.Fatalf("Wrap = %v", err)
	}
	if got := toolerr.Errorf("Page %d is past the end (%d pages).", 9, 3).Message(); got != "Page 9 is past the end (3 pages)." {
		t.Errorf("Errorf = %q", got)
	}
}

func TestCheckToolName(t *testing.T) {
	for _, ok := range []string{"divide", "get_user", "orders.update-v2", "A", strings.Repeat("x", 128)} {
		if err := toolerr.CheckToolName(ok); err != nil {
			t.Errorf("CheckToolName(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "has space", "slash/name", "émoji", "comma,", strings.Repeat("x", 129)} {
		err := toolerr.CheckToolName(bad)
		var de *toolerr.DefinitionError
		if !errors.As(err, &de) || de.Code != codes.InvalidToolName {
			t.Errorf("CheckToolName(%q) = %v, want INVALID_TOOL_NAME", bad, err)
		}
	}
}
