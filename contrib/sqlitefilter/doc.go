// Package sqlitefilter is an mcperr filter pack for SQLite through
// modernc.org/sqlite, the pure-Go driver: it answers the driver's
// *sqlite.Error, by its extended result code, with what the model should
// read.
//
//	pack, err := sqlitefilter.New(sqlitefilter.Resource("get_order", "Order"))
//	...
//	pipeline, err := filter.New(filter.WithFilters(pack))
//
// The mapping, as the error (its extended result code), the code and
// retry advice, and what the model reads ("(ref)" marks a server error:
// the client also reads a ref, which names the one log record that keeps
// the original error):
//
//	SQLITE_CONSTRAINT_UNIQUE, SQLITE_CONSTRAINT_PRIMARYKEY, SQLITE_CONSTRAINT_ROWID: CONFLICT, no retry
//	    A record with this value already exists (orders.ref); choose another value.
//	SQLITE_CONSTRAINT_FOREIGNKEY: BUSINESS_RULE_VIOLATION, no retry
//	    A referenced record does not exist, or other records still refer to this one;
//	    check the identifiers in the arguments, or remove the referring records first.
//	SQLITE_CONSTRAINT_CHECK: VALIDATION_ERROR, no retry
//	    A value is not allowed by a rule of the database (constraint qty_positive); check the arguments.
//	SQLITE_CONSTRAINT_NOTNULL: VALIDATION_ERROR, no retry
//	    A value is required for orders.customer_id; provide it.
//	SQLITE_BUSY, SQLITE_LOCKED and their extended codes: TIMEOUT (ref), retry
//	    The database is locked by another operation; retry the call in a moment.
//	sql.ErrNoRows (a missing row): NOT_FOUND, no retry
//	    Order not found. (in a tool given Resource(tool, "Order"); details {"resourceType": "Order"})
//	    Record not found. (in any other tool)
//	any other error: passed on, to the filters after it or the built-in mapping
//
// The details:
//
//   - CONFLICT: {"table": "orders", "columns": ["ref"]}, or {"index":
//     "customers_email_lower"} for a unique index on expressions; a
//     constraint over several columns reads "A record with these values
//     already exists (orders.customer_id, orders.note); choose other
//     values."
//   - VALIDATION_ERROR of a check: {"constraint": "qty_positive"}; of a
//     not-null: {"violations": [{"field": "orders.customer_id",
//     "constraint": "is required", "reason": "required"}]}.
//
// What it never sends: any text of the error but the identifiers SQLite
// reports, and only those that are plain identifiers (letters, digits,
// '_' and '$'). They are read from the "table.column" list after "UNIQUE
// constraint failed: " or "NOT NULL constraint failed: ", the index name
// of "UNIQUE constraint failed: index '...'", and the name after "CHECK
// constraint failed: ". SQLite puts the expression of a check constraint
// without a name there, such as "qty > 0": that is not an identifier, so
// it is not sent, and the answer is the generic one, "A value is not
// allowed by a rule of the database; check the arguments." Name
// your check constraints (CONSTRAINT qty_positive CHECK (qty > 0)) to
// have them named. When SQLite reports no identifier that can be sent,
// the sentence has none: "A record with this value already exists; choose
// another value." The values of the row never appear in these errors,
// and never in the answer; the log record keeps the original error whole.
// A TIMEOUT is a server error: the client gets a ref that names that
// record.
//
// A foreign-key violation carries no name at all in SQLite: neither the
// constraint, nor the table, nor whether the record referred to is missing
// or others still refer to the one being deleted. It cannot be answered
// per constraint; for "No such customer.", check the customer in the
// service layer before the insert and return domain.NewNotFound, or bind a
// filter to the tool that answers the pack's BUSINESS_RULE_VIOLATION
// differently.
//
// Constraint answers one unique, primary key or check constraint the way
// the application wants:
//
//	orders, err := sqlitefilter.New(sqlitefilter.Constraint("orders.ref", filter.Response{
//		Code: codes.Conflict, Message: "An order with this reference already exists.",
//	}))
//
// Resource names the kind of record a tool reads, so that a missing row
// there reads "Order not found." rather than "Record not found.", the same
// words as the sqlfilter and pgxfilter packs. The filter goes by the tool
// called (filter.Call.Tool), so it answers the same whether it is global
// or bound to one tool:
//
//	pack, err := sqlitefilter.New(
//		sqlitefilter.Resource("get_order", "Order"),
//		sqlitefilter.Resource("get_customer", "Customer"),
//	)
//
// New returns a *codes.DefinitionError for an option it cannot honour, such
// as a Constraint or a Resource without a name: check it where the server
// is defined.
//
// What it passes on, on purpose: every other SQLite error (SQLITE_ERROR
// for a mistake in the SQL, SQLITE_FULL, SQLITE_IOERR, SQLITE_CORRUPT,
// SQLITE_READONLY, SQLITE_CONSTRAINT_TRIGGER whose text is the
// application's own...), which the built-in mapping masks as
// INTERNAL_ERROR with a ref; and every error while the request's own
// context is done, which the pipeline answers as the call being cancelled
// or out of time before any filter runs.
//
// database/sql's other errors, such as sql.ErrConnDone, are sqlfilter's.
package sqlitefilter
