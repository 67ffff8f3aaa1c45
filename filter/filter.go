package filter

import (
	"context"
	"errors"
	"maps"
	"slices"
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

// Func adapts a function to a Filter.
type Func func(ctx context.Context, call Call, err error) (*Response, error)

// Catch calls f.
func (f Func) Catch(ctx context.Context, call Call, err error) (*Response, error) {
	return f(ctx, call, err)
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
// and nil passes on the whole original error.
func Catch[E error](fn func(ctx context.Context, call Call, err E) (*Response, error)) Filter {
	if fn == nil {
		return nil
	}
	return typed[E](fn)
}

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
// Is returns nil, which WithGlobalFilters and the adapters' WithFilters
// refuse with a definition error, if target is nil or r has no message.
func Is(target error, r Response) Filter {
	if target == nil || r.Message == "" {
		return nil
	}
	r.Details = maps.Clone(r.Details)
	r.Hints = slices.Clone(r.Hints)
	if r.Retryable != nil {
		retry := *r.Retryable
		r.Retryable = &retry
	}
	return sentinel{target: target, r: r}
}

// sentinel is the Filter of Is.
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
