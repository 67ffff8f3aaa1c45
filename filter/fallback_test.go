package filter

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/toolerr"
)

type panicHandler struct{}

func (panicHandler) Enabled(context.Context, slog.Level) bool  { return true }
func (panicHandler) Handle(context.Context, slog.Record) error { panic("log handler failed") }
func (h panicHandler) WithAttrs([]slog.Attr) slog.Handler      { return h }
func (h panicHandler) WithGroup(string) slog.Handler           { return h }

type errorHandler struct{}

func (errorHandler) Enabled(context.Context, slog.Level) bool  { panic("Enabled failed") }
func (errorHandler) Handle(context.Context, slog.Record) error { return errors.New("disk full") }
func (h errorHandler) WithAttrs([]slog.Attr) slog.Handler      { return h }
func (h errorHandler) WithGroup(string) slog.Handler           { return h }

// TestFailingLoggerFallsBack checks a log handler that panics or fails: the
// call is answered, and its one record goes to the last-resort handler,
// with the ref the client read and the reason.
func TestFailingLoggerFallsBack(t *testing.T) {
	for _, handler := range []slog.Handler{panicHandler{}, errorHandler{}} {
		p, err := New(WithLogger(slog.New(handler)))
		if err != nil {
			t.Fatal(err)
		}
		var last bytes.Buffer
		p.fallback = slog.NewTextHandler(&last, nil)
		call := Call{Tool: "lookup"}
		f := p.Handle(context.Background(), call, errors.New("dial 10.0.0.5 refused"))
		checkEnvelope(t, f.Envelope)
		if f.Envelope.Code != codes.InternalError || f.Envelope.Ref == "" || strings.Contains(f.Envelope.Message, "10.0.0.5") {
			t.Errorf("%T: envelope %+v, want a masked internal error", handler, f.Envelope)
		}
		out := last.String()
		if strings.Count(out, "\n") != 1 || !strings.Contains(out, "ref="+f.Envelope.Ref) || !strings.Contains(out, "log_handler_error=") {
			t.Errorf("%T: last resort got %q, want one record with the ref and the reason", handler, out)
		}
		last.Reset()
		if f := p.Handle(context.Background(), call, toolerr.New("fine")); f.Envelope.Message != "fine" || f.Envelope.Code != codes.ToolFailed {
			t.Errorf("%T: a ToolError became %+v", handler, f.Envelope)
		}
		if strings.Count(last.String(), "\n") != 1 {
			t.Errorf("%T: the record of a ToolError: %q", handler, last.String())
		}
	}
}

// TestLastResort checks the answer when the handling of a failure ends
// abnormally: a masked internal error with a ref, and one record to the
// last-resort handler, none if the record was written already.
func TestLastResort(t *testing.T) {
	var logged, last bytes.Buffer
	p, err := New(WithLogger(slog.New(slog.NewTextHandler(&logged, nil))))
	if err != nil {
		t.Fatal(err)
	}
	p.fallback = slog.NewTextHandler(&last, nil)
	for _, c := range []struct {
		call Call
		rpc  int64
		text string
	}{
		{Call{Tool: "t", RequestID: "7"}, 0, `Internal error in tool "t" (ref: `},
		{Call{Method: "prompts/get", Prompt: "p", RequestID: "7"}, -32603, `Internal error in prompt "p" (ref: `},
	} {
		h := handling{call: c.call, orig: errors.New("x")}
		f := p.lastResort(context.Background(), &h, "boom")
		checkEnvelope(t, f.Envelope)
		env := f.Envelope
		if env.Code != codes.InternalError || env.Category != codes.Server || len(env.Ref) != 16 || env.Message != c.text+env.Ref+")." ||
			env.RequestID != "7" || f.JSONRPCCode != c.rpc || f.Err != h.orig {
			t.Errorf("last resort %+v", f)
		}
		if len(f.Texts) != 2 || f.Texts[0] != env.Message || f.Texts[1] != "Code: INTERNAL_ERROR\nRetry: no." {
			t.Errorf("texts %q", f.Texts)
		}
		out := last.String()
		if logged.Len() != 0 || strings.Count(out, "\n") != 1 || !strings.Contains(out, "level=ERROR") ||
			!strings.Contains(out, "ref="+env.Ref) || !strings.Contains(out, "pipeline_error=boom") || !strings.Contains(out, "request_id=7") {
			t.Errorf("log %q, last resort %q, want one ERROR record with the ref and the reason", logged.String(), out)
		}
		last.Reset()
		// A call whose record is written gets no other.
		p.lastResort(context.Background(), &h, "boom")
		if last.Len()+logged.Len() != 0 {
			t.Errorf("a logged call was logged again: %q %q", logged.String(), last.String())
		}
	}
	h := handling{call: Call{Tool: "t"}, orig: errors.New("x")}
	p.lastResort(context.Background(), &h, nil)
	if !strings.Contains(last.String(), "runtime.Goexit") {
		t.Errorf("the record of a Goexit: %q", last.String())
	}
}
