package filter

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/cockroachdb/redact"
)

// log writes the one record of a handled failure: at error level for
// server errors, at info level for client and business ones. If the
// logger's handler panics or returns an error, the record goes to the
// pipeline's last-resort handler on standard error instead, with the
// reason.
func (p *Pipeline) log(ctx context.Context, h *handling, e Envelope, server bool) {
	level := slog.LevelInfo
	switch {
	case server:
		level = slog.LevelError
	case h.handBuilt:
		level = slog.LevelWarn
	}
	handler := p.handler()
	if !enabled(ctx, handler, level) {
		h.logged = true
		return
	}
	var buf [16]slog.Attr
	attrs := p.attrs(buf[:0], h, e)
	rec := slog.NewRecord(time.Now(), level, logMessageOf(h.call), 0)
	rec.AddAttrs(attrs...)
	if err := handle(ctx, handler, rec); err != nil {
		rec.AddAttrs(slog.String("log_handler_error", bound(err.Error(), maxLogValue)))
		_ = handle(ctx, p.fallback, rec) // nothing is left to try
	}
	// Set only now: a handler that ends its goroutine in Handle leaves it
	// unset, and the last resort writes the record instead.
	h.logged = true
}

// warn writes a WARN record about the pipeline's configuration, to the
// last-resort handler if the logger fails.
func (p *Pipeline) warn(ctx context.Context, msg string, attrs ...slog.Attr) {
	handler := p.handler()
	if !enabled(ctx, handler, slog.LevelWarn) {
		return
	}
	rec := slog.NewRecord(time.Now(), slog.LevelWarn, msg, 0)
	rec.AddAttrs(attrs...)
	if err := handle(ctx, handler, rec); err != nil {
		_ = handle(ctx, p.fallback, rec)
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
func enabled(ctx context.Context, handler slog.Handler, level slog.Level) (ok bool) {
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
func (p *Pipeline) attrs(attrs []slog.Attr, h *handling, e Envelope) []slog.Attr {
	attrs = append(attrs, targetAttr(h.call, p.redact), slog.String("code", string(e.Code)))
	if e.Ref != "" {
		attrs = append(attrs, slog.String("ref", e.Ref))
	}
	if e.RequestID != "" {
		attrs = append(attrs, slog.String("request_id", e.RequestID))
	}
	if h.call.SessionID != "" {
		attrs = append(attrs, slog.String("session_id", bound(h.call.SessionID, 256)))
	}
	if h.handBuilt {
		attrs = append(attrs, slog.Bool("hand_built", true))
	}
	// The message the client reads (or would read), kept readable beside a
	// redacted error, since the client has it anyway; never a hand-built
	// result's own text, which is the error itself.
	shown := !h.handBuilt || h.masked
	if h.reportOnly {
		attrs = append(attrs, slog.Bool("report_only", true), slog.Bool("masked", h.masked))
		if shown || !p.redact {
			attrs = append(attrs, slog.String("would_send", bound(e.Message, maxLogValue)))
		}
	} else if p.redact && !h.masked && shown {
		attrs = append(attrs, slog.String("message", bound(e.Message, maxLogValue)))
	}
	h.loggedErr = loggedError{text: h.errText}
	if !p.redact {
		h.loggedErr.err = h.err
	}
	attrs = append(attrs, slog.Any("error", &h.loggedErr))
	if p.redact {
		// What redaction leaves of the error's shape: its Go types.
		attrs = append(attrs, slog.String("error_types", h.facts.typeNames()))
	}
	if h.transformed {
		attrs = append(attrs, slog.String("original_error", p.text(h.orig)))
	}
	if h.filterErr != nil {
		attrs = append(attrs, slog.String("filter_error", p.text(h.filterErr)))
	}
	if !p.redact && h.refused != nil {
		attrs = append(attrs, slog.Attr{Key: "fields", Value: logView(validationView{h.refused})})
	} else if !p.redact {
		if v := h.logValuer(); v != nil {
			attrs = append(attrs, slog.Attr{Key: "fields", Value: logView(v)})
		}
	}
	if len(e.Hints) > 0 {
		attrs = append(attrs, slog.Any("hints", e.Hints))
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
	return bound(string(redact.Sprint(err).Redact()), maxLogValue)
}

// stackOf returns the stack of a panic, or the detailed form (%+v) of the
// first fmt.Formatter in the error chain, as the errors of
// cockroachdb/errors and pkg/errors are, whose detailed form holds their
// stacks, however deep a plain fmt.Errorf put it; "" when there is neither.
func (p *Pipeline) stackOf(h *handling) (s string) {
	defer func() {
		if recover() != nil {
			s = ""
		}
	}()
	if h.facts.panicked || h.facts.custom || h.filterErr != nil {
		if stack := panicStack(h); stack != nil {
			return bound(string(stack), maxLogValue)
		}
	}
	e := h.facts.formatter
	if e == nil {
		return ""
	}
	if p.redact {
		return bound(string(redact.Sprintf("%+v", e).Redact()), maxLogValue)
	}
	return bound(fmt.Sprintf("%+v", e), maxLogValue)
}

// panicStack returns the stack of a panic in the error handled or in a
// filter's failure, or nil.
func panicStack(h *handling) []byte {
	var pe *PanicError
	if (h.facts.panicked || h.facts.custom) && errors.As(h.err, &pe) || h.filterErr != nil && errors.As(h.filterErr, &pe) {
		return pe.Stack
	}
	return nil
}

// logValuer returns the first slog.LogValuer in the chain of the error
// being handled, the log view of a domain error, or nil.
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

func (e *loggedError) Error() string { return e.text }
func (e *loggedError) Unwrap() error { return e.err }
