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
	err         error // the first option given a value it does not accept
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
