package sqlitefilter

import (
	"maps"
	"slices"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
)

// Option configures the filter New returns.
type Option func(*config)

// config is what the options set.
type config struct {
	constraints map[string]filter.Response // by the name SQLite reports
	// resources holds the kind of record each tool reads, by the tool's
	// name: get_order reads an "Order".
	resources map[string]string
	err       error // the first option given a value it does not accept
}

// Constraint answers the violations of one constraint with r instead of
// the pack's sentence, such as "An order with this reference already
// exists." for a unique column. name is what SQLite reports:
//
//   - for a UNIQUE or PRIMARY KEY constraint, its "table.column" list as
//     SQLite writes it after "UNIQUE constraint failed: ": "orders.ref",
//     or "orders.customer_id, orders.note" for several columns; for a
//     unique index on expressions, the index's name;
//   - for a CHECK constraint, its name: "qty_positive" for CONSTRAINT
//     qty_positive CHECK (qty > 0). A check without a name cannot be
//     matched.
//
// A NOT NULL violation is not matched: SQLite reports it as the same
// "table.column" as a unique constraint on that column, and the pack's
// answer names the column already. A FOREIGN KEY violation has no name in
// SQLite and cannot be matched either: see the package documentation.
//
// r is sent as it is, and is copied when Constraint is called. The pack's
// rules still apply around it: r answers only while the request is alive.
// An empty name, a Response without a message, or a name given twice
// makes New return a *codes.DefinitionError.
func Constraint(name string, r filter.Response) Option {
	r.Details = maps.Clone(r.Details)
	r.Hints = slices.Clone(r.Hints)
	if r.Retryable != nil {
		retry := *r.Retryable
		r.Retryable = &retry
	}
	return func(c *config) {
		if c.err != nil {
			return
		}
		reason := ""
		switch _, dup := c.constraints[name]; {
		case name == "":
			reason = "the constraint's name is empty; give it as SQLite reports it, such as orders.ref or qty_positive"
		case r.Message == "":
			reason = "the response has no message; write the sentence the model reads for this constraint"
		case dup:
			reason = "the constraint is given twice; keep one Constraint for it"
		}
		if reason != "" {
			c.err = &codes.DefinitionError{Mistake: codes.InvalidOption, Subject: name, Reason: "sqlitefilter.Constraint: " + reason}
			return
		}
		if c.constraints == nil {
			c.constraints = map[string]filter.Response{}
		}
		c.constraints[name] = r
	}
}

// Resource names the kind of record the tool called tool reads, such as
// "Order" for get_order, so that a missing row in that tool
// (sql.ErrNoRows) reads "Order not found." with the details
// {"resourceType": "Order"}. Give it once for each tool that reads one
// kind of record; a tool it is not given for reads "Record not found.".
//
// The filter looks up the tool called (filter.Call.Tool), so it answers
// the same whether it is one of the pipeline's global filters or bound to
// a tool with the adapter's WithFilters. name is sent to the client as it
// is: a fixed word of the application, never a value from a request or a
// row.
//
// An empty tool or name, or a tool given twice, makes New return a
// *codes.DefinitionError.
func Resource(tool, name string) Option {
	return func(c *config) {
		if c.err != nil {
			return
		}
		reason := ""
		switch _, dup := c.resources[tool]; {
		case tool == "":
			reason = "the tool's name is empty; give the name of the tool that reads the record, such as get_order"
		case name == "":
			reason = "the name is empty; give the kind of record the tool reads, such as Order, or leave the option out"
		case dup:
			reason = "the tool is given twice; keep one Resource for it"
		}
		if reason != "" {
			c.err = &codes.DefinitionError{Mistake: codes.InvalidOption, Subject: tool, Reason: "sqlitefilter.Resource: " + reason}
			return
		}
		if c.resources == nil {
			c.resources = make(map[string]string)
		}
		c.resources[tool] = name
	}
}
