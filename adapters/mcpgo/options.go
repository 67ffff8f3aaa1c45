package mcpgo

import (
	"slices"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/bind"
)

// Option configures one tool, given to AddTool, Wrap or WrapStructured, or
// the whole server, given to Install. Each option says where it applies;
// given anywhere else it is a definition error.
type Option func(*config)

type config struct {
	filters    []filter.Filter
	hasFilters bool
	noCheck    bool
	requestIDs bool
}

// WithFilters binds exception filters to one tool: given to AddTool, Wrap
// or WrapStructured. They run before the server's global filters
// (filter.WithFilters), the first outermost. Given to Install it is a
// definition error: global filters belong to the pipeline. A nil filter is a
// definition error.
func WithFilters(filters ...filter.Filter) Option {
	return func(c *config) {
		c.filters = append(slices.Clip(c.filters), filters...)
		c.hasFilters = true
	}
}

// WithoutArgumentCheck turns off mcperr's check of each call's arguments
// against the tool's input schema, for a tool whose schema does not
// describe what its handler accepts: given to AddTool, Wrap or
// WrapStructured, for that tool; given to Install, for every tool of the
// server, however it was added.
func WithoutArgumentCheck() Option {
	return func(c *config) { c.noCheck = true }
}

// newConfig applies opts in order and checks the filters given to fn.
func newConfig(fn string, opts []Option) (config, error) {
	var c config
	for _, opt := range opts {
		if opt != nil {
			opt(&c)
		}
	}
	return c, bind.CheckFilters(fn, c.filters)
}

// toolConfig is newConfig for the functions that configure one tool, which
// refuse the options that apply to the whole server only.
func toolConfig(fn string, opts []Option) (config, error) {
	c, err := newConfig(fn, opts)
	if err != nil {
		return config{}, err
	}
	if c.requestIDs {
		return config{}, invalidOption("WithRequestIDs given to " + fn + ": request ids are on or off for the whole server; give it to Install")
	}
	return c, nil
}

// mustToolConfig is toolConfig for the functions that cannot return an
// error: like regexp.MustCompile, it panics with the definition error, at
// start-up.
func mustToolConfig(fn string, opts []Option) config {
	c, err := toolConfig(fn, opts)
	if err != nil {
		panic(err)
	}
	return c
}

// invalidOption is the definition error of an option given where it has no
// meaning.
func invalidOption(reason string) error {
	return &codes.DefinitionError{Code: codes.InvalidOption, Reason: reason}
}
