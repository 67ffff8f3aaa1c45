package filter

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/cockroachdb/redact"
)

// log writes the one record of a handled failure: at error level for server
// errors, warn for hand-built results, info for the rest; to the last-resort
// handler, with the reason, if the logger's handler panics or fails.
func (p *Pipeline) log(ctx context.Context, h *handling, f *Failure, server bool) {
	level := slog.LevelInfo
	switch {
	case h.retry > 0 && server:
		level = slog.LevelWarn // the tool is called again: the call may still succeed
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
	attrs := p.attrs(buf[:0], h, f)
	rec := slog.NewRecord(time.Now(), level, logMessageOf(h.call), 0)
	rec.AddAttrs(attrs...)
	if err := handle(ctx, handler, rec); err != nil {
		rec.AddAttrs(slog.String("log_handler_error", bound(err.Error(), maxLogValue)))
		_ = handle(ctx, p.lastHandler(), rec) // nothing is left to try
	}
	// Set only now: a handler that calls runtime.Goexit leaves it unset, and
	// the last resort writes the record instead.
	h.logged = true
}

// handler returns the handler of the pipeline's logger, or of slog.Default
// as it is now.
func (p *Pipeline) handler() slog.Handler { return cmp.Or(p.logger, slog.Default()).Handler() }

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

// attrs appends to attrs (on the caller's stack) the record's attributes.
func (p *Pipeline) attrs(attrs []slog.Attr, h *handling, f *Failure) []slog.Attr {
	e := &f.Envelope
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
	if h.attempt > 1 || h.retry > 0 || h.wouldRetry {
		attrs = append(attrs, slog.Int("attempt", h.attempt))
	}
	if h.retry > 0 {
		attrs = append(attrs, slog.Duration("retry_in", h.retry))
	}
	if h.wouldRetry {
		attrs = append(attrs, slog.Bool("would_retry", true))
	}
	// The message the client reads anyway, kept beside a redacted error;
	// never a hand-built result's text, which is the error itself.
	shown := !h.handBuilt || h.masked
	if h.reportOnly {
		attrs = append(attrs, slog.Bool("report_only", true), slog.Bool("masked", h.masked))
		if shown || !p.redact {
			attrs = append(attrs, slog.String("would_send", bound(e.Message, maxLogValue)))
		}
	} else if p.redact && !h.masked && shown {
		attrs = append(attrs, slog.String("message", bound(e.Message, maxLogValue)))
	}
	if h.notRetried != "" {
		attrs = append(attrs, slog.String("not_retried", h.notRetried))
	}
	attrs = append(attrs, slog.Any("error", &f.logged))
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
	if !p.redact {
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

// stackOf returns the stack of a panic, or the %+v of the chain's first
// fmt.Formatter, where cockroachdb/errors and pkg/errors keep theirs.
func (p *Pipeline) stackOf(h *handling) string {
	return noPanic(func() string {
		if ofErr := h.facts.panicked || h.facts.custom; ofErr || h.filterErr != nil {
			var pe *PanicError // allocated only here
			if (ofErr && errors.As(h.err, &pe) || h.filterErr != nil && errors.As(h.filterErr, &pe)) && pe.Stack != nil {
				return bound(string(pe.Stack), maxLogValue)
			}
		}
		switch e := h.facts.formatter; {
		case e == nil:
			return ""
		case p.redact:
			return bound(string(redact.Sprintf("%+v", e).Redact()), maxLogValue)
		default:
			return bound(fmt.Sprintf("%+v", e), maxLogValue)
		}
	})
}

// logValuer returns the log view of the arguments' refusal, or of the
// first error in the chain that has one, or nil.
func (h *handling) logValuer() slog.LogValuer {
	switch {
	case h.refused != nil:
		return validationView{h.refused}
	case !h.facts.custom:
		return h.facts.valuer
	}
	return noPanic(func() slog.LogValuer {
		var lv logValuerError
		if errors.As(h.err, &lv) {
			return lv
		}
		return nil
	})
}

// loggedError is a record's "error", for handlers that read one (such as
// OpenTelemetry's, Sentry's); under redaction it unwraps to nothing.
type loggedError struct {
	text string
	err  error
}

func (e *loggedError) Error() string { return e.text }
func (e *loggedError) Unwrap() error { return e.err }
