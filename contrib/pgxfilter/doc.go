// Package pgxfilter is an mcperr filter pack for PostgreSQL through pgx
// (github.com/jackc/pgx/v5): it answers the errors the server reports, by
// their SQLSTATE, and the failures of pgx's connections with what the
// model should read, and passes every other error on.
//
// Give New to a pipeline for every tool, with the kind of record each
// tool reads, or to one tool, with a constraint the application answers
// its own way:
//
//	pack, err := pgxfilter.New(pgxfilter.Resource("get_order", "Order"))
//	...
//	pipeline, err := filter.New(filter.WithFilters(pack))
//	...
//	customers, err := pgxfilter.New(pgxfilter.Constraint("orders_customer_id_fkey",
//		filter.Response{Code: codes.NotFound, Message: "No such customer."}))
//	...
//	gosdk.AddTool(server, createOrder, h, filter.WithFilters(customers))
//
// New returns a *codes.DefinitionError for an option it cannot honour, such
// as a Constraint or a Resource without a name: check it where the server
// is defined.
//
// The server's errors are *pgconn.PgError values, found with errors.As
// however deeply they are wrapped, whether they come from pgx, pgxpool or
// database/sql through pgx's stdlib driver. The mapping, as the error,
// the code and retry advice, and what the model reads ("(ref)" marks a
// server error: the client also reads a ref, which names the one log
// record that keeps the original error):
//
//	23505 unique_violation: CONFLICT, no retry
//	    A record with this value already exists (constraint orders_ref_key); choose another value.
//	23P01 exclusion_violation: CONFLICT, no retry
//	    The record conflicts with an existing one (constraint bookings_during_excl); choose other values.
//	23503 foreign_key_violation, 23001 restrict_violation: BUSINESS_RULE_VIOLATION, no retry
//	    A referenced record does not exist, or other records still refer to this one
//	    (constraint orders_customer_id_fkey); check the identifiers in the arguments, or remove
//	    the referring records first.
//	23514 check_violation: VALIDATION_ERROR, no retry
//	    A value is not allowed by a rule of the database (constraint orders_quantity_check); check the arguments.
//	23502 not_null_violation: VALIDATION_ERROR, no retry
//	    A value is required for quantity; provide it.
//	22001, 22003, 22007, 22008, 22021, 22P02 (data exceptions a value causes): VALIDATION_ERROR, no retry
//	    A value is too long for the database (SQLSTATE 22001); check the values in the arguments.
//	40001 serialization_failure, 40P01 deadlock_detected: CONFLICT, retry
//	    The operation conflicted with a concurrent change (SQLSTATE 40P01); retry the call.
//	57014 query_canceled (statement_timeout): TIMEOUT (ref), retry
//	    The database stopped the statement before it finished, usually because it took too long
//	    (SQLSTATE 57014); retry the call, or ask for less at once.
//	55P03 lock_not_available (lock_timeout, NOWAIT): TIMEOUT (ref), retry
//	    A record the tool needs is locked by another operation (SQLSTATE 55P03); retry the call in a moment.
//	53300 too_many_connections, class 08 connection exceptions, 57P01 admin_shutdown,
//	57P02 crash_shutdown, 57P03 cannot_connect_now: UNAVAILABLE (ref), retry after 2 s
//	    The database is unavailable right now (SQLSTATE 53300); retry the call in a moment.
//	*pgconn.ConnectError (refused, timed out, broken off), or nothing sent (pgconn.SafeToRetry):
//	UNAVAILABLE (ref), retry after 2 s
//	    The database is unavailable right now; retry the call in a moment.
//	pgconn.ErrConnClosed after the statement may have reached the server: UNAVAILABLE (ref),
//	may have taken effect (retry after 2 s on a read-only or idempotent tool)
//	    The connection to the database was lost during the call, so a change it made may or may
//	    not have been saved.
//	pgconn.Timeout, a deadline of the application's own: TIMEOUT (ref), retry
//	    The database did not answer in time; retry the call.
//	    (The database did not answer in time. when it may have taken effect: not SafeToRetry)
//	pgx.ErrNoRows, or sql.ErrNoRows through database/sql: NOT_FOUND, no retry
//	    Order not found. (in a tool given Resource(tool, "Order"); details {"resourceType": "Order"})
//	    Record not found. (in any other tool)
//	any other SQLSTATE, any other error: passed on to the filters after it; the built-in
//	mapping masks it as INTERNAL_ERROR with a ref
//
// The data exceptions read: 22001 "A value is too long for the database",
// 22003 "A number is out of the range the database accepts", 22007 "A date
// or time is not in a form the database accepts", 22008 "A date or time is
// out of the range the database allows", 22021 "A text value holds bytes
// that are not valid characters", 22P02 "A value is not in the form its
// database type needs", each followed by " (SQLSTATE x); check the values
// in the arguments."
//
// A PgError in a ConnectError, as when the server refuses a connection
// with 53300, is answered by its SQLSTATE; one the mapping does not name,
// such as a failed authentication, is passed on.
//
// The details of an answer to a PgError hold the identifiers the server
// reports in their own fields, never values: {"sqlState": "23505",
// "table": "orders", "constraint": "orders_ref_key"}, and "column" where
// the server names one. A not-null violation's details also list the
// column as a violation, {"field": "quantity", "constraint": "is
// required", "reason": "required"}: the field is the column's name, which
// is the argument's only where the tool names them alike.
//
// A constraint, table or column name is sent, in the sentence and in the
// details, only when it is a plain SQL identifier: a letter or '_', then
// letters, digits, '_' or '$', at most 128 bytes (the rule of the
// sqlitefilter pack). The server's own names are such identifiers; but a
// function can put any text in these fields (RAISE ... USING ERRCODE =
// 'unique_violation', CONSTRAINT = ..., TABLE = ..., COLUMN = ...), and so
// can a quoted identifier. A name that is not an identifier is left out
// of both: the sentence reads as for an error without it ("A record with
// this value already exists; choose another value."). A Constraint still
// answers the constraint it names, whatever its name.
//
// What it never sends: the text of the error. PgError's Message, Detail,
// Hint, Where and InternalQuery hold the values of the rows and the query
// ("Key (ref)=(ord_42) already exists."); a ConnectError names the user,
// database and address. The messages are the pack's own fixed sentences
// with schema identifiers only; the log record keeps the original error
// whole.
//
// What it passes on, on purpose:
//
//   - Every other SQLSTATE: a syntax error, a missing table or column, a
//     permission refused, a failed authentication or an unknown database
//     while connecting, an exception raised by a function. These are faults
//     of the program or of its set-up, which the model cannot correct and a
//     retry does not cure; the built-in mapping masks them as
//     INTERNAL_ERROR, logged at error level with a ref. DATABASE_ERROR, which
//     mcperr registers as retryable, would invite retries that cannot
//     succeed. An application that raises its own SQLSTATEs (RAISE ...
//     USING ERRCODE) answers them with a filter.Catch of *pgconn.PgError
//     placed before this filter.
//   - A connection lost mid-statement without a word from the server (an
//     io.ErrUnexpectedEOF or a reset): pgx reports the network's own error,
//     not one of its own; the next use of that connection is answered
//     (pgconn.ErrConnClosed).
//   - Every error while the request's own context is done: the pipeline
//     answers it as the call being cancelled or out of time before any
//     filter runs, a statement cancelled with its context that comes back
//     from the server as 57014 included.
//
// A missing row reads the same as in the sqlfilter and sqlitefilter
// packs: "Record not found.", or "Order not found." with the details
// {"resourceType": "Order"} in a tool that Resource says reads orders. The
// filter goes by the tool called (filter.Call.Tool), so it answers the
// same whether it is global or bound to one tool.
//
// On retries: a serialization failure or a deadlock rolled the transaction
// back, so running the call again usually succeeds. A connection closed
// after the statement may have reached the server (pgconn.ErrConnClosed
// that pgconn.SafeToRetry does not vouch for) is not retryable, so that a
// change is not made twice. pgx's "conn busy", one connection used by two
// goroutines at once, is a fault of the program that pgx reports as safe
// to retry: it reads as UNAVAILABLE too, and the log record says conn busy.
package pgxfilter
