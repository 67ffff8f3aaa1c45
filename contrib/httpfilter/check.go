package httpfilter

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Bounds of what Check reads and keeps.
const (
	// maxBody is how much of an error response's body a StatusError keeps,
	// for the log.
	maxBody = 4 << 10
	// maxDrain is how much more of the body Check reads and discards, so
	// that the connection can be used again; a longer body is closed
	// unread.
	maxDrain = 64 << 10
	// maxRetryAfter is the longest delay a StatusError's RetryAfter holds;
	// a longer Retry-After is cut to it. It is also the longest delay the
	// mcperr pipeline sends.
	maxRetryAfter = 7 * 24 * time.Hour
)

// StatusError is the error Check returns for a response with an error
// status (400 or more). New answers it.
//
// Everything in it is for the log: its Error text holds the method, the
// URL without its query and user information, the status and the start of
// the body, which are the upstream's and the server's and are never sent
// to the client. New sends only the status code and the retry delay.
type StatusError struct {
	// StatusCode is the response's status code, such as 503.
	StatusCode int
	// RetryAfter is the delay the response's Retry-After header asks for,
	// given in seconds or as an HTTP date (counted from the response's
	// Date header, or from when Check ran if it has none); 0 if there is
	// none, it is not valid, or the date has passed. For a 403 or 429
	// whose X-RateLimit-Remaining header is "0" and that gives no delay in
	// Retry-After, it is the delay until its X-RateLimit-Reset, Unix
	// seconds counted the same way. It is at most 7 days, the longest delay
	// mcperr sends: a longer one is cut to that. New answers a 403 with a
	// RetryAfter as a rate limit.
	RetryAfter time.Duration
	// Method is the request's method, such as "GET"; "" if the response
	// has no request.
	Method string
	// URL is the request's URL without its user information, query and
	// fragment, such as "https://api.example.com/v1/orders/7"; "" if the
	// response has no request. For the log only.
	URL string
	// Body is the start of the response's body, at most 4 KiB of it. For
	// the log only: it is the upstream's text.
	Body []byte

	// rateLimited is set for a response that reports a rate limit: see
	// retryOf.
	rateLimited bool
}

// Error returns the method, URL, status, retry delay and start of the body,
// for the log.
func (e *StatusError) Error() string {
	var b strings.Builder
	if e.Method != "" || e.URL != "" {
		b.WriteString(strings.TrimSpace(e.Method + " " + e.URL))
		b.WriteString(": ")
	}
	b.WriteString(statusName(e.StatusCode))
	if e.RetryAfter > 0 {
		b.WriteString(", retry after ")
		b.WriteString(e.RetryAfter.String())
	}
	if len(e.Body) > 0 {
		b.WriteString(", body ")
		b.WriteString(strconv.Quote(string(e.Body)))
	}
	return b.String()
}

// errNoResponse is Check's error for a nil response.
var errNoResponse = errors.New("httpfilter: Check was given no response")

// Check returns nil if resp's status is not an error (below 400), and
// leaves resp as it is: its body is the caller's to read and close.
//
// For an error status it returns a *StatusError and closes resp's body,
// after reading up to 68 KiB of it so that the connection can be used
// again; the first 4 KiB are kept in the error, for the log. A nil resp is
// an error too, which no filter answers.
//
//	resp, err := client.Do(req)
//	if err != nil {
//		return fmt.Errorf("get order: %w", err)
//	}
//	if err := httpfilter.Check(resp); err != nil {
//		return fmt.Errorf("get order: %w", err)
//	}
//	defer resp.Body.Close()
func Check(resp *http.Response) error {
	if resp == nil {
		return errNoResponse
	}
	if resp.StatusCode < 400 {
		return nil
	}
	e := statusError(resp, time.Now())
	if resp.Body != nil {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxBody))
		if len(body) > 0 {
			e.Body = body
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxDrain))
		_ = resp.Body.Close()
	}
	return e
}

// statusError returns the *StatusError of resp, whose status is 400 or
// more, without the body: it reads the status, the headers and the
// request, never the body. now is when the response is read, for a
// response without a Date header.
func statusError(resp *http.Response, now time.Time) *StatusError {
	e := &StatusError{StatusCode: resp.StatusCode}
	if req := resp.Request; req != nil {
		e.Method = req.Method
		if e.Method == "" {
			e.Method = http.MethodGet // as net/http reads an empty method
		}
		e.URL = logURL(req.URL)
	}
	e.RetryAfter, e.rateLimited = retryOf(resp.StatusCode, resp.Header, now)
	return e
}

// retryOf returns the retry delay that the headers h of a response with
// status ask for, and whether the response reports a rate limit: a 429,
// or a 403 with a Retry-After header or whose X-RateLimit-Remaining is
// "0", as GitHub, GitLab and many other REST APIs send them. The delay is
// Retry-After's; without one, that of a 403 or 429 whose
// X-RateLimit-Remaining is "0" is the time until X-RateLimit-Reset.
func retryOf(status int, h http.Header, now time.Time) (time.Duration, bool) {
	date := h.Get("Date")
	ra := h.Get("Retry-After")
	d := parseRetryAfter(ra, date, now)
	if status != http.StatusForbidden && status != http.StatusTooManyRequests {
		return d, false
	}
	exhausted := strings.TrimSpace(h.Get("X-RateLimit-Remaining")) == "0"
	if d == 0 && exhausted {
		d = parseReset(h.Get("X-RateLimit-Reset"), date, now)
	}
	return d, exhausted || strings.TrimSpace(ra) != "" || status == http.StatusTooManyRequests
}

// parseReset returns the delay until an X-RateLimit-Reset header value v,
// Unix seconds, counted from the Date header date, or from now if date is
// not a valid HTTP date. It returns 0 for a value that is not a number, or
// a time that has passed, and at most maxRetryAfter.
func parseReset(v, date string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if !digits(v) {
		return 0
	}
	at, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return maxRetryAfter // more digits than fit: far beyond what mcperr sends
	}
	if sent, err := http.ParseTime(date); err == nil {
		now = sent
	}
	from := now.Unix()
	switch {
	case at <= from:
		return 0
	case at > from+int64(maxRetryAfter/time.Second): // from is a date of years 0 to 9999: no overflow
		return maxRetryAfter
	}
	return time.Duration(at-from) * time.Second
}

// logURL returns u without its user information, query and fragment.
func logURL(u *url.URL) string {
	if u == nil {
		return ""
	}
	v := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawPath: u.RawPath, Opaque: u.Opaque}
	if v.Opaque != "" {
		// An opaque URL's query is in RawQuery, but its opaque part may
		// hold anything: keep the scheme alone.
		v.Opaque = ""
	}
	return v.String()
}

// parseRetryAfter returns the delay a Retry-After header value v asks
// for: delay-seconds, or an HTTP date counted from the Date header date,
// or from now if date is not a valid HTTP date. It returns 0 for a value
// that is neither, or a date that has passed, and at most maxRetryAfter.
func parseRetryAfter(v, date string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if digits(v) {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n > int64(maxRetryAfter/time.Second) {
			return maxRetryAfter // longer than mcperr sends, or more digits than fit
		}
		return time.Duration(n) * time.Second
	}
	at, err := http.ParseTime(v)
	if err != nil {
		return 0
	}
	if sent, err := http.ParseTime(date); err == nil {
		now = sent
	}
	d := at.Sub(now)
	if d <= 0 {
		return 0
	}
	return min(d, maxRetryAfter)
}

// digits reports whether s is one or more ASCII digits.
func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// statusName returns "HTTP 404 Not Found", or "HTTP 499" for a code
// without a standard name.
func statusName(code int) string {
	if text := http.StatusText(code); text != "" {
		return fmt.Sprintf("HTTP %d %s", code, text)
	}
	return fmt.Sprintf("HTTP %d", code)
}
