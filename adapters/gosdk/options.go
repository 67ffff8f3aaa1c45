package gosdk

import (
	"slices"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/bind"
)

// Option configures one tool, given to AddTool, AddRawTool, Wrap or
// WrapRaw, or the whole server, given to Install. Each option says where it
// applies; given anywhere else it is a definition error.
type Option func(*config)

type config struct {
	filters    []filter.Filter
	hasFilters bool
	noCheck    bool
}

// WithFilters binds exception filters to one tool: given to AddTool,
// AddRawTool, Wrap or WrapRaw. They run before the server's global filters
// (filter.WithFilters), the first outermost. Given to Install it is a
// definition error: global filters belong to the pipeline. A nil filter is a
// definition error.
func WithFilters(filters ...filter.Filter) Option {
	return func(c *config) {
		c.filters = append(slices.Clip(c.filters), filters...)
		c.hasFilters = true
	}
}

// WithoutArgumentCheck turns off mcperr's own check of a raw tool's
// arguments against its input schema: given to AddRawTool, for that tool;
// given to Install, for every raw tool added with AddRawTool. The SDK
// always checks the arguments of typed tools, and mcperr still answers
// those it refuses with VALIDATION_ERROR.
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

// mustConfig is newConfig for the functions that cannot return an error:
// like regexp.MustCompile, it panics with the definition error, at start-up.
func mustConfig(fn string, opts []Option) config {
	c, err := newConfig(fn, opts)
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
