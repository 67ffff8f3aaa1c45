package filter

import (
	"context"

	"github.com/mcperr/mcperr/internal/callctx"
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
