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
		r := p.Handle(context.Background(), call, errors.New("dial 10.0.0.5 refused"))
		if r.Code != codes.InternalError || r.Ref == "" || strings.Contains(r.Message, "10.0.0.5") {
			t.Errorf("%T: response %+v, want a masked internal error", handler, r)
		}
		out := last.String()
		if strings.Count(out, "\n") != 1 || !strings.Contains(out, "ref="+r.Ref) || !strings.Contains(out, "log_handler_error=") {
			t.Errorf("%T: last resort got %q, want one record with the ref and the reason", handler, out)
		}
		if r := p.Handle(context.Background(), call, toolerr.New("fine")); r.Message != "fine" {
			t.Errorf("%T: a ToolError became %+v", handler, r)
		}
	}
}

// TestLastResort checks the answer when the pipeline itself fails: one
// record, to the logger unless the logger is what failed, then to the last
// resort, and none if the record was written already.
func TestLastResort(t *testing.T) {
	var logged, last bytes.Buffer
	p, err := New(WithLogger(slog.New(slog.NewTextHandler(&logged, nil))))
	if err != nil {
		t.Fatal(err)
	}
	p.fallback = slog.NewTextHandler(&last, nil)
	h := handling{call: Call{Tool: "t"}, orig: errors.New("x")}
	r := p.lastResort(context.Background(), &h, "boom")
	if r.Code != codes.InternalError || !strings.Contains(r.Message, r.Ref) || !strings.Contains(logged.String(), "ref="+r.Ref) || last.Len() != 0 {
		t.Errorf("last resort %+v, log %q, last resort %q", r, logged.String(), last.String())
	}
	logged.Reset()
	h.logStarted = true
	r = p.lastResort(context.Background(), &h, "boom")
	if logged.Len() != 0 || !strings.Contains(last.String(), "ref="+r.Ref) {
		t.Errorf("with the logger failed: log %q, last resort %q", logged.String(), last.String())
	}
	h.logDone = true
	last.Reset()
	p.lastResort(context.Background(), &h, "boom")
	if last.Len()+logged.Len() != 0 {
		t.Errorf("a logged call was logged again: %q %q", logged.String(), last.String())
	}
}
