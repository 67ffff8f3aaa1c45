package filter

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/cockroachdb/redact"
)

// logMessage is the message of every record the pipeline writes.
const logMessage = "tool call failed"

// log writes the one record of a handled error: at error level for server
// errors, at info level for client and business ones. If the logger's
// handler panics or returns an error, the record goes to the pipeline's
// last-resort handler instead, with the reason.
func (p *Pipeline) log(ctx context.Context, h *handling, r *Response, server bool) {
	level := slog.LevelInfo
	if server {
		level = slog.LevelError
	}
	handler := p.handler()
	if !p.enabled(ctx, handler, level) {
		return
	}
	var buf [16]slog.Attr
	attrs := p.attrs(buf[:0], h, r)
	rec := slog.NewRecord(time.Now(), level, logMessageOf(h.call.Kind), 0)
	rec.AddAttrs(attrs...)
	if err := handle(ctx, handler, rec); err != nil {
		rec.AddAttrs(slog.String("log_handler_error", bound(err.Error(), MaxLogValue)))
		_ = handle(ctx, p.fallback, rec) // nothing is left to try
	}
}

// handler returns the handler of the pipeline's logger, or of slog.Default
// as it is now.
func (p *Pipeline) handler() slog.Handler {
	if p.logger != nil {
		return p.logger.Handler()
	}
	return slog.Default().Handler()
}

// enabled asks handler whether it logs level; a handler that panics is
// taken to log everything, so that the record reaches the last resort.
func (p *Pipeline) enabled(ctx context.Context, handler slog.Handler, level slog.Level) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = true
		}
	}()
	return handler.Enabled(ctx, level)
}

// handle hands rec to handler, turning a panic into an error.
func handle(ctx context.Context, handler slog.Handler, rec slog.Record) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("the log handler %T panicked: %s", handler, safeSprint(v))
		}
	}()
	if err := handler.Handle(ctx, rec); err != nil {
		return fmt.Errorf("the log handler %T failed: %w", handler, err)
	}
	return nil
}

// attrs returns the attributes of the record of h, every value bounded.
// They are appended to attrs, which the caller provides so that they can
// live on its stack.
func (p *Pipeline) attrs(attrs []slog.Attr, h *handling, r *Response) []slog.Attr {
	attrs = append(attrs, targetAttr(h.call), slog.String("code", r.Code.String()))
	if r.Ref != "" {
		attrs = append(attrs, slog.String("ref", r.Ref))
	}
	if h.call.RequestID != "" {
		attrs = append(attrs, slog.String("request_id", bound(h.call.RequestID, 256)))
	}
	if h.call.SessionID != "" {
		attrs = append(attrs, slog.String("session_id", bound(h.call.SessionID, 256)))
	}
	if p.redact && !h.masked {
		// The client read it already: keep it readable beside the redacted
		// error.
		attrs = append(attrs, slog.String("message", bound(r.Message, MaxLogValue)))
	}
	h.logged = loggedError{text: h.errText}
	if !p.redact {
		h.logged.err = h.err
	}
	attrs = append(attrs, slog.Any("error", &h.logged))
	if h.err != h.orig {
		attrs = append(attrs, slog.String("original_error", p.text(h.orig)))
	}
	if h.filterErr != nil {
		attrs = append(attrs, slog.String("filter_error", p.text(h.filterErr)))
	}
	if !p.redact {
		if v := h.logValuer(); v != nil {
			attrs = append(attrs, slog.Attr{Key: "fields", Value: logView(v)})
		}
	}
	if len(r.Hints) > 0 {
		attrs = append(attrs, slog.Any("hints", r.Hints))
	}
	if stack := p.stackOf(h); stack != "" {
		attrs = append(attrs, slog.String("stack", stack))
	}
	return append(attrs, h.attrs...)
}

// text returns err's full text, redacted when the pipeline redacts, bounded,
// without letting a panic in its methods escape.
func (p *Pipeline) text(err error) (s string) {
	if !p.redact {
		return safeText(err)
	}
	defer func() {
		if v := recover(); v != nil {
			s = fmt.Sprintf("<%T: its text cannot be redacted: ‹×›>", err)
		}
	}()
	return bound(string(redact.Sprint(err).Redact()), MaxLogValue)
}

// stackOf returns the stack of a panic, or the detailed form of an error
// that carries a cockroachdb/errors stack; "" when there is none.
func (p *Pipeline) stackOf(h *handling) (s string) {
	defer func() {
		if recover() != nil {
			s = ""
		}
	}()
	var pe *PanicError
	if (h.facts.panicked || h.facts.custom) && errors.As(h.err, &pe) || h.filterErr != nil && errors.As(h.filterErr, &pe) {
		return bound(string(pe.Stack), MaxLogValue)
	}
	if !hasStack(h.err) {
		return ""
	}
	if p.redact {
		return bound(string(redact.Sprintf("%+v", h.err).Redact()), MaxLogValue)
	}
	return bound(fmt.Sprintf("%+v", h.err), MaxLogValue)
}

// logValuer returns the first slog.LogValuer in the chain of the error
// being handled, the log view of a domain error or ToolError, or nil.
func (h *handling) logValuer() (v slog.LogValuer) {
	if !h.facts.custom {
		return h.facts.valuer
	}
	defer func() {
		if recover() != nil {
			v = nil
		}
	}()
	var lv interface {
		error
		slog.LogValuer
	}
	if errors.As(h.err, &lv) {
		return lv
	}
	return nil
}

// hasStack reports whether err's chain has a stack of
// github.com/cockroachdb/errors, which its %+v form prints.
func hasStack(err error) bool {
	for e, n := err, 0; e != nil && n < MaxChain; e, n = errors.Unwrap(e), n+1 {
		if nameOf(e) == stackLayer {
			return true
		}
	}
	return false
}

// loggedError is the value of a record's "error" attribute: an error, so
// that handlers that understand errors (OpenTelemetry's log bridge,
// Sentry's slog handler) receive one, whose Error is the text the pipeline
// logs: the full chain, bounded, redacted under WithRedaction. Without
// redaction, Unwrap returns the error itself, for a handler to inspect with
// errors.As; with redaction, it returns nothing, so that no handler can
// reach what redaction hid.
type loggedError struct {
	text string
	err  error
}

// Error returns the text the pipeline logs.
func (e *loggedError) Error() string { return e.text }

// Unwrap returns the error logged, without redaction only.
func (e *loggedError) Unwrap() error { return e.err }
