package filter

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	crdb "github.com/cockroachdb/errors"
	"github.com/cockroachdb/errors/assert"
	"github.com/cockroachdb/errors/issuelink"
	"github.com/cockroachdb/redact"
)

// logMessage is the message of every record the pipeline writes.
const logMessage = "tool call failed"

// log writes the one record of a handled error: at error level for server
// errors, at info level for client and business ones.
func (p *Pipeline) log(ctx context.Context, h *handling, r *Response, server bool) {
	logger := p.logger
	if logger == nil {
		logger = slog.Default()
	}
	level := slog.LevelInfo
	if server {
		level = slog.LevelError
	}
	if !logger.Enabled(ctx, level) {
		return
	}
	attrs := make([]slog.Attr, 0, 12+len(h.attrs))
	attrs = append(attrs, slog.String("tool", h.call.Tool), slog.String("code", r.Code.String()))
	if r.Ref != "" {
		attrs = append(attrs, slog.String("ref", r.Ref))
	}
	if h.call.RequestID != "" {
		attrs = append(attrs, slog.String("request_id", h.call.RequestID))
	}
	if h.call.SessionID != "" {
		attrs = append(attrs, slog.String("session_id", h.call.SessionID))
	}
	attrs = append(attrs, slog.String("error", p.text(h.err)))
	if h.err != h.orig {
		attrs = append(attrs, slog.String("original_error", p.text(h.orig)))
	}
	if h.filterErr != nil {
		attrs = append(attrs, slog.String("filter_error", p.text(h.filterErr)))
	}
	if !p.redact {
		if v, ok := logValuerOf(h.err); ok {
			attrs = append(attrs, slog.Any("fields", v))
		}
	}
	if len(r.Hints) > 0 {
		attrs = append(attrs, slog.Any("hints", r.Hints))
	}
	if stack := p.stackOf(h); stack != "" {
		attrs = append(attrs, slog.String("stack", stack))
	}
	attrs = append(attrs, h.attrs...)
	logger.LogAttrs(ctx, level, logMessage, attrs...)
}

// text returns err's full text, redacted when the pipeline redacts.
func (p *Pipeline) text(err error) string {
	if p.redact {
		return string(redact.Sprint(err).Redact())
	}
	return err.Error()
}

// stackOf returns the stack of a panic, or the detailed form of an error
// that carries a cockroachdb/errors stack; "" when there is none.
func (p *Pipeline) stackOf(h *handling) string {
	var pe *PanicError
	if errors.As(h.err, &pe) || errors.As(h.filterErr, &pe) {
		return string(pe.Stack)
	}
	if crdb.GetReportableStackTrace(h.err) == nil {
		return ""
	}
	if p.redact {
		return string(redact.Sprintf("%+v", h.err).Redact())
	}
	return fmt.Sprintf("%+v", h.err)
}

// logValuerOf returns the first slog.LogValuer in err's chain, the log view
// of a domain error or ToolError.
func logValuerOf(err error) (slog.LogValuer, bool) {
	var v interface {
		error
		slog.LogValuer
	}
	if errors.As(err, &v) {
		return v, true
	}
	return nil, false
}

// hintsOf returns the hints in err's chain that were written for a user:
// those of errors.WithHint and ToolError.WithHint, without the standard
// hints cockroachdb/errors adds to its assertion and unimplemented errors,
// which point at its own issue tracker.
func hintsOf(err error) []string {
	hints := crdb.GetAllHints(err)
	out := hints[:0]
	for _, h := range hints {
		if strings.HasPrefix(h, assert.AssertionErrorHint) || strings.HasPrefix(h, issuelink.UnimplementedErrorHint) {
			continue
		}
		out = append(out, h)
	}
	return out
}
