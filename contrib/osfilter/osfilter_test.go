package osfilter_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/contrib/osfilter"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/mcperrtest"
)

// want is what the client must read for one case.
type want struct {
	code       codes.Code
	message    string
	retryable  bool
	retryAfter float64 // seconds; 0: none
	// unknown: the operation may have taken effect, and the tool is not
	// annotated read-only, so the outcome is unknown and it is not retryable.
	unknown bool
}

// server reports whether w's code is a server error, whose answer has a
// ref naming its log record.
func (w want) server() bool {
	return w.code == codes.ExternalServiceError || w.code == codes.Unavailable || w.code == codes.Timeout
}

var (
	timeout     = want{codes.Timeout, "A service the tool depends on did not answer in time; retry the call.", true, 0, false}
	timeoutSent = want{codes.Timeout, "A service the tool depends on did not answer in time.", false, 0, true}
	unreachable = want{codes.Unavailable, "A service the tool depends on is not accepting connections right now; retry the call shortly.", true, 2, false}
	resetSent   = want{codes.ExternalServiceError, "The connection to a service the tool depends on broke before it answered.", false, 0, true}
)

// mapped is the table of the package documentation, each row provoked for
// real, with the error the operation must have failed with.
var mapped = []struct {
	op    string
	cause error
	want  want
}{
	{opMissing, fs.ErrNotExist, want{codes.NotFound, "The file or directory does not exist; check the name in the arguments.", false, 0, false}},
	{opPermission, fs.ErrPermission, want{codes.Forbidden, "Access to the file or directory is denied; retrying will not help.", false, 0, false}},
	{opExists, fs.ErrExist, want{codes.Conflict, "A file or directory with this name already exists; choose another name.", false, 0, false}},
	{opNotEmpty, syscall.ENOTEMPTY, want{codes.Conflict, "The directory is not empty; remove what it holds first.", false, 0, false}},
	{opHTTPTimeout, context.DeadlineExceeded, timeout},
	{opConnTimeout, os.ErrDeadlineExceeded, timeoutSent}, // what was written before may have done its work
	{opPostTimeout, context.DeadlineExceeded, timeoutSent},
	{opCtxTimeout, context.DeadlineExceeded, timeout},
	{opRefused, syscall.ECONNREFUSED, unreachable},
	{opNoSocket, fs.ErrNotExist, unreachable},
	{opReset, syscall.ECONNRESET, resetSent},
	{opBrokenPipe, syscall.EPIPE, resetSent},
	// No connection and no request show how far the call got: it may have
	// been sent, as a database driver's own deadline reads the same.
	{opOwnDeadline, context.DeadlineExceeded, timeoutSent},
}

func TestMapping(t *testing.T) {
	w := newWorld(t)
	for _, tc := range mapped {
		t.Run(tc.op, func(t *testing.T) {
			// The operation fails as the row says, for real.
			if err := w.do(t.Context(), tc.op); !errors.Is(err, tc.cause) {
				t.Fatalf("%s failed with %v, want %v in the chain", tc.op, err, tc.cause)
			}
			log := mcperrtest.NewLog(t)
			for _, sdk := range connect(t, log, w, []filter.Filter{osfilter.New()}, nil) {
				t.Run(sdk.name, func(t *testing.T) {
					assertAnswer(t, sdk.call(tc.op), log, tc.want)
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
	if env.Retryable != w.retryable || env.RetryAfterSeconds != w.retryAfter || (env.Outcome == "unknown") != w.unknown {
		t.Errorf("retryable %v after %v s, outcome %q; want %v after %v s, outcome unknown %v", env.Retryable, env.RetryAfterSeconds, env.Outcome, w.retryable, w.retryAfter, w.unknown)
	}
	if len(env.Details) != 0 {
		t.Errorf("details %s, want none", env.Details)
	}
	if w.server() != (env.Ref != "") {
		t.Errorf("ref %q: a %s answer has a ref if and only if it is a server error", env.Ref, w.code)
	}
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
	if text := fmt.Sprint(recs[0].Attrs["error"]); !strings.Contains(text, canary) {
		t.Errorf("the record's error is %q, want the original error, with the canary", text)
	}
}

func TestUnrelatedErrorPassesOn(t *testing.T) {
	w := newWorld(t)
	log := mcperrtest.NewLog(t)
	for _, sdk := range connect(t, log, w, []filter.Filter{osfilter.New()}, nil) {
		t.Run(sdk.name, func(t *testing.T) {
			res := sdk.call(opUnrelated)
			mcperrtest.AssertNoCanary(t, res, canary)
			mcperrtest.AssertMasked(t, res, log)
		})
	}
}

func TestPerTool(t *testing.T) {
	w := newWorld(t)
	log := mcperrtest.NewLog(t)
	for _, sdk := range connect(t, log, w, nil, []filter.Filter{osfilter.New()}) {
		t.Run(sdk.name, func(t *testing.T) {
			assertAnswer(t, sdk.call(opMissing), log, mapped[0].want)
			assertAnswer(t, sdk.call(opRefused), log, unreachable)
		})
	}
}

// TestRequestEnded checks that the pipeline's answer for a request that
// ends stands, whatever timeout the request's end caused: TIMEOUT or
// CANCELLED, with the pipeline's own text, the original error in the log.
func TestRequestEnded(t *testing.T) {
	w := newWorld(t)
	cases := []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		fail func(ctx context.Context) error
		code codes.Code
	}{
		// An HTTP request under the request's own deadline: the chain holds
		// context.DeadlineExceeded.
		{"request deadline, http", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 50*time.Millisecond)
		}, func(ctx context.Context) error {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+w.silent+"/?token="+canary, nil)
			if err != nil {
				return err
			}
			resp, err := http.DefaultClient.Do(req)
			if err == nil {
				resp.Body.Close()
			}
			return err
		}, codes.Timeout},
		// A connection's own deadline passes after the request was
		// cancelled: the chain holds no context error.
		{"request cancelled, connection deadline", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, cancel
		}, func(context.Context) error {
			c, err := net.Dial("tcp", w.silent)
			if err != nil {
				return err
			}
			defer c.Close()
			_ = c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
			_, err = c.Read(make([]byte, 1))
			return err
		}, codes.Cancelled},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			log := mcperrtest.NewLog(t)
			p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithFilters(osfilter.New()))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := tc.ctx()
			defer cancel()
			err = tc.fail(ctx)
			if err == nil {
				t.Fatal("the operation succeeded")
			}
			<-ctx.Done() // the request has ended once its context says so
			f := p.Handle(ctx, filter.Call{Tool: "op"}, fmt.Errorf("job %s: %w", canary, err))
			// Handled without an adapter, the tool is not known to be
			// read-only: it may have done its work.
			if f.Envelope.Code != tc.code || f.Envelope.Retryable || f.Envelope.Outcome != "unknown" {
				t.Errorf("code %s, retryable %v, outcome %q; want %s, outcome unknown", f.Envelope.Code, f.Envelope.Retryable, f.Envelope.Outcome, tc.code)
			}
			if strings.Contains(f.Envelope.Message, "service") || strings.Contains(f.Envelope.Message, canary) {
				t.Errorf("message %q, want the pipeline's own", f.Envelope.Message)
			}
			recs := log.Records()
			if len(recs) != 1 || !strings.Contains(fmt.Sprint(recs[0].Attrs["error"]), canary) {
				t.Errorf("want one record keeping the original error; got %v", recs)
			}
		})
	}
}

func TestPassesOn(t *testing.T) {
	f := osfilter.New()
	for _, err := range []error{
		errors.New("plain"),
		context.Canceled,
		fmt.Errorf("wrapped: %w", context.Canceled),
		// A network error that holds a file error is no file's.
		&net.OpError{Op: "dial", Net: "tcp", Err: fmt.Errorf("socket: %w", syscall.EACCES)},
		// A write to a pipe whose reader, a process, has gone is no
		// service's connection.
		&fs.PathError{Op: "write", Path: "|1", Err: syscall.EPIPE},
	} {
		r, next := f.Catch(context.Background(), filter.Call{Tool: "op"}, err)
		if r != nil || next != nil {
			t.Errorf("%v: answered %+v, %v; want it passed on", err, r, next)
		}
	}
}

// TestMayHaveTakenEffect checks which failures the filter says may have
// done their work: a reset or a timeout after the connection was made, or
// of an HTTP method that changes things; not those of a dial, nor of a
// method that only reads.
func TestMayHaveTakenEffect(t *testing.T) {
	reset := &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
	dialReset := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNRESET)}
	for _, tc := range []struct {
		err     error
		mayHave bool
	}{
		{reset, true},
		{dialReset, false},
		{&url.Error{Op: "Post", URL: "http://x", Err: reset}, true},
		{&url.Error{Op: "Get", URL: "http://x", Err: reset}, false},
		{&url.Error{Op: "Delete", URL: "http://x", Err: context.DeadlineExceeded}, true},
		{&url.Error{Op: "Head", URL: "http://x", Err: context.DeadlineExceeded}, false},
		{&net.OpError{Op: "dial", Net: "tcp", Err: os.ErrDeadlineExceeded}, false},
		{&net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}, true},
		{&net.OpError{Op: "write", Net: "tcp", Err: os.NewSyscallError("write", syscall.EPIPE)}, true},
		{&url.Error{Op: "Get", URL: "http://x", Err: &net.OpError{Op: "write", Net: "tcp", Err: syscall.EPIPE}}, false},
		// A bare deadline shows nothing of how far the call got.
		{fmt.Errorf("charge: %w", context.DeadlineExceeded), true},
	} {
		r, _ := osfilter.New().Catch(t.Context(), filter.Call{Tool: "op"}, tc.err)
		if r == nil || r.MayHaveTakenEffect != tc.mayHave {
			t.Errorf("%v: answered %+v, want MayHaveTakenEffect %v", tc.err, r, tc.mayHave)
		}
	}
}

// TestTimeoutRetries checks, on both SDKs with retries on, an upstream
// that never answers: a POST's timeout may have taken effect, so the tool,
// not annotated, is not called again and the model reads that the outcome
// is unknown; a GET's timeout, on a tool annotated read-only, is called
// again, and the last failure says how many attempts were made. The
// tool's own bare deadline is retried only on the read-only tool.
func TestTimeoutRetries(t *testing.T) {
	w := newWorld(t)
	log := mcperrtest.NewLog(t)
	for _, sdk := range connect(t, log, w, []filter.Filter{osfilter.New()}, nil, filter.WithRetries(1)) {
		t.Run(sdk.name, func(t *testing.T) {
			res := sdk.call(opPostTimeout)
			mcperrtest.AssertToolError(t, res, codes.Timeout, timeoutSent.message)
			mcperrtest.AssertAttempts(t, res, log, 1)
			if env := res.Envelope; env == nil || env.Outcome != "unknown" {
				t.Errorf("POST: %s; want the outcome unknown", res)
			}
			res = sdk.read(opHTTPTimeout)
			mcperrtest.AssertToolError(t, res, codes.Timeout, timeout.message)
			mcperrtest.AssertAttempts(t, res, log, 2)
			// The tool's own deadline, with nothing to show how far its call
			// got: called again only because the tool is read-only.
			res = sdk.call(opOwnDeadline)
			mcperrtest.AssertAttempts(t, res, log, 1)
			res = sdk.read(opOwnDeadline)
			mcperrtest.AssertToolError(t, res, codes.Timeout, timeoutSent.message)
			mcperrtest.AssertAttempts(t, res, log, 2)
		})
	}
}
