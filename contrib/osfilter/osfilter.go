package osfilter

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"os"
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
	textReset       = "The connection to a service the tool depends on broke before it answered; check whether the operation took effect before retrying."
	textNotExist    = "The file or directory does not exist; check the name in the arguments."
	textPermission  = "Access to the file or directory is denied; retrying will not help."
	textNotEmpty    = "The directory is not empty; remove what it holds first."
	textExist       = "A file or directory with this name already exists; choose another name."
)

// catch answers err as the package documentation's table says.
func catch(ctx context.Context, _ filter.Call, err error) (*filter.Response, error) {
	if timedOut(err) {
		return answer(codes.Timeout, textTimeout, true, 0), nil
	}
	var op *net.OpError
	network := errors.As(err, &op)
	switch {
	case connRefused(err), network && op.Op == "dial" && errors.Is(err, fs.ErrNotExist):
		// Nothing listens on the port, or at the Unix socket's path.
		return answer(codes.Unavailable, textUnreachable, true, unreachableDelay), nil
	case connReset(err):
		return answer(codes.ExternalServiceError, textReset, true, 0), nil
	case network:
		// Any other network error, even one that holds a file error such
		// as EACCES, is no file's.
		return nil, nil
	case errors.Is(err, fs.ErrNotExist):
		return answer(codes.NotFound, textNotExist, false, 0), nil
	case errors.Is(err, fs.ErrPermission):
		return answer(codes.Forbidden, textPermission, false, 0), nil
	case notEmpty(err):
		return answer(codes.Conflict, textNotEmpty, false, 0), nil
	case errors.Is(err, fs.ErrExist):
		return answer(codes.Conflict, textExist, false, 0), nil
	}
	return nil, nil
}

// answer returns a response with code, message and retry advice.
func answer(code codes.Code, message string, retry bool, after time.Duration) *filter.Response {
	return &filter.Response{Code: code, Message: message, Retryable: &retry, RetryAfter: after}
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
