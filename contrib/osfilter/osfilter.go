package osfilter

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
)

// New returns a filter that answers the file and network errors of the
// package documentation's table and passes every other error on.
func New() filter.Filter {
	return filter.Catch(catch)
}

// unreachableDelay is the retry delay of a service that refused the
// connection: long enough for a restarted service to listen again.
const unreachableDelay = 2 * time.Second

// What the model reads.
const (
	textTimeout     = "A service the tool depends on did not answer in time; retry the call."
	textUnreachable = "A service the tool depends on is not accepting connections right now; retry the call shortly."
	textReset       = "The connection to a service the tool depends on broke before it answered; retry the call."
	textResetSent   = "The connection to a service the tool depends on broke before it answered."
	textTimeoutSent = "A service the tool depends on did not answer in time."
	textNotExist    = "The file or directory does not exist; check the name in the arguments."
	textPermission  = "Access to the file or directory is denied; retrying will not help."
	textNotEmpty    = "The directory is not empty; remove what it holds first."
	textExist       = "A file or directory with this name already exists; choose another name."
)

// catch answers err as the package documentation's table says.
func catch(ctx context.Context, _ filter.Call, err error) (*filter.Response, error) {
	var op *net.OpError
	network := errors.As(err, &op)
	// A broken pipe is a reset only on a connection; a pipe's is no
	// service's.
	reset := connReset(err) || network && brokenPipe(err)
	switch {
	case timedOut(err) && mayHaveTakenEffect(err, op):
		return answer(codes.Timeout, textTimeoutSent, true, 0, true), nil
	case timedOut(err):
		return answer(codes.Timeout, textTimeout, true, 0, false), nil
	case connRefused(err), network && op.Op == "dial" && errors.Is(err, fs.ErrNotExist):
		// Nothing listens on the port, or at the Unix socket's path.
		return answer(codes.Unavailable, textUnreachable, true, unreachableDelay, false), nil
	case reset && mayHaveTakenEffect(err, op):
		return answer(codes.ExternalServiceError, textResetSent, true, 0, true), nil
	case reset:
		return answer(codes.ExternalServiceError, textReset, true, 0, false), nil
	case network:
		// Any other network error, even one that holds a file error such
		// as EACCES, is no file's.
		return nil, nil
	case errors.Is(err, fs.ErrNotExist):
		return answer(codes.NotFound, textNotExist, false, 0, false), nil
	case errors.Is(err, fs.ErrPermission):
		return answer(codes.Forbidden, textPermission, false, 0, false), nil
	case notEmpty(err):
		return answer(codes.Conflict, textNotEmpty, false, 0, false), nil
	case errors.Is(err, fs.ErrExist):
		return answer(codes.Conflict, textExist, false, 0, false), nil
	}
	return nil, nil
}

// answer returns a response with code, message and retry advice.
func answer(code codes.Code, message string, retry bool, after time.Duration, mayHave bool) *filter.Response {
	return &filter.Response{Code: code, Message: message, Retryable: &retry, RetryAfter: after, MayHaveTakenEffect: mayHave}
}

// mayHaveTakenEffect reports whether the operation that failed with err,
// whose *net.OpError is op if any, may have reached the service and done
// its work. Only a dial shows that nothing was sent, and only an HTTP
// request whose method reads (the Op of a *url.Error is the method, as in
// "Get") that sending it again changes nothing. Anything else may have:
// a read or write on a connection that was made, an HTTP request of
// another method, and an error that does not show how far the call got,
// such as a bare context.DeadlineExceeded, which pgx and the MySQL driver
// return in place of the read's error of a statement already sent.
func mayHaveTakenEffect(err error, op *net.OpError) bool {
	if op != nil && op.Op == "dial" {
		return false
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		switch strings.ToUpper(ue.Op) {
		case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
			return false
		}
	}
	return true
}

// timedOut reports whether err is a timeout: a context.DeadlineExceeded,
// an os.ErrDeadlineExceeded (a deadline set on a connection or a file),
// or an error whose Timeout method says so, as net.Error's does.
func timedOut(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) {
		return true
	}
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}
