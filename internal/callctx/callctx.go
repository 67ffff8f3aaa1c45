// Package callctx carries what mcperr knows of one request in the context
// its handler runs with: the request's id, minted on first use, and the
// adapter's state for the server that serves it. The adapters put it there;
// filter reads the request id from it.
package callctx

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"

	"github.com/google/uuid"
)

// key is the context key of a *Call.
type key struct{}

// Call is the context of one request served by mcperr: the parent context,
// plus its request id and the adapter's state. One allocation a request.
type Call struct {
	context.Context
	// State is the adapter's state for the server serving the request.
	State any

	once sync.Once
	id   string
	// Exited is set once a handler's runtime.Goexit has been logged, so
	// that outer layers of the same call do not log it again.
	Exited bool
	// Arguments, when set, says how the arguments of the call do not fit
	// the tool's input schema (a *domain.Validation), or returns nil. The
	// adapter sets it before it hands a failure to the pipeline, which asks
	// it only for a failure it would otherwise mask.
	Arguments func() error
}

// Value returns c for the key of this package, and asks the parent
// otherwise.
func (c *Call) Value(k any) any {
	if _, ok := k.(key); ok {
		return c
	}
	return c.Context.Value(k)
}

// RequestID returns the id of the request, minting it the first time.
func (c *Call) RequestID() string {
	c.once.Do(func() { c.id = NewID() })
	return c.id
}

// With returns a context for one request served with state: ctx itself if
// it carries a Call with the same state already, as under an adapter's
// middleware, so that a wrapped handler inside it costs nothing more.
func With(ctx context.Context, state any) context.Context {
	if ctx == nil {
		ctx = context.Background()
	}
	if c := From(ctx); c != nil && (state == nil || c.State == state) {
		return ctx
	}
	return &Call{Context: ctx, State: state}
}

// From returns the Call of ctx, or nil.
func From(ctx context.Context) *Call {
	if ctx == nil {
		return nil
	}
	c, _ := ctx.Value(key{}).(*Call)
	return c
}

// NewID returns a new request id: a UUID of version 7 (RFC 9562), which
// sorts by the time it was made, in its 36-character form.
func NewID() string {
	id, err := uuid.NewV7()
	if err != nil {
		// crypto/rand does not fail; keep the request answerable anyway.
		var b [16]byte
		_, _ = rand.Read(b[:])
		return hex.EncodeToString(b[:])
	}
	return id.String()
}
