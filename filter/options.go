package filter

import (
	"log/slog"
	"strconv"
	"time"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/internal/nilness"
	"github.com/mcperr/mcperr/toolerr"
)

// Option configures a Pipeline.
type Option func(*Pipeline) error

// WithLogger sets the logger of the one record written for each error. The
// default, and what a nil l means, is slog.Default() at the time of the
// error. If the logger's handler panics or fails, the record is written to
// standard error instead.
func WithLogger(l *slog.Logger) Option {
	return func(p *Pipeline) error { p.logger = l; return nil }
}

// WithRegistry sets the registry that knows the application's own codes,
// their categories and whether they are retryable. The default knows the
// built-in codes only. A code the registry does not know never reaches a
// client: see Pipeline.Handle.
func WithRegistry(r *codes.Registry) Option {
	return func(p *Pipeline) error { p.registry = r; return nil }
}

// WithFilters adds global filters, run for every tool, resource, prompt and
// completion of the server after the filters given to that tool, resource
// or prompt where it is registered. The first is outermost: it sees each
// error first. Per-item filters are given to the adapter's AddTool, Wrap,
// AddResource, AddResourceTemplate or AddPrompt with its own WithFilters
// option.
func WithFilters(filters ...Filter) Option {
	return func(p *Pipeline) error {
		if err := checkFilters(filters); err != nil {
			return err
		}
		p.global = append(p.global, filters...)
		return nil
	}
}

// WithRefGenerator sets the function that makes reference ids. The default
// makes 16 hex digits holding 64 random bits from crypto/rand. Tests use it
// for predictable refs; in production a ref must carry at least 64 random
// bits. A ref must be 1 to 64 ASCII letters, digits, '-', '_' or '.'; where
// gen returns anything else, panics, or repeats one of its last 256 refs,
// the pipeline uses a random ref instead and warns once.
func WithRefGenerator(gen func() string) Option {
	return func(p *Pipeline) error {
		if gen == nil {
			return &toolerr.DefinitionError{Code: codes.InvalidOption, Reason: "WithRefGenerator needs a function; leave the option out for random refs"}
		}
		p.newRef = gen
		p.customRef = true
		return nil
	}
}

// WithClock sets the clock of response timestamps. The default is time.Now.
func WithClock(now func() time.Time) Option {
	return func(p *Pipeline) error {
		if now == nil {
			return &toolerr.DefinitionError{Code: codes.InvalidOption, Reason: "WithClock needs a function; leave the option out to use time.Now"}
		}
		p.now = now
		return nil
	}
}

// WithReporter sets the reporter called for every server error, such as an
// adapter to a monitoring service.
func WithReporter(r Reporter) Option {
	return func(p *Pipeline) error {
		if nilness.IsNil(r) {
			return &toolerr.DefinitionError{Code: codes.InvalidOption, Reason: "WithReporter needs a reporter; leave the option out to report nothing"}
		}
		p.reporter = r
		return nil
	}
}

// WithExposedErrors appends the text of masked errors to the message the
// client reads, after the ref. It is for development only: in production it
// sends secrets to the model. Off by default.
func WithExposedErrors(expose bool) Option {
	return func(p *Pipeline) error { p.expose = expose; return nil }
}

// WithRedaction makes the log record keep personal data out: error texts are
// redacted with cockroachdb/redact (unsafe parts become ‹×›), and the
// log-only fields of domain errors, such as a Validation's value, are left
// out. Off by default.
func WithRedaction(redact bool) Option {
	return func(p *Pipeline) error { p.redact = redact; return nil }
}

func checkFilters(filters []Filter) error {
	for i, f := range filters {
		if nilness.IsNil(f) {
			return &toolerr.DefinitionError{Code: codes.NilFilter,
				Reason: "filter " + strconv.Itoa(i) + " in the list is nil (or a nil pointer or function); pass a Filter, a filter.Func or a filter.Catch"}
		}
	}
	return nil
}
