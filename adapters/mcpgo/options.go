package mcpgo

import (
	"slices"

	"github.com/mcperr/mcperr/filter"
)

// Option configures Middleware, Wrap, WrapStructured, NewTools and
// (*Tools).AddTool.
type Option func(*config)

type config struct {
	pipeline   *filter.Pipeline
	filters    []filter.Filter
	noCheck    bool
	requestIDs bool
	idsErr     error // a bad WithRequestIDs
}

// WithPipeline sets the pipeline that maps errors and logs them. The default
// is filter.New() with its defaults, which logs to slog.Default() as it is at
// the time of each error.
func WithPipeline(p *filter.Pipeline) Option {
	return func(c *config) { c.pipeline = p }
}

// WithFilters binds exception filters to what is being configured: to one
// tool for Wrap, WrapStructured and AddTool; to every tool for Middleware
// and NewTools. They run before the pipeline's own per-tool and global
// filters, the first outermost; the filters of a tool run before those given
// to NewTools. A nil filter is a definition error.
func WithFilters(filters ...filter.Filter) Option {
	return func(c *config) { c.filters = append(c.filters, filters...) }
}

// WithoutArgumentCheck turns off the check of each call's arguments against
// the tool's input schema, for a tool whose schema does not describe what
// its handler accepts. Given to Wrap, WrapStructured or AddTool it turns the
// check off for that tool, even when Middleware checks the others.
func WithoutArgumentCheck() Option {
	return func(c *config) { c.noCheck = true }
}

// newConfig applies opts in order.
func newConfig(opts []Option) config {
	var c config
	for _, opt := range opts {
		if opt != nil {
			opt(&c)
		}
	}
	return c
}

// over returns the configuration of one tool: own's options over those of c,
// own's filters before those of c.
func (c config) over(own config) config {
	n := c
	if own.pipeline != nil {
		n.pipeline = own.pipeline
	}
	n.filters = append(slices.Clip(own.filters), c.filters...)
	n.noCheck = c.noCheck || own.noCheck
	n.requestIDs = c.requestIDs || own.requestIDs
	if own.idsErr != nil {
		n.idsErr = own.idsErr
	}
	return n
}

// build returns the adapter configured by c: c's pipeline, or a default one,
// with c's filters bound first. A nil filter is a *toolerr.DefinitionError.
func (c config) build() (*adapter, error) {
	if c.idsErr != nil {
		return nil, c.idsErr
	}
	p := c.pipeline
	if p == nil {
		var err error
		if p, err = filter.New(); err != nil {
			return nil, err
		}
	}
	p, err := p.With(c.filters...)
	if err != nil {
		return nil, err
	}
	return &adapter{pipeline: p, check: !c.noCheck, requestIDs: c.requestIDs}, nil
}

// mustBuild is build for the functions that cannot return an error: like
// regexp.MustCompile, it panics with the definition error, at start-up.
func (c config) mustBuild() *adapter {
	a, err := c.build()
	if err != nil {
		panic(err)
	}
	return a
}
