// Package httpfilter maps the error statuses of HTTP upstreams to what the
// model should read: Check turns a response with an error status into a
// *StatusError, and New returns an exception filter for the mcperr
// pipeline that answers it with the nearest mcperr code, a fixed sentence
// written for the model and retry advice. From answers in the same way
// the errors of REST client libraries that keep the response they failed
// on. It uses the standard library only.
//
// A tool checks each response of its upstream and returns the error as it
// would any other:
//
//	resp, err := client.Do(req)
//	if err != nil {
//		return fmt.Errorf("get order: %w", err)
//	}
//	if err := httpfilter.Check(resp); err != nil {
//		return fmt.Errorf("get order: %w", err)
//	}
//	defer resp.Body.Close()
//
// and the server gives the filter to the pipeline, for every tool:
//
//	p, err := filter.New(filter.WithFilters(httpfilter.New()))
//
// or to the tools that call the upstream (filter.WithFilters,
// filter.WithFilters). The filter finds the *StatusError with errors.As, so
// an error wrapped with %w still maps.
//
// # Errors of REST client libraries
//
// Client libraries such as go-github return errors of their own that keep
// the upstream's *http.Response. From answers them, given a function that
// returns that response; go-github's three error types take a line each:
//
//	p, err := filter.New(filter.WithFilters(
//		httpfilter.New(),
//		httpfilter.From(func(e *github.ErrorResponse) *http.Response { return e.Response }),
//		httpfilter.From(func(e *github.RateLimitError) *http.Response { return e.Response }),
//		httpfilter.From(func(e *github.AbuseRateLimitError) *http.Response { return e.Response }),
//	))
//
// The filter reads the response's status and headers, never its body,
// which the library has read already. An error whose function returns no
// response, or one with a status below 400, is passed on. While a rate
// limit it was told of lasts, go-github refuses calls itself with a 403 it
// makes up, without headers, which reads as a plain 403: the README shows
// a function that adds the limit's headers.
//
// # What the model reads
//
//	status               mcperr code              retry
//	404, 410             NOT_FOUND                no
//	409, 412             CONFLICT                 no
//	400, 422             VALIDATION_ERROR         no
//	429                  RATE_LIMITED             yes, after Retry-After, else X-RateLimit-Reset
//	403 rate limit       RATE_LIMITED             yes, after Retry-After, else X-RateLimit-Reset
//	503                  UNAVAILABLE              yes, after Retry-After, else 2 s
//	408, 504             TIMEOUT                  yes
//	500, 502, 5xx        EXTERNAL_SERVICE_ERROR   yes, after Retry-After if sent
//	501, 505             EXTERNAL_SERVICE_ERROR   no
//	401, other 403       EXTERNAL_SERVICE_ERROR   no
//	any other 4xx        EXTERNAL_SERVICE_ERROR   no
//
// A 5xx other than 501, 503 and 505 to a method that changes things (any
// but GET, HEAD, OPTIONS and TRACE) may have been carried out: the answer
// says so (filter.Response.MayHaveTakenEffect) and its message leaves the
// retry advice to the pipeline, which gives it by the tool's annotations.
//
// Each answer's message names the status by its standard name, as in "The
// service the tool called has no such record (HTTP 404 Not Found); check
// the identifiers in the arguments.", and its details hold it as
// {"httpStatus": 404}. UNAVAILABLE, TIMEOUT and EXTERNAL_SERVICE_ERROR are
// server errors: the client also reads a ref, which names the one log
// record that keeps the error, the *StatusError with the start of the body
// or the client library's own.
//
// 401 and a 403 that is no rate limit are taken as the server's own credentials failing: a tool
// calls its upstreams as the server, so the model cannot correct a refusal
// and the operator must. A server that forwards its caller's credentials
// adds a filter of its own before this one that answers those statuses
// with UNAUTHORIZED and FORBIDDEN. The other 4xx statuses (405, 413, 415,
// ...) are faults in how the tool builds its requests, which the model
// cannot correct either.
//
// A 403 is a rate limit, as GitHub and many other REST APIs send one, if
// it has a Retry-After header or its X-RateLimit-Remaining header is "0".
// The delay of a 403 or 429 whose X-RateLimit-Remaining is "0" and that
// gives none in Retry-After is the time until its X-RateLimit-Reset, read
// as Unix seconds.
//
// Retry-After is read in both its forms, seconds ("120") and an HTTP date,
// which is counted from the response's Date header so that a clock that
// differs from the upstream's does not change the delay; so is
// X-RateLimit-Reset. A delay longer than 7 days, the longest the mcperr
// pipeline sends, is cut to 7 days.
//
// # What is never sent
//
// Nothing of the body, the URL, the headers or the upstream's reason
// phrase reaches the client: only the status code, its standard name and
// the retry delay. The URL a StatusError keeps for the log has no query
// and no user information, where API keys and passwords travel.
//
// Failures without a response (a refused connection, a timeout) are errors
// of client.Do, not of Check: package osfilter maps them.
package httpfilter
