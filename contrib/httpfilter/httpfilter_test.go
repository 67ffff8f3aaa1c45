package httpfilter_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/contrib/httpfilter"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/mcperrtest"
)

// want is what the client must read for one case.
type want struct {
	code      codes.Code
	message   string
	retryable bool
	// retryAfter is the delay in seconds, 0 for none; when maxAfter is set,
	// the delay must be more than retryAfter and at most maxAfter.
	retryAfter, maxAfter float64
}

// The messages, by the status's name.
func invalid(s string) string {
	return "The service the tool called rejected the request as invalid (" + s + "); check the arguments."
}
func notFound(s string) string {
	return "The service the tool called has no such record (" + s + "); check the identifiers in the arguments."
}
func conflict(s string) string {
	return "The request conflicts with the current state of the record at the service the tool called (" + s + "); read the record again, or choose other values."
}
func rateLimited(s string) string {
	return "The service the tool called is rate limiting requests (" + s + "); wait before retrying."
}
func refused(s string) string {
	return "The service the tool called refused the request (" + s + "); retrying will not help."
}
func failed(s string) string {
	return "The service the tool called failed (" + s + "); retry the call later."
}
func unavailable(s string) string {
	return "The service the tool called is unavailable right now (" + s + "); retry the call shortly."
}

// week is the longest delay sent, in seconds.
const week = 7 * 24 * 3600

// mapped is the table of the package documentation, every row answered by
// a real upstream.
var mapped = []struct {
	name string
	in   fetchArgs
	want want
}{
	{"400", fetchArgs{Status: 400}, want{codes.ValidationError, invalid("HTTP 400 Bad Request"), false, 0, 0}},
	{"422", fetchArgs{Status: 422}, want{codes.ValidationError, invalid("HTTP 422 Unprocessable Entity"), false, 0, 0}},
	{"401", fetchArgs{Status: 401}, want{codes.ExternalServiceError, "The tool could not authenticate with the service it called (HTTP 401 Unauthorized); the server's operator must fix this, so retrying will not help.", false, 0, 0}},
	{"403", fetchArgs{Status: 403}, want{codes.ExternalServiceError, "The tool is not allowed to use the service it called (HTTP 403 Forbidden); the server's operator must fix this, so retrying will not help.", false, 0, 0}},
	{"404", fetchArgs{Status: 404}, want{codes.NotFound, notFound("HTTP 404 Not Found"), false, 0, 0}},
	{"410", fetchArgs{Status: 410}, want{codes.NotFound, notFound("HTTP 410 Gone"), false, 0, 0}},
	{"405", fetchArgs{Status: 405}, want{codes.ExternalServiceError, refused("HTTP 405 Method Not Allowed"), false, 0, 0}},
	{"408", fetchArgs{Status: 408}, want{codes.Timeout, "The service the tool called timed out waiting for the request (HTTP 408 Request Timeout); retry the call.", true, 0, 0}},
	{"409", fetchArgs{Status: 409}, want{codes.Conflict, conflict("HTTP 409 Conflict"), false, 0, 0}},
	{"412", fetchArgs{Status: 412}, want{codes.Conflict, conflict("HTTP 412 Precondition Failed"), false, 0, 0}},
	{"418", fetchArgs{Status: 418}, want{codes.ExternalServiceError, refused("HTTP 418 I'm a teapot"), false, 0, 0}},
	{"499 (no name)", fetchArgs{Status: 499}, want{codes.ExternalServiceError, refused("HTTP 499"), false, 0, 0}},
	{"429", fetchArgs{Status: 429}, want{codes.RateLimited, rateLimited("HTTP 429 Too Many Requests"), true, 0, 0}},
	{"429 seconds", fetchArgs{Status: 429, RetryAfter: "120"}, want{codes.RateLimited, rateLimited("HTTP 429 Too Many Requests"), true, 120, 0}},
	{"429 date from Date", fetchArgs{Status: 429, RetryAfter: fixedRetryAfter, Date: "fixed"}, want{codes.RateLimited, rateLimited("HTTP 429 Too Many Requests"), true, 90, 0}},
	{"429 date from now", fetchArgs{Status: 429, RetryAfter: "in-1h", Date: "none"}, want{codes.RateLimited, rateLimited("HTTP 429 Too Many Requests"), true, 3598, 3600}},
	{"429 absurd", fetchArgs{Status: 429, RetryAfter: "99999999999999999999999"}, want{codes.RateLimited, rateLimited("HTTP 429 Too Many Requests"), true, week, 0}},
	{"429 two weeks", fetchArgs{Status: 429, RetryAfter: "1209600"}, want{codes.RateLimited, rateLimited("HTTP 429 Too Many Requests"), true, week, 0}},
	{"429 invalid", fetchArgs{Status: 429, RetryAfter: "soon"}, want{codes.RateLimited, rateLimited("HTTP 429 Too Many Requests"), true, 0, 0}},
	{"429 past date", fetchArgs{Status: 429, RetryAfter: "Tue, 31 Dec 2019 23:59:00 GMT", Date: "fixed"}, want{codes.RateLimited, rateLimited("HTTP 429 Too Many Requests"), true, 0, 0}},
	{"403 Retry-After", fetchArgs{Status: 403, RetryAfter: "30"}, want{codes.RateLimited, rateLimited("HTTP 403 Forbidden"), true, 30, 0}},
	{"403 Retry-After invalid", fetchArgs{Status: 403, RetryAfter: "soon"}, want{codes.RateLimited, rateLimited("HTTP 403 Forbidden"), true, 0, 0}},
	{"403 none remaining, reset from Date", fetchArgs{Status: 403, Remaining: "0", Reset: fixedReset, Date: "fixed"}, want{codes.RateLimited, rateLimited("HTTP 403 Forbidden"), true, 60, 0}},
	{"403 none remaining, reset from now", fetchArgs{Status: 403, Remaining: "0", Reset: "in-1h", Date: "none"}, want{codes.RateLimited, rateLimited("HTTP 403 Forbidden"), true, 3598, 3600}},
	{"403 none remaining, no reset", fetchArgs{Status: 403, Remaining: "0"}, want{codes.RateLimited, rateLimited("HTTP 403 Forbidden"), true, 0, 0}},
	{"403 none remaining, past reset", fetchArgs{Status: 403, Remaining: "0", Reset: "1577836700", Date: "fixed"}, want{codes.RateLimited, rateLimited("HTTP 403 Forbidden"), true, 0, 0}},
	{"403 none remaining, invalid reset", fetchArgs{Status: 403, Remaining: "0", Reset: "soon", Date: "fixed"}, want{codes.RateLimited, rateLimited("HTTP 403 Forbidden"), true, 0, 0}},
	{"403 none remaining, reset in a year", fetchArgs{Status: 403, Remaining: "0", Reset: "1609459200", Date: "fixed"}, want{codes.RateLimited, rateLimited("HTTP 403 Forbidden"), true, week, 0}},
	{"403 none remaining, absurd reset", fetchArgs{Status: 403, Remaining: "0", Reset: "99999999999999999999999", Date: "fixed"}, want{codes.RateLimited, rateLimited("HTTP 403 Forbidden"), true, week, 0}},
	{"403 some remaining", fetchArgs{Status: 403, Remaining: "12", Reset: fixedReset, Date: "fixed"}, want{codes.ExternalServiceError, "The tool is not allowed to use the service it called (HTTP 403 Forbidden); the server's operator must fix this, so retrying will not help.", false, 0, 0}},
	{"429 none remaining, reset", fetchArgs{Status: 429, Remaining: "0", Reset: fixedReset, Date: "fixed"}, want{codes.RateLimited, rateLimited("HTTP 429 Too Many Requests"), true, 60, 0}},
	{"429 Retry-After before reset", fetchArgs{Status: 429, RetryAfter: "10", Remaining: "0", Reset: fixedReset, Date: "fixed"}, want{codes.RateLimited, rateLimited("HTTP 429 Too Many Requests"), true, 10, 0}},
	{"429 some remaining ignores reset", fetchArgs{Status: 429, Remaining: "3", Reset: fixedReset, Date: "fixed"}, want{codes.RateLimited, rateLimited("HTTP 429 Too Many Requests"), true, 0, 0}},
	{"500", fetchArgs{Status: 500}, want{codes.ExternalServiceError, failed("HTTP 500 Internal Server Error"), true, 0, 0}},
	{"501", fetchArgs{Status: 501}, want{codes.ExternalServiceError, "The service the tool called does not support this request (HTTP 501 Not Implemented); retrying will not help.", false, 0, 0}},
	{"501 ignores Retry-After", fetchArgs{Status: 501, RetryAfter: "30"}, want{codes.ExternalServiceError, "The service the tool called does not support this request (HTTP 501 Not Implemented); retrying will not help.", false, 0, 0}},
	{"502", fetchArgs{Status: 502}, want{codes.ExternalServiceError, failed("HTTP 502 Bad Gateway"), true, 0, 0}},
	{"503", fetchArgs{Status: 503}, want{codes.Unavailable, unavailable("HTTP 503 Service Unavailable"), true, 2, 0}},
	{"503 seconds", fetchArgs{Status: 503, RetryAfter: "30"}, want{codes.Unavailable, unavailable("HTTP 503 Service Unavailable"), true, 30, 0}},
	{"503 date from Date", fetchArgs{Status: 503, RetryAfter: fixedRetryAfter, Date: "fixed"}, want{codes.Unavailable, unavailable("HTTP 503 Service Unavailable"), true, 90, 0}},
	{"503 ignores reset", fetchArgs{Status: 503, Remaining: "0", Reset: fixedReset, Date: "fixed"}, want{codes.Unavailable, unavailable("HTTP 503 Service Unavailable"), true, 2, 0}},
	{"503 date from now", fetchArgs{Status: 503, RetryAfter: "in-1h", Date: "none"}, want{codes.Unavailable, unavailable("HTTP 503 Service Unavailable"), true, 3598, 3600}},
	{"504", fetchArgs{Status: 504}, want{codes.Timeout, "The service the tool called did not answer in time (HTTP 504 Gateway Timeout); retry the call.", true, 0, 0}},
	{"599 (no name)", fetchArgs{Status: 599}, want{codes.ExternalServiceError, failed("HTTP 599"), true, 0, 0}},
}

func TestMapping(t *testing.T) {
	srv := upstream(t)
	f := fetcher{base: srv.URL, client: srv.Client()}
	for _, tc := range mapped {
		t.Run(tc.name, func(t *testing.T) {
			log := mcperrtest.NewLog(t)
			for _, sdk := range connect(t, log, f, []filter.Filter{httpfilter.New()}, nil) {
				t.Run(sdk.name, func(t *testing.T) {
					assertAnswer(t, sdk.call(tc.in), log, tc.in.Status, tc.want)
				})
			}
		})
	}
}

// assertAnswer checks that res is the answer w to status, holds neither
// canary, and that the log record of the failure keeps the body's canary
// but not the URL's.
func assertAnswer(t *testing.T, res *mcperrtest.Result, log *mcperrtest.Log, status int, w want) {
	t.Helper()
	mcperrtest.AssertNoCanary(t, res, bodyCanary)
	mcperrtest.AssertNoCanary(t, res, urlCanary)
	if !mcperrtest.AssertToolError(t, res, w.code, w.message) {
		return
	}
	env := res.Envelope
	if env.Retryable != w.retryable {
		t.Errorf("retryable %v, want %v", env.Retryable, w.retryable)
	}
	if w.maxAfter == 0 && env.RetryAfterSeconds != w.retryAfter ||
		w.maxAfter != 0 && !(env.RetryAfterSeconds > w.retryAfter && env.RetryAfterSeconds <= w.maxAfter) {
		t.Errorf("retryAfterSeconds %v, want %v (at most %v)", env.RetryAfterSeconds, w.retryAfter, w.maxAfter)
	}
	var details map[string]any
	if err := json.Unmarshal(env.Details, &details); err != nil || len(details) != 1 || details["httpStatus"] != float64(status) {
		t.Errorf("details %s, want {\"httpStatus\":%d}", env.Details, status)
	}
	server := w.code == codes.ExternalServiceError || w.code == codes.Unavailable || w.code == codes.Timeout
	if server != (env.Ref != "") {
		t.Errorf("ref %q: a %s answer has a ref if and only if it is a server error", env.Ref, w.code)
	}
	var recs []mcperrtest.Record
	for _, r := range log.Records() {
		if r.Attrs["request_id"] == env.RequestID {
			recs = append(recs, r)
		}
	}
	if server {
		recs = log.WithRef(env.Ref)
	}
	if len(recs) != 1 {
		t.Fatalf("%d records of the failure, want 1:\n%v", len(recs), recs)
	}
	text := fmt.Sprint(recs[0].Attrs["error"])
	if !strings.Contains(text, bodyCanary) || !strings.Contains(text, "GET http://127.0.0.1:") {
		t.Errorf("the record's error is %q, want the original error: method, URL and body", text)
	}
	if strings.Contains(recs[0].String(), urlCanary) {
		t.Errorf("the record holds the URL's query or password: %v", recs[0])
	}
}

func TestUnrelatedErrorPassesOn(t *testing.T) {
	// A refused connection is client.Do's error, not Check's: this filter
	// passes it on, and without another filter it is masked.
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + lis.Addr().String()
	lis.Close()
	log := mcperrtest.NewLog(t)
	for _, sdk := range connect(t, log, fetcher{base: base, client: http.DefaultClient}, []filter.Filter{httpfilter.New()}, nil) {
		t.Run(sdk.name, func(t *testing.T) {
			res := sdk.call(fetchArgs{Status: 404})
			mcperrtest.AssertNoCanary(t, res, urlCanary)
			mcperrtest.AssertMasked(t, res, log)
		})
	}
}

func TestSuccessUntouched(t *testing.T) {
	srv := upstream(t)
	log := mcperrtest.NewLog(t)
	for _, sdk := range connect(t, log, fetcher{base: srv.URL, client: srv.Client()}, nil, []filter.Filter{httpfilter.New()}) {
		t.Run(sdk.name, func(t *testing.T) {
			for _, status := range []int{200, 204, 304} {
				res := sdk.call(fetchArgs{Status: status})
				if mcperrtest.AssertSuccess(t, res) && res.Text() != "order 7" {
					t.Errorf("%d: text %q, want order 7", status, res.Text())
				}
			}
		})
	}
	if recs := log.Records(); len(recs) != 0 {
		t.Errorf("a success was logged: %v", recs)
	}
}

func TestPerTool(t *testing.T) {
	srv := upstream(t)
	log := mcperrtest.NewLog(t)
	for _, sdk := range connect(t, log, fetcher{base: srv.URL, client: srv.Client()}, nil, []filter.Filter{httpfilter.New()}) {
		t.Run(sdk.name, func(t *testing.T) {
			assertAnswer(t, sdk.call(mapped[4].in), log, 404, mapped[4].want)
		})
	}
}

func TestCheckLeavesSuccessAlone(t *testing.T) {
	srv := upstream(t)
	resp, err := srv.Client().Get(srv.URL + "/orders/7?status=200")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := httpfilter.Check(resp); err != nil {
		t.Fatalf("Check: %v", err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil || !strings.Contains(string(body), bodyCanary) {
		t.Errorf("the body after Check: %q, %v; want it unread", body, err)
	}
}

func TestCheckStatusError(t *testing.T) {
	big := strings.Repeat("x", 10<<10) + bodyCanary
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "7")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, big)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()

	for range 2 {
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/v1/orders;7?api_key="+urlCanary+"#frag", strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		req.URL.User = nil
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		err = httpfilter.Check(resp)
		var se *httpfilter.StatusError
		if !errors.As(err, &se) {
			t.Fatalf("Check: %T %v, want a *StatusError", err, err)
		}
		if se.StatusCode != 503 || se.RetryAfter.Seconds() != 7 || se.Method != "POST" || se.URL != srv.URL+"/v1/orders;7" {
			t.Errorf("StatusError %+v", se)
		}
		if len(se.Body) != 4<<10 || strings.Contains(string(se.Body), bodyCanary) {
			t.Errorf("the error keeps %d bytes of the body, want the first 4096", len(se.Body))
		}
		if strings.Contains(se.Error(), urlCanary) || !strings.HasPrefix(se.Error(), "POST "+srv.URL+"/v1/orders;7: HTTP 503 Service Unavailable, retry after 7s, body \"xxx") {
			t.Errorf("Error() = %.200q", se.Error())
		}
		if n, err := resp.Body.Read(make([]byte, 1)); n != 0 || err == nil {
			t.Errorf("the body is still open after Check: read %d, %v", n, err)
		}
	}
	// The body was drained, so the second request used the first's
	// connection.
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections for two requests, want 1: the body was not drained", n)
	}
}

func TestCheckUserInfo(t *testing.T) {
	srv := upstream(t)
	err := fetcher{base: srv.URL, client: srv.Client()}.fetchErr(t, 404)
	var se *httpfilter.StatusError
	if !errors.As(err, &se) {
		t.Fatalf("%T %v, want a *StatusError", err, err)
	}
	if se.URL != srv.URL+"/orders/7" || strings.Contains(err.Error(), urlCanary) {
		t.Errorf("URL %q; error %q: want neither the password nor the query", se.URL, err)
	}
}

// fetchErr returns the tool's error for status.
func (f fetcher) fetchErr(t *testing.T, status int) error {
	t.Helper()
	_, err := f.fetch(t.Context(), fetchArgs{Status: status})
	return err
}

func TestCheckNoResponse(t *testing.T) {
	err := httpfilter.Check(nil)
	var se *httpfilter.StatusError
	if err == nil || errors.As(err, &se) {
		t.Fatalf("Check(nil) = %v, want an error that no filter answers", err)
	}
	r, next := httpfilter.New().Catch(t.Context(), filter.Call{Tool: "fetch"}, err)
	if r != nil || next != nil {
		t.Errorf("the filter answered %+v, %v; want it passed on", r, next)
	}
}
