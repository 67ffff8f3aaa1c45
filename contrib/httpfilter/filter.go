package httpfilter

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
)

// New returns a filter that answers every error holding a *StatusError, as
// the package documentation's table says, and passes every other error
// on. It sends the status code and the retry delay, never the body, the
// URL or the upstream's reason phrase.
func New() filter.Filter {
	return filter.Catch(catch)
}

// From returns a Filter that answers every error whose chain holds an E,
// found with errors.As, as New answers a *StatusError: response returns
// the upstream's response that E carries, which the filter reads as Check
// does, its status and headers, never its body. It is the route for the
// error types of REST client libraries that keep the response they
// failed on, such as go-github's:
//
//	httpfilter.From(func(e *github.ErrorResponse) *http.Response { return e.Response })
//
// An error for which response returns nil, or a response with a status
// below 400, is passed on. A nil function makes a filter that
// WithFilters and the adapters' WithFilters refuse with a definition
// error, as filter.Catch(nil) does.
func From[E error](response func(E) *http.Response) filter.Filter {
	if response == nil {
		return misdefined{&codes.DefinitionError{Mistake: codes.NilValue,
			Reason: "httpfilter.From needs a function that returns the *http.Response the error carries, such as func(e *github.ErrorResponse) *http.Response { return e.Response }"}}
	}
	return filter.Catch(func(_ context.Context, _ filter.Call, e E) (*filter.Response, error) {
		resp := response(e)
		if resp == nil || resp.StatusCode < 400 {
			return nil, nil
		}
		return answer(statusError(resp, time.Now())), nil
	})
}

// misdefined is the filter of From given no function: it answers nothing,
// and every place that takes a filter refuses it at start-up with its
// definition error.
type misdefined struct{ err *codes.DefinitionError }

func (misdefined) Catch(context.Context, filter.Call, error) (*filter.Response, error) {
	return nil, nil
}

// DefinitionError returns the mistake the filter was built with.
func (m misdefined) DefinitionError() *codes.DefinitionError { return m.err }

// catch answers a *StatusError.
func catch(_ context.Context, _ filter.Call, e *StatusError) (*filter.Response, error) {
	if e == nil || e.StatusCode < 400 {
		return nil, nil
	}
	return answer(e), nil
}

// answer is the answer to e, whose status is 400 or more: the one code
// path of New and From.
func answer(e *StatusError) *filter.Response {
	m := mappingOf(e.StatusCode)
	if e.StatusCode == http.StatusForbidden && (e.rateLimited || e.RetryAfter > 0) {
		m = rateLimited
	}
	retry := m.retry
	r := &filter.Response{
		Code:      m.code,
		Message:   fmt.Sprintf(m.message, statusName(e.StatusCode)),
		Details:   map[string]any{"httpStatus": e.StatusCode},
		Retryable: &retry,
		// A server error after a request that changes things (or of an
		// unknown method): the change may have been made. 501, 503 and 505
		// say the request was not handled.
		MayHaveTakenEffect: e.StatusCode >= 500 && m != unsupported && m != unavailable && !safeMethod(e.Method),
	}
	if r.MayHaveTakenEffect {
		// The advice is the Retry line's, which depends on the tool.
		before, _, _ := strings.Cut(r.Message, ";")
		r.Message = before + "."
	}
	if retry {
		r.RetryAfter = min(e.RetryAfter, maxRetryAfter)
		if r.RetryAfter <= 0 && m.code == codes.Unavailable {
			r.RetryAfter = unavailableDelay
		}
	}
	return r
}

// safeMethod reports whether method only reads (RFC 9110, section 9.2.1).
func safeMethod(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return true
	}
	return false
}

// unavailableDelay is the retry delay of a 503 without Retry-After: long
// enough for a restarted upstream to serve again. It is the delay the
// other packs advise for a backend that is unavailable.
const unavailableDelay = 2 * time.Second

// mapping is how one status code is answered.
type mapping struct {
	code    codes.Code
	message string // a format with one verb, the status's name
	retry   bool
}

var (
	invalid = mapping{codes.ValidationError,
		"The service the tool called rejected the request as invalid (%s); check the arguments.", false}
	notFound = mapping{codes.NotFound,
		"The service the tool called has no such record (%s); check the identifiers in the arguments.", false}
	conflict = mapping{codes.Conflict,
		"The request conflicts with the current state of the record at the service the tool called (%s); read the record again, or choose other values.", false}
	rateLimited = mapping{codes.RateLimited,
		"The service the tool called is rate limiting requests (%s); wait before retrying.", true}
	unauthenticated = mapping{codes.ExternalServiceError,
		"The tool could not authenticate with the service it called (%s); the server's operator must fix this, so retrying will not help.", false}
	forbidden = mapping{codes.ExternalServiceError,
		"The tool is not allowed to use the service it called (%s); the server's operator must fix this, so retrying will not help.", false}
	requestTimeout = mapping{codes.Timeout,
		"The service the tool called timed out waiting for the request (%s); retry the call.", true}
	gatewayTimeout = mapping{codes.Timeout,
		"The service the tool called did not answer in time (%s); retry the call.", true}
	refused = mapping{codes.ExternalServiceError,
		"The service the tool called refused the request (%s); retrying will not help.", false}
	unavailable = mapping{codes.Unavailable,
		"The service the tool called is unavailable right now (%s); retry the call shortly.", true}
	unsupported = mapping{codes.ExternalServiceError,
		"The service the tool called does not support this request (%s); retrying will not help.", false}
	failed = mapping{codes.ExternalServiceError,
		"The service the tool called failed (%s); retry the call later.", true}
)

// mappingOf returns the answer to status, 400 or more.
func mappingOf(status int) mapping {
	switch status {
	case 400, 422:
		return invalid
	case 401:
		return unauthenticated
	case 403:
		return forbidden
	case 404, 410:
		return notFound
	case 408:
		return requestTimeout
	case 409, 412:
		return conflict
	case 429:
		return rateLimited
	case 501, 505:
		return unsupported
	case 503:
		return unavailable
	case 504:
		return gatewayTimeout
	}
	if status >= 500 {
		return failed
	}
	return refused
}
