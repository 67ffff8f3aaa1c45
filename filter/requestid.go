package filter

import (
	"context"
	"log/slog"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/internal/callctx"
	"github.com/mcperr/mcperr/internal/nilness"
)

// RequestIDFromContext returns the id of the request ctx serves: a UUID of
// version 7, unique across sessions, servers and restarts, minted the
// first time it is asked for. The adapters give every tools/call,
// resources/read, prompts/get and completion/complete one; the envelope's
// requestId and the log record's request_id of every failure of that
// request carry it. It returns "" for a context that no adapter prepared.
func RequestIDFromContext(ctx context.Context) string {
	if c := callctx.From(ctx); c != nil {
		return c.RequestID()
	}
	return ""
}

// LogHandler returns a slog.Handler that adds to every record logged with
// the context of a request that mcperr serves what the pipeline's own
// records say of it: request_id, the tool, resource, prompt or completion
// (under the key "tool", "resource", "prompt" or "completion"), and
// session_id where the session has one. Other records pass to next as they
// are, and so do records that have a request_id already, such as the
// pipeline's own. It is how a handler's own log lines join the failure's:
//
//	logger := slog.New(filter.LogHandler(slog.NewJSONHandler(os.Stderr, nil)))
//	...
//	logger.InfoContext(ctx, "querying replica", "replica", name) // inside a tool handler
//
// The request must be served under the adapter's Install; the attributes
// go where the record's other attributes go, inside any group of next.
//
// Like regexp.MustCompile, LogHandler panics with a *codes.DefinitionError,
// at start-up, if next is nil: a nil handler would panic at the first
// record instead.
func LogHandler(next slog.Handler) slog.Handler {
	if nilness.IsNil(next) {
		panic(&codes.DefinitionError{Mistake: codes.NilValue,
			Reason: "filter.LogHandler needs the slog.Handler that writes the records, such as slog.NewJSONHandler(os.Stderr, nil)"})
	}
	return logHandler{next}
}

// logHandler is the slog.Handler of LogHandler: Enabled is next's.
type logHandler struct{ slog.Handler }

func (h logHandler) Handle(ctx context.Context, r slog.Record) error {
	c := callctx.From(ctx)
	if c == nil || hasRequestID(r) {
		return h.Handler.Handle(ctx, r)
	}
	r = r.Clone()
	r.AddAttrs(slog.String("request_id", c.RequestID()))
	if c.Kind != "" {
		r.AddAttrs(slog.String(c.Kind, bound(c.Target, 256)))
	}
	if c.SessionID != "" {
		r.AddAttrs(slog.String("session_id", bound(c.SessionID, 256)))
	}
	return h.Handler.Handle(ctx, r)
}

func (h logHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return logHandler{h.Handler.WithAttrs(attrs)}
}

func (h logHandler) WithGroup(name string) slog.Handler {
	return logHandler{h.Handler.WithGroup(name)}
}

// hasRequestID reports whether r has a top-level request_id attribute.
func hasRequestID(r slog.Record) (found bool) {
	r.Attrs(func(a slog.Attr) bool {
		found = a.Key == "request_id"
		return !found
	})
	return found
}
