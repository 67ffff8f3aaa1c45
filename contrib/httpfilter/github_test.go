package httpfilter_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-github/v84/github"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/contrib/httpfilter"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/mcperrtest"
)

// githubCanary is the "message" of every error body the GitHub upstream
// sends: go-github keeps it in its errors, for the log, and the client
// must never read it.
const githubCanary = "canary-gh-5d1e-private-repo-acme/secret"

// githubFilters are the filters a server that calls GitHub with go-github
// installs, as the README shows them.
func githubFilters() []filter.Filter {
	return []filter.Filter{
		httpfilter.New(),
		httpfilter.From(func(e *github.ErrorResponse) *http.Response { return e.Response }),
		httpfilter.From(func(e *github.RateLimitError) *http.Response { return e.Response }),
		httpfilter.From(func(e *github.AbuseRateLimitError) *http.Response { return e.Response }),
	}
}

// githubAnswer is how a GitHub upstream answers every request.
type githubAnswer struct {
	status  int
	headers map[string]string
	// docURL is the body's documentation_url, which go-github reads to
	// tell a secondary rate limit.
	docURL string
}

// githubUpstream returns a go-github client of an upstream that answers
// every request with a, and the count of requests it received.
func githubUpstream(t *testing.T, a githubAnswer) (*github.Client, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n.Add(1)
		for k, v := range a.headers {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(a.status)
		body, _ := json.Marshal(map[string]string{"message": githubCanary, "documentation_url": a.docURL})
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	c, err := github.NewClient(srv.Client()).WithEnterpriseURLs(srv.URL+"/", srv.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	return c, &n
}

// getIssue is the tool's work: it gets issue 7 of acme/app, and returns
// go-github's error as it is.
func getIssue(t *testing.T, c *github.Client) error {
	t.Helper()
	_, _, err := c.Issues.Get(t.Context(), "acme", "app", 7)
	if err == nil {
		t.Fatal("Issues.Get succeeded, want an error")
	}
	return err
}

// handle runs err through a pipeline with filters, logging to log, as the
// adapters do for a failed call of the tool get_issue.
func handle(t *testing.T, log *mcperrtest.Log, err error, filters ...filter.Filter) *filter.Failure {
	t.Helper()
	p, perr := filter.New(filter.WithLogger(log.Logger()), filter.WithFilters(filters...))
	if perr != nil {
		t.Fatal(perr)
	}
	f := p.Handle(t.Context(), filter.Call{Tool: "get_issue"}, err)
	if f == nil {
		t.Fatal("Handle returned no failure")
	}
	return f
}

// assertFailure checks that f is the answer w to status and that neither
// its envelope nor its texts hold the upstream's message.
func assertFailure(t *testing.T, f *filter.Failure, status int, w want) {
	t.Helper()
	assertNoGitHubCanary(t, f)
	env := f.Envelope
	if env.Code != w.code || env.Message != w.message || len(f.Texts) == 0 || f.Texts[0] != w.message {
		t.Errorf("answer %s %q, texts %q; want %s %q", env.Code, env.Message, f.Texts, w.code, w.message)
	}
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
}

// assertNoGitHubCanary checks that nothing the client reads holds the
// upstream's message.
func assertNoGitHubCanary(t *testing.T, f *filter.Failure) {
	t.Helper()
	env, err := json.Marshal(f.Envelope)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(env), githubCanary) || strings.Contains(strings.Join(f.Texts, "\n"), githubCanary) {
		t.Errorf("the client reads the upstream's message: %s %q", env, f.Texts)
	}
}

// asType checks that go-github returned an error of type E, so that the
// case runs through the filter of From that it means to.
func asType[E error](t *testing.T, err error) {
	t.Helper()
	var target E
	if !errors.As(err, &target) {
		t.Fatalf("go-github returned %T %v, want a %T", err, err, target)
	}
}

func TestGitHubNotFound(t *testing.T) {
	c, _ := githubUpstream(t, githubAnswer{status: 404})
	err := getIssue(t, c)
	asType[*github.ErrorResponse](t, err)
	log := mcperrtest.NewLog(t)
	f := handle(t, log, err, githubFilters()...)
	assertFailure(t, f, 404, want{codes.NotFound, notFound("HTTP 404 Not Found"), false, 0, 0})
	// The log keeps go-github's error, the upstream's message included.
	if !strings.Contains(f.ErrorText, githubCanary) {
		t.Errorf("the failure's error text %q, want go-github's error", f.ErrorText)
	}
}

func TestGitHubWrapped(t *testing.T) {
	c, _ := githubUpstream(t, githubAnswer{status: 404})
	err := fmt.Errorf("get issue: %w", getIssue(t, c))
	f := handle(t, mcperrtest.NewLog(t), err, githubFilters()...)
	assertFailure(t, f, 404, want{codes.NotFound, notFound("HTTP 404 Not Found"), false, 0, 0})
}

func TestGitHubTooManyRequests(t *testing.T) {
	c, _ := githubUpstream(t, githubAnswer{status: 429, headers: map[string]string{"Retry-After": "30"}})
	err := getIssue(t, c)
	asType[*github.ErrorResponse](t, err)
	f := handle(t, mcperrtest.NewLog(t), err, githubFilters()...)
	assertFailure(t, f, 429, want{codes.RateLimited, rateLimited("HTTP 429 Too Many Requests"), true, 30, 0})
}

// primaryLimit is a 403 of GitHub's primary rate limit: no requests
// remain until 60 seconds after the response's Date.
func primaryLimit() githubAnswer {
	now := time.Now().UTC().Truncate(time.Second)
	return githubAnswer{status: 403, headers: map[string]string{
		"Date":                  now.Format(http.TimeFormat),
		"X-RateLimit-Limit":     "5000",
		"X-RateLimit-Remaining": "0",
		"X-RateLimit-Reset":     strconv.FormatInt(now.Add(time.Minute).Unix(), 10),
	}}
}

func TestGitHubPrimaryRateLimit(t *testing.T) {
	c, _ := githubUpstream(t, primaryLimit())
	err := getIssue(t, c)
	asType[*github.RateLimitError](t, err)
	f := handle(t, mcperrtest.NewLog(t), err, githubFilters()...)
	assertFailure(t, f, 403, want{codes.RateLimited, rateLimited("HTTP 403 Forbidden"), true, 60, 0})
}

func TestGitHubSecondaryRateLimit(t *testing.T) {
	c, _ := githubUpstream(t, githubAnswer{status: 403, headers: map[string]string{"Retry-After": "45"},
		docURL: "https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api#about-secondary-rate-limits"})
	err := getIssue(t, c)
	asType[*github.AbuseRateLimitError](t, err)
	f := handle(t, mcperrtest.NewLog(t), err, githubFilters()...)
	assertFailure(t, f, 403, want{codes.RateLimited, rateLimited("HTTP 403 Forbidden"), true, 45, 0})
}

// While a primary rate limit it was told of lasts, go-github refuses calls
// itself, without a request, with a *RateLimitError whose Response is a 403
// it made up, without headers. The plain function reads that as a 403;
// one that adds the limit's headers, as the README shows, reads it as the
// rate limit it is.
func TestGitHubOwnRefusal(t *testing.T) {
	c, n := githubUpstream(t, primaryLimit())
	asType[*github.RateLimitError](t, getIssue(t, c))
	err := getIssue(t, c)
	if got := n.Load(); got != 1 {
		t.Fatalf("the upstream received %d requests, want 1: go-github did not refuse the second itself", got)
	}
	asType[*github.RateLimitError](t, err)

	f := handle(t, mcperrtest.NewLog(t), err, githubFilters()...)
	assertFailure(t, f, 403, want{codes.ExternalServiceError, "The tool is not allowed to use the service it called (HTTP 403 Forbidden); the server's operator must fix this, so retrying will not help.", false, 0, 0})

	withHeaders := httpfilter.From(func(e *github.RateLimitError) *http.Response {
		if e.Response == nil {
			return nil
		}
		r := *e.Response
		r.Header = r.Header.Clone()
		r.Header.Set("X-RateLimit-Remaining", "0")
		r.Header.Set("X-RateLimit-Reset", strconv.FormatInt(e.Rate.Reset.Unix(), 10))
		return &r
	})
	f = handle(t, mcperrtest.NewLog(t), err, withHeaders)
	assertFailure(t, f, 403, want{codes.RateLimited, rateLimited("HTTP 403 Forbidden"), true, 55, 60})
}

func TestGitHubServerError(t *testing.T) {
	c, _ := githubUpstream(t, githubAnswer{status: 500})
	err := getIssue(t, c)
	log := mcperrtest.NewLog(t)
	f := handle(t, log, err, githubFilters()...)
	assertFailure(t, f, 500, want{codes.ExternalServiceError, failed("HTTP 500 Internal Server Error"), true, 0, 0})
	recs := log.WithRef(f.Envelope.Ref)
	if len(recs) != 1 || !strings.Contains(fmt.Sprint(recs[0].Attrs["error"]), githubCanary) {
		t.Errorf("records of ref %q: %v; want one, with go-github's error", f.Envelope.Ref, recs)
	}
}

// The body go-github read stays as go-github left it: the filter reads
// only the status and the headers.
func TestGitHubBodyUnread(t *testing.T) {
	c, _ := githubUpstream(t, githubAnswer{status: 404})
	err := getIssue(t, c)
	handle(t, mcperrtest.NewLog(t), err, githubFilters()...)
	var er *github.ErrorResponse
	if !errors.As(err, &er) {
		t.Fatalf("%T, want a *github.ErrorResponse", err)
	}
	body, rerr := io.ReadAll(er.Response.Body)
	if rerr != nil || !strings.Contains(string(body), githubCanary) {
		t.Errorf("the body after the filter: %q, %v; want go-github's copy, unread", body, rerr)
	}
}

func TestFromNil(t *testing.T) {
	_, err := filter.New(filter.WithFilters(httpfilter.New(), httpfilter.From[*github.ErrorResponse](nil)))
	var de *codes.DefinitionError
	if !errors.As(err, &de) || de.Mistake != codes.NilValue || !strings.Contains(de.Reason, "httpfilter.From") {
		t.Fatalf("filter.New: %v, want a NIL_VALUE definition error that names httpfilter.From", err)
	}
	if r, next := httpfilter.From[*github.ErrorResponse](nil).Catch(t.Context(), filter.Call{}, &github.ErrorResponse{}); r != nil || next != nil {
		t.Errorf("From(nil) answered %+v, %v; want nothing", r, next)
	}
}

// Errors without a response pass on, and the pipeline masks them.
func TestGitHubPassesOn(t *testing.T) {
	for name, err := range map[string]error{
		"plain error":      errors.New("dial tcp: connection refused " + githubCanary),
		"nil Response":     &github.ErrorResponse{Message: githubCanary},
		"nil RateLimit":    fmt.Errorf("get issue: %w", &github.RateLimitError{Message: githubCanary}),
		"nil AbuseLimit":   &github.AbuseRateLimitError{Message: githubCanary},
		"typed nil, panic": fmt.Errorf("get issue: %w", (*github.ErrorResponse)(nil)),
	} {
		t.Run(name, func(t *testing.T) {
			f := handle(t, mcperrtest.NewLog(t), err, githubFilters()...)
			assertNoGitHubCanary(t, f)
			if f.Envelope.Code != codes.InternalError || f.Envelope.Ref == "" {
				t.Errorf("answer %s, ref %q; want INTERNAL_ERROR with a ref", f.Envelope.Code, f.Envelope.Ref)
			}
		})
	}
}

// respErr is an error of a client library that keeps the response.
type respErr struct{ resp *http.Response }

func (e *respErr) Error() string { return "client: " + e.resp.Status }

func TestFromResponses(t *testing.T) {
	fromRespErr := httpfilter.From(func(e *respErr) *http.Response { return e.resp })
	for _, status := range []int{200, 204, 302} {
		err := &respErr{&http.Response{StatusCode: status, Status: githubCanary}}
		if r, next := fromRespErr.Catch(t.Context(), filter.Call{}, err); r != nil || next != nil {
			t.Errorf("%d: the filter answered %+v, %v; want it passed on", status, r, next)
		}
	}
	// A response without a request, headers or body is read as Check
	// reads a full one.
	err := fmt.Errorf("list: %w", &respErr{&http.Response{StatusCode: 503, Status: "503 " + githubCanary}})
	r, next := fromRespErr.Catch(t.Context(), filter.Call{}, err)
	if next != nil || r == nil || r.Code != codes.Unavailable || r.Message != unavailable("HTTP 503 Service Unavailable") || r.RetryAfter != 2*time.Second {
		t.Errorf("the filter answered %+v, %v; want UNAVAILABLE after 2 s", r, next)
	}
	// A body that blocks is never read.
	pr, pw := io.Pipe()
	defer pw.Close()
	err = &respErr{&http.Response{StatusCode: 404, Body: pr}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if r, _ := fromRespErr.Catch(t.Context(), filter.Call{}, err); r == nil || r.Code != codes.NotFound {
			t.Errorf("the filter answered %+v, want NOT_FOUND", r)
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the filter blocked on the body")
	}
}

// A response function that panics does not crash the server: the
// pipeline recovers it and masks the error.
func TestFromPanics(t *testing.T) {
	boom := httpfilter.From(func(*respErr) *http.Response { panic("boom") })
	log := mcperrtest.NewLog(t)
	f := handle(t, log, &respErr{&http.Response{StatusCode: 404, Status: "404 " + githubCanary}}, boom)
	assertNoGitHubCanary(t, f)
	if f.Envelope.Code != codes.InternalError || f.Envelope.Ref == "" {
		t.Errorf("answer %s, ref %q; want INTERNAL_ERROR with a ref", f.Envelope.Code, f.Envelope.Ref)
	}
	if !strings.Contains(f.ErrorText, "boom") && !strings.Contains(fmt.Sprint(log.WithRef(f.Envelope.Ref)), "boom") {
		t.Errorf("the log does not tell of the panic: %q %v", f.ErrorText, log.Records())
	}
}
