package filter

import (
	"log/slog"
	"strconv"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/internal/nilness"
)

// Option configures a Pipeline: the whole server's error handling. What
// applies to one tool, resource or prompt is an option of the adapter,
// given where that item is registered.
type Option func(*Pipeline) error

// WithLogger sets the logger of the one record written for each failure.
// The default, and what a nil l means, is slog.Default() at the time of
// the failure. If the logger's handler panics or fails, the record is
// written to standard error instead.
func WithLogger(l *slog.Logger) Option {
	return func(p *Pipeline) error { p.logger = l; return nil }
}

// WithRegistry sets the registry that knows the application's own codes,
// their categories and retry advice. The default knows the built-in codes
// only. A code the registry does not know never reaches a client: see
// Pipeline.Handle.
func WithRegistry(r *codes.Registry) Option {
	return func(p *Pipeline) error { p.registry = r; return nil }
}

// WithGlobalFilters adds filters that run for every tool, resource, prompt
// and completion of the server, after the filters given to that item where
// it was registered. The first is outermost: it sees each error first. A
// nil filter is a definition error.
func WithGlobalFilters(filters ...Filter) Option {
	return func(p *Pipeline) error {
		for i, f := range filters {
			if nilness.IsNil(f) {
				return &codes.DefinitionError{Mistake: codes.NilValue,
					Reason: "filter " + strconv.Itoa(i) + " given to WithGlobalFilters is nil; pass a filter.Filter, a filter.Func or a filter.Catch"}
			}
		}
		p.global = append(p.global[:len(p.global):len(p.global)], filters...)
		return nil
	}
}

// WithObserver adds an Observer, told of every failure. It may be given
// more than once; observers run in the order given.
func WithObserver(o Observer) Option {
	return func(p *Pipeline) error {
		if o == nil {
			return &codes.DefinitionError{Mistake: codes.NilValue,
				Reason: "WithObserver needs an observer; leave the option out to observe nothing"}
		}
		p.observers = append(p.observers[:len(p.observers):len(p.observers)], o)
		return nil
	}
}

// WithRenderer sets how a failure becomes the text blocks the model reads:
// RenderForModel (the default), RenderMessageOnly, or the application's
// own Renderer. A Renderer that panics or returns no blocks is replaced by
// RenderForModel for that call, and its failure noted in the call's log
// record; at most 16 blocks are sent, each bounded like a message.
func WithRenderer(r Renderer) Option {
	return func(p *Pipeline) error {
		if r == nil {
			return &codes.DefinitionError{Mistake: codes.NilValue,
				Reason: "WithRenderer needs a function; pass filter.RenderForModel or filter.RenderMessageOnly, or leave the option out for the default"}
		}
		p.render = r
		return nil
	}
}

// WithRefGenerator sets the function that makes reference ids, for tests
// that need predictable refs. The default makes 16 hex digits holding 64
// random bits from crypto/rand; a production ref must be as unique. A ref
// must be 1 to 64 ASCII letters, digits, '-', '_' or '.': where gen
// returns anything else or panics, the pipeline uses a random ref instead.
func WithRefGenerator(gen func() string) Option {
	return func(p *Pipeline) error {
		if gen == nil {
			return &codes.DefinitionError{Mistake: codes.NilValue,
				Reason: "WithRefGenerator needs a function; leave the option out for random refs"}
		}
		p.newRef = gen
		return nil
	}
}

// WithRedaction keeps personal data out of the log: error texts are
// redacted with cockroachdb/redact (the parts not marked safe become ‹×›),
// and the log-only fields of domain errors, such as a Validation's value,
// are left out. Off by default.
func WithRedaction(redact bool) Option {
	return func(p *Pipeline) error { p.redact = redact; return nil }
}
