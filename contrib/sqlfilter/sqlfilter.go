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

// notFoundText is what the model reads of a missing row in a tool no
// Resource names.
const notFoundText = "Record not found."

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
	return &sqlFilter{resources: c.resources}, nil
}

// sqlFilter is the filter New returns.
type sqlFilter struct {
	resources map[string]string // the kind of record each tool reads
}

// Catch answers sql.ErrNoRows, sql.ErrConnDone and driver.ErrBadConn, and
// passes every other error on. A request whose own context has ended never
// reaches it: the pipeline answers CANCELLED or TIMEOUT first.
func (f *sqlFilter) Catch(_ context.Context, call filter.Call, err error) (*filter.Response, error) {
	r := f.answer(call.Tool, err)
	if r == nil {
		return nil, nil
	}
	return r, nil
}

// answer returns the response to err in the tool called tool, or nil if
// err is not the pack's.
func (f *sqlFilter) answer(tool string, err error) *filter.Response {
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return f.notFound(tool)
	case errors.Is(err, sql.ErrConnDone), errors.Is(err, driver.ErrBadConn):
		retry := true
		return &filter.Response{Code: codes.Unavailable, Message: unavailableText, Retryable: &retry, RetryAfter: unavailableRetryAfter}
	}
	return nil
}

// notFound returns the answer to a missing row in the tool called tool:
// it names the kind of record a Resource gave for the tool.
func (f *sqlFilter) notFound(tool string) *filter.Response {
	name, ok := f.resources[tool]
	if !ok {
		return &filter.Response{Code: codes.NotFound, Message: notFoundText}
	}
	return &filter.Response{Code: codes.NotFound, Message: name + " not found.",
		Details: map[string]any{"resourceType": name}}
}
