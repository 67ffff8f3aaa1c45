package grpcfilter_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	grpccodes "google.golang.org/grpc/codes"
	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/contrib/grpcfilter"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/mcperrtest"
)

// want is what the client must read for one case.
type want struct {
	code       codes.Code
	message    string
	retryable  bool
	retryAfter float64 // seconds; 0: none
	grpcCode   string  // the details' grpcCode
}

// server reports whether w's code is a server error, whose answer has a
// ref naming its log record.
func (w want) server() bool {
	switch w.code {
	case codes.Timeout, codes.Unavailable, codes.ExternalServiceError:
		return true
	}
	return false
}

// mapped is the table of the package documentation: every gRPC code a
// backend can answer with, as the backend sends it over a real connection.
var mapped = []struct {
	service string
	want    want
}{
	{code(grpccodes.Canceled), want{codes.ExternalServiceError, "The service the tool called cancelled the operation (gRPC Canceled).", true, 0, "Canceled"}},
	{code(grpccodes.Unknown), want{codes.ExternalServiceError, "The service the tool called failed (gRPC Unknown).", true, 0, "Unknown"}},
	{code(grpccodes.InvalidArgument), want{codes.ValidationError, "The service the tool called rejected the request as invalid (gRPC InvalidArgument); check the arguments.", false, 0, "InvalidArgument"}},
	{code(grpccodes.DeadlineExceeded), want{codes.Timeout, "The service the tool called did not answer in time (gRPC DeadlineExceeded).", true, 0, "DeadlineExceeded"}},
	{code(grpccodes.NotFound), want{codes.NotFound, "The service the tool called has no such record (gRPC NotFound); check the identifiers in the arguments.", false, 0, "NotFound"}},
	{code(grpccodes.AlreadyExists), want{codes.Conflict, "A record with these values already exists (gRPC AlreadyExists); choose other values or use the existing record.", false, 0, "AlreadyExists"}},
	{code(grpccodes.PermissionDenied), want{codes.ExternalServiceError, "The tool is not allowed to use the service it called (gRPC PermissionDenied); the server's operator must fix this, so retrying will not help.", false, 0, "PermissionDenied"}},
	{code(grpccodes.ResourceExhausted), want{codes.RateLimited, "The service the tool called is rate limiting requests or out of quota (gRPC ResourceExhausted); wait before retrying.", true, 0, "ResourceExhausted"}},
	{code(grpccodes.FailedPrecondition), want{codes.BusinessRuleViolation, "The service the tool called refused the operation in the current state of the record (gRPC FailedPrecondition); change the state first or choose another operation.", false, 0, "FailedPrecondition"}},
	{code(grpccodes.Aborted), want{codes.Conflict, "The operation conflicted with a concurrent change (gRPC Aborted); retry the call.", true, 0, "Aborted"}},
	{code(grpccodes.OutOfRange), want{codes.ValidationError, "A value in the request is out of range for the service the tool called (gRPC OutOfRange); check the arguments.", false, 0, "OutOfRange"}},
	{code(grpccodes.Unimplemented), want{codes.ExternalServiceError, "The service the tool called does not support this operation (gRPC Unimplemented); retrying will not help.", false, 0, "Unimplemented"}},
	{code(grpccodes.Internal), want{codes.ExternalServiceError, "The service the tool called failed (gRPC Internal).", true, 0, "Internal"}},
	{code(grpccodes.Unavailable), want{codes.Unavailable, "The service the tool called is unavailable right now (gRPC Unavailable).", true, 2, "Unavailable"}},
	{code(grpccodes.DataLoss), want{codes.ExternalServiceError, "The service the tool called reported lost or corrupt data (gRPC DataLoss).", false, 0, "DataLoss"}},
	{code(grpccodes.Unauthenticated), want{codes.ExternalServiceError, "The tool could not authenticate with the service it called (gRPC Unauthenticated); the server's operator must fix this, so retrying will not help.", false, 0, "Unauthenticated"}},
	// A code no grpc-go version names is answered as Unknown.
	{"42", want{codes.ExternalServiceError, "The service the tool called failed (gRPC Code(42)).", true, 0, "Code(42)"}},
	// The backend's RetryInfo is the delay.
	{serviceRetryInfo, want{codes.RateLimited, "The service the tool called is rate limiting requests or out of quota (gRPC ResourceExhausted); wait before retrying.", true, 7, "ResourceExhausted"}},
	{serviceUnavRetry, want{codes.Unavailable, "The service the tool called is unavailable right now (gRPC Unavailable).", true, 0.3, "Unavailable"}},
	// A real deadline: the tool gives its call 50 ms, the backend never
	// answers.
	{serviceBlock, want{codes.Timeout, "The service the tool called did not answer in time (gRPC DeadlineExceeded).", true, 0, "DeadlineExceeded"}},
	// A real refused connection: nothing listens on the port.
	{serviceRefused, want{codes.Unavailable, "The service the tool called is unavailable right now (gRPC Unavailable).", true, 2, "Unavailable"}},
}

// code returns the service name that makes the backend answer with c.
func code(c grpccodes.Code) string { return strconv.Itoa(int(c)) }

func TestMapping(t *testing.T) {
	c := checker{backend: startBackend(t), refused: refusedClient(t)}
	for _, tc := range mapped {
		t.Run(tc.want.grpcCode+"/"+tc.service, func(t *testing.T) {
			log := mcperrtest.NewLog(t)
			for _, sdk := range connect(t, log, c, []filter.Filter{grpcfilter.New()}, nil) {
				t.Run(sdk.name, func(t *testing.T) {
					res := sdk.call(tc.service)
					assertAnswer(t, res, log, tc.want)
					// On a tool that may change things, a call that may have
					// done its work is not retried blindly.
					res = sdk.apply(tc.service)
					unknown := strings.HasSuffix(tc.want.message, ").")
					if env := res.Envelope; env == nil || (env.Outcome == "unknown") != unknown || env.Retryable != (tc.want.retryable && !unknown) {
						t.Errorf("apply: %s; want outcome unknown %v", res, unknown)
					}
				})
			}
		})
	}
}

// assertAnswer checks that res is the answer w, holds no canary, and that
// the log record of the failure keeps the original error, canary and all.
func assertAnswer(t *testing.T, res *mcperrtest.Result, log *mcperrtest.Log, w want) {
	t.Helper()
	mcperrtest.AssertNoCanary(t, res, canary)
	if !mcperrtest.AssertToolError(t, res, w.code, w.message) {
		return
	}
	env := res.Envelope
	if env.Retryable != w.retryable {
		t.Errorf("retryable %v, want %v", env.Retryable, w.retryable)
	}
	if env.RetryAfterSeconds != w.retryAfter {
		t.Errorf("retryAfterSeconds %v, want %v", env.RetryAfterSeconds, w.retryAfter)
	}
	var details map[string]any
	if err := json.Unmarshal(env.Details, &details); err != nil || len(details) != 1 || details["grpcCode"] != w.grpcCode {
		t.Errorf("details %s, want {\"grpcCode\":%q}", env.Details, w.grpcCode)
	}
	if w.server() != (env.Ref != "") {
		t.Errorf("ref %q: a %s answer has a ref if and only if it is a server error", env.Ref, w.code)
	}
	assertLogged(t, log, env)
}

// assertLogged checks that the one record of the failure env describes
// keeps the original error: the status and the canary the tool wrapped it
// with.
func assertLogged(t *testing.T, log *mcperrtest.Log, env *filter.Envelope) {
	t.Helper()
	var recs []mcperrtest.Record
	for _, r := range log.Records() {
		if r.Attrs["request_id"] == env.RequestID {
			recs = append(recs, r)
		}
	}
	if env.Ref != "" {
		recs = log.WithRef(env.Ref)
	}
	if len(recs) != 1 {
		t.Fatalf("%d records of the failure, want 1:\n%v", len(recs), recs)
	}
	text := fmt.Sprint(recs[0].Attrs["error"])
	if !strings.Contains(text, canary) || !strings.Contains(text, "rpc error: code = ") {
		t.Errorf("the record's error is %q, want the original error, with the canary", text)
	}
}

func TestWrappedTwice(t *testing.T) {
	c := checker{backend: startBackend(t), refused: refusedClient(t)}
	log := mcperrtest.NewLog(t)
	wrap := filter.Catch(func(_ context.Context, _ filter.Call, err error) (*filter.Response, error) {
		return nil, fmt.Errorf("service layer: %w", err) // transforms, as an application filter may
	})
	for _, sdk := range connect(t, log, c, []filter.Filter{grpcfilter.New()}, []filter.Filter{wrap}) {
		t.Run(sdk.name, func(t *testing.T) {
			res := sdk.call(code(grpccodes.NotFound))
			assertAnswer(t, res, log, mapped[4].want)
		})
	}
}

func TestUnrelatedErrorPassesOn(t *testing.T) {
	c := checker{backend: startBackend(t), refused: refusedClient(t)}
	log := mcperrtest.NewLog(t)
	for _, sdk := range connect(t, log, c, []filter.Filter{grpcfilter.New()}, nil) {
		t.Run(sdk.name, func(t *testing.T) {
			res := sdk.call(serviceUnrelated)
			mcperrtest.AssertNoCanary(t, res, canary)
			mcperrtest.AssertMasked(t, res, log)
		})
	}
}

func TestSuccessUntouched(t *testing.T) {
	c := checker{backend: startBackend(t), refused: refusedClient(t)}
	log := mcperrtest.NewLog(t)
	for _, sdk := range connect(t, log, c, []filter.Filter{grpcfilter.New()}, nil) {
		t.Run(sdk.name, func(t *testing.T) {
			res := sdk.call(serviceServing)
			if mcperrtest.AssertSuccess(t, res) && res.Text() != "SERVING" {
				t.Errorf("text %q, want SERVING", res.Text())
			}
		})
	}
	if recs := log.Records(); len(recs) != 0 {
		t.Errorf("a success was logged: %v", recs)
	}
}

func TestSendMessage(t *testing.T) {
	c := checker{backend: startBackend(t), refused: refusedClient(t)}
	log := mcperrtest.NewLog(t)
	// Per tool, for the codes whose messages are written for callers.
	f := grpcfilter.New(grpcfilter.SendMessage(grpccodes.InvalidArgument), grpcfilter.SendMessage(grpccodes.FailedPrecondition))
	for _, sdk := range connect(t, log, c, nil, []filter.Filter{f}) {
		t.Run(sdk.name, func(t *testing.T) {
			// Opted in: the message is sent, on one line, bounded; the
			// canary past the bound is not.
			res := sdk.call(serviceLong)
			mcperrtest.AssertNoCanary(t, res, canary)
			said := "page_size must be at most 100 and not " + strings.Repeat("x", 512-len("page_size must be at most 100 and not ")) + "…"
			mcperrtest.AssertToolError(t, res, codes.ValidationError,
				"The service the tool called rejected the request as invalid (gRPC InvalidArgument); check the arguments. The service said: "+strconv.Quote(said))

			// Opted in, and the message holds the canary: sent, as asked.
			res = sdk.call(code(grpccodes.FailedPrecondition))
			mcperrtest.AssertToolError(t, res, codes.BusinessRuleViolation,
				"The service the tool called refused the operation in the current state of the record (gRPC FailedPrecondition); change the state first or choose another operation. The service said: \"the backend's own words about "+canary+"\"")
			if strings.Contains(res.Text(), "check \"") {
				t.Errorf("the text of the tool's wrapping was sent: %q", res.Text())
			}

			// Not opted in: never sent.
			res = sdk.call(code(grpccodes.NotFound))
			mcperrtest.AssertNoCanary(t, res, canary)
			mcperrtest.AssertToolError(t, res, codes.NotFound, mapped[4].want.message)
		})
	}
}

// TestRequestEnded provokes Canceled and DeadlineExceeded with the
// request's own context, and checks that the pipeline's answer for a
// request that ends stands: CANCELLED and TIMEOUT with the pipeline's own
// texts, the original error in the log.
func TestRequestEnded(t *testing.T) {
	backend := startBackend(t)
	cases := []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		code codes.Code
	}{
		{"cancelled", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, cancel
		}, codes.Cancelled},
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 50*time.Millisecond)
		}, codes.Timeout},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			log := mcperrtest.NewLog(t)
			p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithFilters(grpcfilter.New()))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := tc.ctx()
			defer cancel()
			_, err = backend.Check(ctx, &grpc_health_v1.HealthCheckRequest{Service: serviceBlock})
			if err == nil {
				t.Fatal("the call succeeded")
			}
			// The backend's own end of the deadline can reach the client a
			// moment before the client's timer marks ctx done: the request
			// has ended once ctx says so.
			<-ctx.Done()
			f := p.Handle(ctx, filter.Call{Tool: "check"}, fmt.Errorf("check with token %s: %w", canary, err))
			// Handled without an adapter, the tool is not known to be
			// read-only: it may have done its work.
			if f.Envelope.Code != tc.code || f.Envelope.Retryable || f.Envelope.Outcome != "unknown" {
				t.Errorf("code %s, retryable %v, outcome %q; want %s, outcome unknown", f.Envelope.Code, f.Envelope.Retryable, f.Envelope.Outcome, tc.code)
			}
			if strings.Contains(f.Envelope.Message, "gRPC") || strings.Contains(f.Envelope.Message, canary) {
				t.Errorf("message %q, want the pipeline's own", f.Envelope.Message)
			}
			recs := log.Records()
			if len(recs) != 1 || !strings.Contains(fmt.Sprint(recs[0].Attrs["error"]), canary) {
				t.Errorf("want one record keeping the original error; got %v", recs)
			}
		})
	}
}

// noStatus is an error whose GRPCStatus is nil, which grpc-go reads as OK.
type noStatus struct{}

func (noStatus) Error() string              { return "no status" }
func (noStatus) GRPCStatus() *status.Status { return nil }

// okStatus is an error whose status is OK.
type okStatus struct{}

func (okStatus) Error() string              { return "ok" }
func (okStatus) GRPCStatus() *status.Status { return status.New(grpccodes.OK, "") }

func TestPassesOn(t *testing.T) {
	f := grpcfilter.New()
	for _, err := range []error{errors.New("plain"), noStatus{}, okStatus{}, fmt.Errorf("wrapped: %w", okStatus{}), context.Canceled} {
		r, next := f.Catch(context.Background(), filter.Call{Tool: "check"}, err)
		if r != nil || next != nil {
			t.Errorf("%v: answered %+v, %v; want it passed on", err, r, next)
		}
	}
}

// TestUnavailableRetried checks, on both SDKs, a backend that answers
// Unavailable and then OK, with retries on: the read-only tool "check" is
// called again on the server and succeeds; "apply", which may change
// things, is not, and the model reads that the outcome is unknown.
func TestUnavailableRetried(t *testing.T) {
	c := checker{backend: startBackend(t), refused: refusedClient(t)}
	log := mcperrtest.NewLog(t)
	for _, sdk := range connect(t, log, c, []filter.Filter{grpcfilter.New()}, nil, filter.WithRetries(2)) {
		t.Run(sdk.name, func(t *testing.T) {
			unavOnce.Store(0)
			res := sdk.call(serviceUnavOnce)
			mcperrtest.AssertSuccess(t, res)
			mcperrtest.AssertAttempts(t, res, log, 2)
			if n := unavOnce.Load(); n != 2 {
				t.Errorf("the backend was called %d times, want 2", n)
			}

			unavOnce.Store(0)
			res = sdk.apply(serviceUnavOnce)
			mcperrtest.AssertToolError(t, res, codes.Unavailable, "The service the tool called is unavailable right now (gRPC Unavailable).")
			mcperrtest.AssertAttempts(t, res, log, 1)
			if env := res.Envelope; env == nil || env.Outcome != "unknown" || env.Retryable {
				t.Errorf("apply: %s; want the outcome unknown", res)
			}
			if n := unavOnce.Load(); n != 1 {
				t.Errorf("the backend was called %d times, want once", n)
			}
		})
	}
}
