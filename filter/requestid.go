package filter

import (
	"context"
	"sync"

	"github.com/google/uuid"
)

// requestIDKey is the context key of a request id.
type requestIDKey struct{}

// idContext is a context that carries a request id, minted on first use
// when it has none: one allocation a request, and a uuid only for those
// that need one.
type idContext struct {
	context.Context
	once sync.Once
	id   string
}

// Value returns c for the request id key, and asks the parent otherwise.
func (c *idContext) Value(key any) any {
	if _, ok := key.(requestIDKey); ok {
		return c
	}
	return c.Context.Value(key)
}

// requestID returns the id, minting one the first time if there is none.
func (c *idContext) requestID() string {
	c.once.Do(func() {
		if c.id == "" {
			c.id = NewRequestID()
		}
	})
	return c.id
}

// ContextWithRequestID returns a copy of ctx that carries id as the id of
// the request it serves. Adapters call it for every request: with the
// JSON-RPC id where the SDK exposes it, and with "" where it does not, in
// which case a new id (NewRequestID) is minted the first time one is asked
// for, so that a request that never fails and never asks pays no more than
// the context.
//
// A ctx that carries an id already is returned as it is when id is "" or
// that same id, so that an adapter's wrapper under its middleware costs
// nothing more.
func ContextWithRequestID(ctx context.Context, id string) context.Context {
	if ctx == nil {
		ctx = context.Background()
	}
	if c, ok := ctx.Value(requestIDKey{}).(*idContext); ok && (id == "" || c.requestID() == id) {
		return ctx
	}
	return &idContext{Context: ctx, id: id}
}

// RequestIDFromContext returns the id of the request ctx serves, as the
// adapter put it there: the JSON-RPC id of the request on mcp-go, a
// time-ordered UUID minted for it on go-sdk, whose handlers cannot see the
// JSON-RPC id. It is the id in the envelope's requestId and the log
// record's request_id of every failure of that request. It returns "" for
// a context that no adapter prepared.
func RequestIDFromContext(ctx context.Context) string {
	if ctx == nil {
		return ""
	}
	if c, ok := ctx.Value(requestIDKey{}).(*idContext); ok {
		return c.requestID()
	}
	return ""
}

// NewRequestID returns a new request id: a UUID of version 7, which sorts
// by the time it was made (RFC 9562), in its 36-character text form.
func NewRequestID() string {
	id, err := uuid.NewV7()
	if err != nil {
		// crypto/rand does not fail since Go 1.24; should a custom
		// uuid random source, keep the request answerable.
		return "req-" + newRef()
	}
	return id.String()
}
