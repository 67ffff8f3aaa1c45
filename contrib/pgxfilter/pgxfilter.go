package pgxfilter

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
)

// unavailableRetryAfter is how long the client is told to wait before it
// retries a call that failed because the database could not be reached
// or refused new work.
const unavailableRetryAfter = 2 * time.Second

// The pack's fixed sentences for the failures that have no SQLSTATE.
const (
	unavailableText = "The database is unavailable right now; retry the call in a moment."
	lostText        = "The connection to the database was lost during the call, so a change it made may or may not have been saved."
	timeoutText     = "The database did not answer in time; retry the call."
	timeoutSentText = "The database did not answer in time."
	notFoundText    = "Record not found."
)

// New returns a filter that answers the errors of PostgreSQL and of pgx's
// connections, as the package documentation's table says, and passes
// every other error on.
//
// An option New cannot honour (see Constraint) makes it return a
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
	return &pgxFilter{constraints: c.constraints, resources: c.resources}, nil
}

// pgxFilter is the filter New returns.
type pgxFilter struct {
	constraints map[string]filter.Response
	resources   map[string]string // the kind of record each tool reads
}

// Catch answers err if it is, or wraps, an error the package documentation
// lists, and passes every other error on. A request whose own context has
// ended never reaches it: the pipeline answers CANCELLED or TIMEOUT first.
func (f *pgxFilter) Catch(_ context.Context, call filter.Call, err error) (*filter.Response, error) {
	r := f.answer(call.Tool, err)
	if r == nil {
		return nil, nil
	}
	return r, nil
}

// answer returns the response to err in the tool called tool, or nil if
// err is not the pack's.
func (f *pgxFilter) answer(tool string, err error) *filter.Response {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		if pe == nil {
			return nil
		}
		return f.pgError(pe)
	}
	var ce *pgconn.ConnectError
	switch {
	case errors.Is(err, pgx.ErrNoRows), errors.Is(err, sql.ErrNoRows):
		// pgx's, or database/sql's through pgx's stdlib driver.
		return f.notFound(tool)
	case errors.As(err, &ce):
		// The server could not be reached, did not answer in time, or
		// broke off the start-up (a PgError in the chain is answered above).
		return unavailable(unavailableText)
	case pgconn.Timeout(err) && !errors.Is(err, context.Canceled):
		// A deadline of the application's own, shorter than the request's.
		if !pgconn.SafeToRetry(err) {
			// The statement may have run: the advice depends on the tool.
			r := retryable(codes.Timeout, timeoutSentText, 0)
			r.MayHaveTakenEffect = true
			return r
		}
		return retryable(codes.Timeout, timeoutText, 0)
	case errors.Is(err, pgconn.ErrConnClosed) && !pgconn.SafeToRetry(err):
		// The statement may have reached the server before the connection
		// went: calling again could make a change twice, unless the tool
		// only reads or is idempotent.
		r := unavailable(lostText)
		r.MayHaveTakenEffect = true
		return r
	case pgconn.SafeToRetry(err):
		// Nothing was sent: the connection was closed or failed first.
		return unavailable(unavailableText)
	}
	return nil
}

// notFound returns the answer to a missing row in the tool called tool:
// it names the kind of record a Resource gave for the tool.
func (f *pgxFilter) notFound(tool string) *filter.Response {
	name, ok := f.resources[tool]
	if !ok {
		return &filter.Response{Code: codes.NotFound, Message: notFoundText}
	}
	return &filter.Response{Code: codes.NotFound, Message: name + " not found.",
		Details: map[string]any{"resourceType": name}}
}

// pgError returns the response to an error the server sent, or nil for
// the SQLSTATEs the pack leaves to the filters after it.
func (f *pgxFilter) pgError(pe *pgconn.PgError) *filter.Response {
	state := pe.Code
	class := ""
	if len(state) == 5 {
		class = state[:2]
	}
	if class == "23" && pe.ConstraintName != "" {
		if r, ok := f.constraints[pe.ConstraintName]; ok {
			return &r
		}
	}
	// The names the server reports are sent only when they are plain
	// identifiers: a RAISE ... USING CONSTRAINT, TABLE or COLUMN, or a
	// quoted identifier, can carry any text.
	table, constraint, column := sendable(pe.TableName), sendable(pe.ConstraintName), sendable(pe.ColumnName)
	details := map[string]any{"sqlState": state}
	put := func(key, value string) {
		if value != "" {
			details[key] = value
		}
	}
	put("table", table)
	put("constraint", constraint)
	var r *filter.Response
	switch {
	case state == "23505": // unique_violation
		r = &filter.Response{Code: codes.Conflict,
			Message: "A record with this value already exists" + named("constraint", constraint) + "; choose another value."}
	case state == "23P01": // exclusion_violation
		r = &filter.Response{Code: codes.Conflict,
			Message: "The record conflicts with an existing one" + named("constraint", constraint) + "; choose other values."}
	case state == "23503", state == "23001": // foreign_key_violation, restrict_violation
		r = &filter.Response{Code: codes.BusinessRuleViolation,
			Message: "A referenced record does not exist, or other records still refer to this one" + named("constraint", constraint) +
				"; check the identifiers in the arguments, or remove the referring records first."}
	case state == "23514": // check_violation
		r = &filter.Response{Code: codes.ValidationError,
			Message: "A value is not allowed by a rule of the database" + named("constraint", constraint) + "; check the arguments."}
	case state == "23502": // not_null_violation
		put("column", column)
		r = &filter.Response{Code: codes.ValidationError, Message: "A required value is missing; provide it."}
		if column != "" {
			r.Message = "A value is required for " + column + "; provide it."
			details["violations"] = []map[string]any{{"field": column, "constraint": "is required", "reason": "required"}}
		}
	case dataExceptions[state] != "":
		put("column", column)
		r = &filter.Response{Code: codes.ValidationError,
			Message: dataExceptions[state] + " (SQLSTATE " + state + "); check the values in the arguments."}
	case state == "40001", state == "40P01": // serialization_failure, deadlock_detected
		r = retryable(codes.Conflict, "The operation conflicted with a concurrent change (SQLSTATE "+state+"); retry the call.", 0)
	case state == "57014": // query_canceled: statement_timeout, or cancelled by an operator
		r = retryable(codes.Timeout, "The database stopped the statement before it finished, usually because it took too long (SQLSTATE 57014); retry the call, or ask for less at once.", 0)
	case state == "55P03": // lock_not_available: lock_timeout, NOWAIT
		r = retryable(codes.Timeout, "A record the tool needs is locked by another operation (SQLSTATE 55P03); retry the call in a moment.", 0)
	case state == "53300", class == "08", state == "57P01", state == "57P02", state == "57P03":
		// too_many_connections, connection exceptions, admin_shutdown,
		// crash_shutdown, cannot_connect_now
		r = unavailable("The database is unavailable right now (SQLSTATE " + state + "); retry the call in a moment.")
	default:
		return nil
	}
	r.Details = details
	return r
}

// dataExceptions holds the sentences of the data exceptions (SQLSTATE
// class 22) that a value sent to the database causes.
var dataExceptions = map[string]string{
	"22001": "A value is too long for the database",                   // string_data_right_truncation
	"22003": "A number is out of the range the database accepts",      // numeric_value_out_of_range
	"22007": "A date or time is not in a form the database accepts",   // invalid_datetime_format
	"22008": "A date or time is out of the range the database allows", // datetime_field_overflow
	"22021": "A text value holds bytes that are not valid characters", // character_not_in_repertoire
	"22P02": "A value is not in the form its database type needs",     // invalid_text_representation
}

// named returns " (kind name)" to put in a sentence, or "" without a name.
func named(kind, name string) string {
	if name == "" {
		return ""
	}
	return " (" + kind + " " + name + ")"
}

// unavailable returns an UNAVAILABLE answer, retryable after a short wait.
func unavailable(msg string) *filter.Response {
	return retryable(codes.Unavailable, msg, unavailableRetryAfter)
}

// retryable returns a retryable answer.
func retryable(code codes.Code, msg string, after time.Duration) *filter.Response {
	yes := true
	return &filter.Response{Code: code, Message: msg, Retryable: &yes, RetryAfter: after}
}
