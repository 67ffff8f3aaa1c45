package pgxfilter

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
	// constraints holds the application's own answers, by constraint name.
	constraints map[string]filter.Response
	// resources holds the kind of record each tool reads, by the tool's
	// name: get_order reads an "Order".
	resources map[string]string
	err       error // the first option given a value it does not accept
}

// Constraint answers every integrity-constraint violation (SQLSTATE class
// 23: unique, foreign key, check, not-null, exclusion) of the constraint
// called name with r instead of the pack's own sentence, such as a foreign
// key that the application knows means a missing customer:
//
//	pgxfilter.Constraint("orders_customer_id_fkey", filter.Response{
//		Code:    codes.NotFound,
//		Message: "No such customer.",
//	})
//
// name is the constraint's name as PostgreSQL reports it (the ConstraintName
// of the *pgconn.PgError), without a schema or table: PostgreSQL names are
// unique per table, so give each constraint a name that is unique in the
// database when it matters (its default names hold the table's name, such
// as orders_ref_key). r is sent as it is: put nothing secret in it. It is
// copied when Constraint is called.
//
// An empty name, a response without a message, or a name given twice makes
// New return a *codes.DefinitionError.
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
			reason = "the constraint's name is empty; give its name as PostgreSQL reports it, such as orders_ref_key"
		case r.Message == "":
			reason = "the response has no message; write the sentence the model reads for this constraint"
		case dup:
			reason = "the constraint is given twice; keep one Constraint for it"
		}
		if reason != "" {
			c.err = &codes.DefinitionError{Mistake: codes.InvalidOption, Subject: name, Reason: "pgxfilter.Constraint: " + reason}
			return
		}
		if c.constraints == nil {
			c.constraints = make(map[string]filter.Response)
		}
		c.constraints[name] = r
	}
}

// Resource names the kind of record the tool called tool reads, such as
// "Order" for get_order, so that a missing row in that tool
// (pgx.ErrNoRows, or sql.ErrNoRows through database/sql) reads "Order not
// found." with the details {"resourceType": "Order"}. Give it once for
// each tool that reads one kind of record; a tool it is not given for
// reads "Record not found.".
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
			c.err = &codes.DefinitionError{Mistake: codes.InvalidOption, Subject: tool, Reason: "pgxfilter.Resource: " + reason}
			return
		}
		if c.resources == nil {
			c.resources = make(map[string]string)
		}
		c.resources[tool] = name
	}
}
