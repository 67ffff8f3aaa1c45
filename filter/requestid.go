package filter

import (
	"context"
	"log/slog"
	"strings"
	"sync"

	"github.com/google/uuid"

	"github.com/mcperr/mcperr/codes"
)

// RequestIDFromContext returns the id of the request ctx serves: a UUID of
// version 7, unique across sessions, servers and restarts, minted the
// first time it is asked for. Serve gives every request it runs one,
// unless its Call names one; the envelope's requestId and the log record's
// request_id of every failure of that request carry it. It returns "" for
// a context that Serve did not prepare.
func RequestIDFromContext(ctx context.Context) string {
	if c := callOf(ctx); c != nil {
		return c.requestID()
	}
	return ""
}

type callKey struct{}

// callContext is the context Serve gives a request's handler: its parent,
// what the request serves, for LogHandler, and the request's id, minted on
// first use. One allocation a request.
type callContext struct {
	context.Context
	call Call
	once sync.Once
}

func (c *callContext) Value(k any) any {
	if _, ok := k.(callKey); ok {
		return c
	}
	return c.Context.Value(k)
}

func (c *callContext) requestID() string {
	c.once.Do(func() {
		if c.call.RequestID == "" {
			c.call.RequestID = newID()
		}
	})
	return c.call.RequestID
}

func callOf(ctx context.Context) *callContext {
	if ctx == nil {
		return nil
	}
	c, _ := ctx.Value(callKey{}).(*callContext)
	return c
}

// enter returns the context of one request that Serve runs.
func (p *Pipeline) enter(ctx context.Context, call Call) *callContext {
	if ctx == nil {
		ctx = context.Background()
	}
	return &callContext{Context: ctx, call: call}
}

// newID returns a new request id: a UUID of version 7 (RFC 9562), which
// sorts by the time it was made, in its 36-character form.
func newID() string {
	if id, err := uuid.NewV7(); err == nil {
		return id.String()
	}
	return newRef() + newRef() // crypto/rand does not fail; keep the request answerable anyway
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
	if isNil(next) {
		panic(&codes.DefinitionError{Mistake: codes.NilValue,
			Reason: "filter.LogHandler needs the slog.Handler that writes the records, such as slog.NewJSONHandler(os.Stderr, nil)"})
	}
	return logHandler{next}
}

// logHandler is the slog.Handler of LogHandler: Enabled is next's.
type logHandler struct{ slog.Handler }

func (h logHandler) Handle(ctx context.Context, r slog.Record) error {
	c := callOf(ctx)
	if c == nil || hasRequestID(r) {
		return h.Handler.Handle(ctx, r)
	}
	r = r.Clone()
	r.AddAttrs(slog.String("request_id", c.requestID()))
	if noun, target := c.call.subject(); target != "" || noun != "completion" {
		r.AddAttrs(slog.String(strings.Fields(noun)[0], bound(target, 256)))
	}
	if c.call.SessionID != "" {
		r.AddAttrs(slog.String("session_id", bound(c.call.SessionID, 256)))
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
