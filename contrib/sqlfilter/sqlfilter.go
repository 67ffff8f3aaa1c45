package sqlfilter

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"time"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
)

// unavailableRetryAfter is how long the client is told to wait before it
// retries a call that failed because the database connection was gone.
const unavailableRetryAfter = 2 * time.Second

// unavailableText is what the model reads when the connection was gone.
const unavailableText = "The database is unavailable right now; retry the call in a moment."

// New returns a filter that answers the errors of database/sql, as the
// package documentation lists them, and passes every other error on.
//
// An option New cannot honour (see Resource) makes it return a
// *codes.DefinitionError that says what to fix, and no filter: call New
// where the server is defined, so that the mistake stops it at start-up.
func New(opts ...Option) (filter.Filter, error) {
	var c config
	for _, opt := range opts {
		if opt != nil {
			opt(&c)
		}
	}
	if c.err != nil {
		return nil, c.err
	}
	f := &sqlFilter{notFound: filter.Response{Code: codes.NotFound, Message: "Record not found."}}
	if c.resource != "" {
		f.notFound.Message = c.resource + " not found."
		f.notFound.Details = map[string]any{"resourceType": c.resource}
	}
	return f, nil
}

// sqlFilter is the filter New returns.
type sqlFilter struct {
	notFound filter.Response
}

// Catch answers sql.ErrNoRows, sql.ErrConnDone and driver.ErrBadConn, and
// passes every other error on.
//
// While the request's own context is done, it answers nothing: it passes
// on the error it would have answered joined with the context's error, so
// that the pipeline answers CANCELLED or TIMEOUT.
func (f *sqlFilter) Catch(ctx context.Context, _ filter.Call, err error) (*filter.Response, error) {
	r := f.answer(err)
	if r == nil {
		return nil, nil
	}
	if ctx != nil {
		if done := ctx.Err(); done != nil {
			return nil, requestEnded(err, done)
		}
	}
	return r, nil
}

// answer returns the response to err, or nil if err is not the pack's.
func (f *sqlFilter) answer(err error) *filter.Response {
	switch {
	case errors.Is(err, sql.ErrNoRows):
		r := f.notFound
		return &r
	case errors.Is(err, sql.ErrConnDone), errors.Is(err, driver.ErrBadConn):
		retry := true
		return &filter.Response{Code: codes.Unavailable, Message: unavailableText, Retryable: &retry, RetryAfter: unavailableRetryAfter}
	}
	return nil
}

// requestEnded returns err joined with done, the error of the request's
// own context, so that the pipeline finds the context's error in the
// chain; nil, passing err on as it is, when the chain holds it already.
func requestEnded(err, done error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return nil
	}
	return fmt.Errorf("%w (the request ended: %w)", err, done)
}
