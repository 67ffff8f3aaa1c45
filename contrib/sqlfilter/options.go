package sqlfilter

import "github.com/mcperr/mcperr/codes"

// Option configures the filter New returns.
type Option func(*config)

// config is what the options set.
type config struct {
	// resources holds the kind of record each tool reads, by the tool's
	// name: get_order reads an "Order".
	resources map[string]string
	err       error // the first option given a value it does not accept
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
			c.err = &codes.DefinitionError{Mistake: codes.InvalidOption, Subject: tool, Reason: "sqlfilter.Resource: " + reason}
			return
		}
		if c.resources == nil {
			c.resources = make(map[string]string)
		}
		c.resources[tool] = name
	}
}
