package sqlitefilter

import (
	"context"
	"database/sql"
	"errors"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
)

// The pack's sentences, which the model reads, where SQLite names nothing
// that can be sent.
const (
	conflictText      = "A record with this value already exists; choose another value."
	foreignKeyText    = "A referenced record does not exist, or other records still refer to this one; check the identifiers in the arguments, or remove the referring records first."
	checkText         = "A value is not allowed by a rule of the database; check the arguments."
	notNullText       = "A required value is missing; provide it."
	notNullConstraint = "is required"
	busyText          = "The database is locked by another operation; retry the call in a moment."
	notFoundText      = "Record not found."
)

// What SQLite writes before the identifiers of a violation.
const (
	uniqueMarker  = "UNIQUE constraint failed: "
	checkMarker   = "CHECK constraint failed: "
	notNullMarker = "NOT NULL constraint failed: "
)

// primaryCodeMask keeps the primary result code of an extended one.
const primaryCodeMask = 0xff

// New returns a filter that answers modernc.org/sqlite's *sqlite.Error, as
// the package documentation lists them, and passes every other error on.
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
	return &sqliteFilter{constraints: c.constraints, resources: c.resources}, nil
}

// sqliteFilter is the filter New returns.
type sqliteFilter struct {
	constraints map[string]filter.Response
	resources   map[string]string // the kind of record each tool reads
}

// Catch answers the *sqlite.Error in err's chain by its extended result
// code, and sql.ErrNoRows as a missing record of the tool called, and
// passes every other error on. A request whose own context has ended never
// reaches it: the pipeline answers CANCELLED or TIMEOUT first.
func (f *sqliteFilter) Catch(_ context.Context, call filter.Call, err error) (*filter.Response, error) {
	r := f.answer(call.Tool, err)
	if r == nil {
		return nil, nil
	}
	return r, nil
}

// answer returns the response to err in the tool called tool, or nil if
// err is not the pack's.
func (f *sqliteFilter) answer(tool string, err error) *filter.Response {
	var e *sqlite.Error
	if !errors.As(err, &e) || e == nil {
		if errors.Is(err, sql.ErrNoRows) {
			return f.notFound(tool)
		}
		return nil
	}
	switch e.Code() {
	case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY, sqlite3.SQLITE_CONSTRAINT_ROWID:
		u := parseUnique(e)
		if r, ok := f.constraint(u.name); ok {
			return r
		}
		return u.response()
	case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
		return &filter.Response{Code: codes.BusinessRuleViolation, Message: foreignKeyText}
	case sqlite3.SQLITE_CONSTRAINT_CHECK:
		name := parseCheck(e)
		if r, ok := f.constraint(name); ok {
			return r
		}
		if name == "" {
			return &filter.Response{Code: codes.ValidationError, Message: checkText}
		}
		return &filter.Response{
			Code:    codes.ValidationError,
			Message: "A value is not allowed by a rule of the database (constraint " + name + "); check the arguments.",
			Details: map[string]any{"constraint": name},
		}
	case sqlite3.SQLITE_CONSTRAINT_NOTNULL:
		column := parseNotNull(e)
		if column == "" {
			return &filter.Response{Code: codes.ValidationError, Message: notNullText}
		}
		return &filter.Response{
			Code:    codes.ValidationError,
			Message: "A value is required for " + column + "; provide it.",
			Details: map[string]any{"violations": []map[string]any{
				{"field": column, "constraint": notNullConstraint, "reason": "required"},
			}},
		}
	}
	switch e.Code() & primaryCodeMask {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		retry := true
		return &filter.Response{Code: codes.Timeout, Message: busyText, Retryable: &retry}
	}
	return nil
}

// notFound returns the answer to a missing row in the tool called tool:
// it names the kind of record a Resource gave for the tool.
func (f *sqliteFilter) notFound(tool string) *filter.Response {
	name, ok := f.resources[tool]
	if !ok {
		return &filter.Response{Code: codes.NotFound, Message: notFoundText}
	}
	return &filter.Response{Code: codes.NotFound, Message: name + " not found.",
		Details: map[string]any{"resourceType": name}}
}

// constraint returns the application's answer to the constraint SQLite
// named name, if it gave one.
func (f *sqliteFilter) constraint(name string) (*filter.Response, bool) {
	if name == "" {
		return nil, false
	}
	r, ok := f.constraints[name]
	if !ok {
		return nil, false
	}
	return &r, true
}
