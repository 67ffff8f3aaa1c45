package filter

import (
	"context"
	"errors"
	"maps"
	"slices"

	"github.com/mcperr/mcperr/codes"
)

// Filter is an exception filter: it decides what the client receives for an
// error, or leaves the decision to the filters after it.
//
// Catch returns a non-nil *Response to handle err. It returns nil and nil to
// pass err on unchanged (rethrow), or nil and another error to pass on that
// error instead (transform). A filter that panics is recovered, and the call
// is reported as an internal error.
type Filter interface {
	Catch(ctx context.Context, call Call, err error) (*Response, error)
}

// Catch returns a Filter that handles the errors of type E found in the
// chain with errors.As, and passes every other error on. It is the Go form
// of NestJS's @Catch(NotFoundError):
//
//	filter.Catch(func(ctx context.Context, call filter.Call, e *domain.NotFound) (*filter.Response, error) {
//		return &filter.Response{Code: codes.NotFound, Message: "No such " + e.Resource + "."}, nil
//	})
//
// fn receives the matched error and returns like Filter.Catch; returning nil
// and nil passes on the whole original error. With E = error, fn receives
// every error as it is: the way to write a filter as a function. A nil fn makes a filter that
// WithFilters and the adapters' WithFilters refuse with a definition
// error that names Catch.
func Catch[E error](fn func(ctx context.Context, call Call, err E) (*Response, error)) Filter {
	if fn == nil {
		return misdefined{&codes.DefinitionError{Mistake: codes.NilValue,
			Reason: "filter.Catch needs a function that answers the error type it catches"}}
	}
	return typed[E](fn)
}

// misdefined is a Filter that Catch or Is could not build: it answers
// nothing, and every place that takes a filter refuses it at start-up with
// its definition error, which names the mistake where it was made.
type misdefined struct{ err *codes.DefinitionError }

func (misdefined) Catch(context.Context, Call, error) (*Response, error) { return nil, nil }

// DefinitionError returns the mistake the filter was built with.
func (m misdefined) DefinitionError() *codes.DefinitionError { return m.err }

type typed[E error] func(ctx context.Context, call Call, err E) (*Response, error)

func (t typed[E]) Catch(ctx context.Context, call Call, err error) (*Response, error) {
	var target E
	if !errors.As(err, &target) {
		return nil, nil
	}
	return t(ctx, call, target)
}

// Is returns a Filter that answers every error whose chain holds target,
// as errors.Is finds it, with r, and passes every other error on: the one
// line that maps a sentinel error, beside Catch, which maps a type.
//
//	filter.Is(sql.ErrNoRows, filter.Response{Code: codes.NotFound, Message: "No such order."})
//
// The Response is copied when Is is called; each answer is a copy of it.
// If target is nil or r has no message, Is makes a filter that
// WithFilters and the adapters' WithFilters refuse with a definition
// error that names Is and the mistake.
func Is(target error, r Response) Filter {
	switch {
	case target == nil:
		return misdefined{&codes.DefinitionError{Mistake: codes.NilValue,
			Reason: "filter.Is needs the sentinel error to answer, such as sql.ErrNoRows; it was given nil"}}
	case r.Message == "":
		return misdefined{&codes.DefinitionError{Mistake: codes.InvalidOption,
			Reason: "filter.Is needs a Response with the message the model reads, such as {Code: codes.NotFound, Message: \"No such order.\"}"}}
	}
	r.Details, r.Hints = maps.Clone(r.Details), slices.Clone(r.Hints)
	if r.Retryable != nil {
		retry := *r.Retryable
		r.Retryable = &retry
	}
	return sentinel{target: target, r: r}
}

type sentinel struct {
	target error
	r      Response
}

func (s sentinel) Catch(_ context.Context, _ Call, err error) (*Response, error) {
	if !errors.Is(err, s.target) {
		return nil, nil
	}
	r := s.r
	return &r, nil
}
