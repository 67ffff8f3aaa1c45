package gosdk

import (
	"github.com/mcperr/mcperr/filter"
)

// Option configures Middleware, Wrap, WrapRaw, NewTools, AddTool and
// (*Tools).AddRawTool.
type Option func(*config)

type config struct {
	pipeline *filter.Pipeline
	filters  []filter.Filter
}

// WithPipeline sets the pipeline that maps errors and logs them. The default,
// and what a nil p means, is filter.New() with its defaults, which logs to
// slog.Default() as it is at the time of each error.
func WithPipeline(p *filter.Pipeline) Option {
	return func(c *config) { c.pipeline = p }
}

// WithFilters binds exception filters to what is being configured: to one
// tool for Wrap, WrapRaw, AddTool and AddRawTool; to every tool for
// Middleware and NewTools. They run before the pipeline's own per-tool and
// global filters, the first outermost; the filters of a tool run before
// those given to NewTools. A nil filter is a definition error.
func WithFilters(filters ...filter.Filter) Option {
	return func(c *config) { c.filters = append(c.filters, filters...) }
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

// build returns the pipeline configured by c: c's pipeline, or a default
// one, with c's filters bound first. A nil filter is a
// *toolerr.DefinitionError.
func (c config) build() (*filter.Pipeline, error) {
	p := c.pipeline
	if p == nil {
		var err error
		if p, err = filter.New(); err != nil {
			return nil, err
		}
	}
	return p.With(c.filters...)
}

// mustBuild is build for the functions that cannot return an error: like
// regexp.MustCompile, it panics with the definition error, at start-up.
func (c config) mustBuild() *filter.Pipeline {
	p, err := c.build()
	if err != nil {
		panic(err)
	}
	return p
}
