// Package sqlfilter is an mcperr filter pack for database/sql: it answers
// the errors that database/sql itself defines, the same for every driver,
// with what the model should read.
//
// Give New to a pipeline for every tool, with the kind of record each
// tool reads, so that a missing row names it:
//
//	pack, err := sqlfilter.New(
//		sqlfilter.Resource("get_order", "Order"),
//		sqlfilter.Resource("get_customer", "Customer"),
//	)
//	...
//	pipeline, err := filter.New(filter.WithFilters(pack))
//
// The filter goes by the tool called (filter.Call.Tool): a missing row in
// get_order reads "Order not found.", in a tool no Resource names "Record
// not found.", whether the filter is global or bound to one tool.
//
// New returns a *codes.DefinitionError for an option it cannot honour, a
// Resource without a tool or a name, or a tool given twice: check it where
// the server is defined.
//
// The mapping:
//
//	error                              | code        | what the model reads                                                                       | retry
//	-----------------------------------+-------------+--------------------------------------------------------------------------------------------+---------------
//	sql.ErrNoRows                      | NOT_FOUND   | "Order not found." in a tool given Resource(tool, "Order"), else "Record not found."      | no
//	sql.ErrConnDone, driver.ErrBadConn | UNAVAILABLE | "The database is unavailable right now; retry the call in a moment."                      | yes, after 2 s
//	anything else                      | (passed on) | what the filters after it, or the built-in mapping, answer                                |
//
// A named missing row's details are {"resourceType": "Order"}; the generic
// one has none.
//
// The error may be wrapped any number of times (fmt.Errorf with %w): New
// finds these errors with errors.Is.
//
// What it never sends: any text of the error. The messages are the pack's
// own fixed sentences; a wrapped error's text, which often holds the
// values of the query, stays in the log record, which keeps the original
// error whole. An UNAVAILABLE answer is a server error: the client gets a
// ref that names that record.
//
// What it passes on, on purpose:
//
//   - sql.ErrTxDone, a transaction used after its commit or rollback, is a
//     mistake in the program, not a state the model can change: the
//     built-in mapping masks it as INTERNAL_ERROR with a ref.
//   - A closed *sql.DB ("sql: database is closed") has no exported error
//     value to find, and an application closes its pool only as it stops:
//     masked the same way.
//   - Every error while the request's own context is done: the pipeline
//     answers it as the call being cancelled or out of time before any
//     filter runs.
//
// The drivers' own errors (constraint violations, lock timeouts, lost
// connections) are the business of the driver's pack: sqlitefilter for
// modernc.org/sqlite, pgxfilter for PostgreSQL through pgx. Each of those
// answers a missing row too, with the same words and the same Resource
// option, so that a server that uses one of them alone names its missing
// rows as this pack does.
package sqlfilter
