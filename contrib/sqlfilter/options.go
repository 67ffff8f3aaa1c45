package sqlfilter

import "github.com/mcperr/mcperr/codes"

// Option configures the filter New returns.
type Option func(*config)

// config is what the options set.
type config struct {
	resource string // the resource a missing row is, such as "Order"
	err      error  // the first option given a value it does not accept
}

// Resource names the kind of record the tool reads, such as "Order", so
// that sql.ErrNoRows reads "Order not found." and its details
// {"resourceType": "Order"}. Give it to one tool, with the adapter's
// WithFilters: the name is sent to the client as it is, so it must be a
// fixed word of the application, never a value from a request or a row.
//
// An empty name makes New return a *codes.DefinitionError; leave the
// option out for the generic sentence.
func Resource(name string) Option {
	return func(c *config) {
		if name != "" {
			c.resource = name
		} else if c.err == nil {
			c.err = &codes.DefinitionError{Mistake: codes.InvalidOption,
				Reason: "sqlfilter.Resource: the name is empty; give the kind of record the tool reads, such as Order, or leave the option out"}
		}
	}
}
