package sqlfilter

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
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
// New returns nil if an option is invalid (see Resource); the pipeline's
// filter.WithGlobalFilters and the adapters' WithFilters refuse a nil
// filter with a definition error, at start-up.
func New(opts ...Option) filter.Filter {
	var c config
	for _, opt := range opts {
		if opt != nil {
			opt(&c)
		}
	}
	if c.bad {
		return nil
	}
	f := &sqlFilter{notFound: filter.Response{Code: codes.NotFound, Message: "Record not found."}}
	if c.resource != "" {
		f.notFound.Message = c.resource + " not found."
		f.notFound.Details = map[string]any{"resourceType": c.resource}
	}
	return f
}

// sqlFilter is the filter New returns.
type sqlFilter struct {
	notFound filter.Response
}

// Catch answers sql.ErrNoRows, sql.ErrConnDone and driver.ErrBadConn, and
// passes every other error on, as it does every error of a request whose
// context is done.
func (f *sqlFilter) Catch(ctx context.Context, _ filter.Call, err error) (*filter.Response, error) {
	if ctx != nil && ctx.Err() != nil {
		return nil, nil // the pipeline's: CANCELLED or TIMEOUT
	}
	switch {
	case errors.Is(err, sql.ErrNoRows):
		r := f.notFound
		return &r, nil
	case errors.Is(err, sql.ErrConnDone), errors.Is(err, driver.ErrBadConn):
		retry := true
		return &filter.Response{Code: codes.Unavailable, Message: unavailableText, Retryable: &retry, RetryAfter: unavailableRetryAfter}, nil
	}
	return nil, nil
}
