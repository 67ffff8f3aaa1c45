package grpcfilter

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	grpccodes "google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
)

// Option configures the filter New returns.
type Option func(*config)

// config is what the options set.
type config struct {
	// send holds the gRPC codes whose status message is sent.
	send map[grpccodes.Code]bool
}

// SendMessage opts in to sending the backend's status message for one
// gRPC code, after the fixed sentence, such as
//
//	The service the tool called rejected the request as invalid (gRPC InvalidArgument); check the arguments. The service said: "page_size must be at most 100"
//
// Use it only for the codes whose messages the backend writes for its
// callers and that hold nothing secret: a status message is the backend's
// text, sent as it is but for line breaks and other control characters,
// which become spaces, and its length, cut to 512 bytes. Give it once per
// code; codes without it never send the message.
func SendMessage(code grpccodes.Code) Option {
	return func(c *config) {
		if c.send == nil {
			c.send = make(map[grpccodes.Code]bool)
		}
		c.send[code] = true
	}
}

// New returns a filter that answers every error holding a gRPC status
// with a non-OK code, as the package documentation's table says, and
// passes every other error on.
func New(opts ...Option) filter.Filter {
	var c config
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return &grpcFilter{c: c}
}

// grpcFilter is the filter New returns.
type grpcFilter struct {
	c config
}

// grpcStatus is an error that carries a gRPC status, as the errors of
// grpc-go's status package and of its clients do.
type grpcStatus interface {
	error
	GRPCStatus() *status.Status
}

// Catch answers err if it holds a gRPC status.
func (g *grpcFilter) Catch(ctx context.Context, _ filter.Call, err error) (*filter.Response, error) {
	var gs grpcStatus
	if !errors.As(err, &gs) {
		return nil, nil
	}
	st := gs.GRPCStatus()
	if st == nil || st.Code() == grpccodes.OK {
		return nil, nil
	}
	code := st.Code()
	m, ok := mappings[code]
	if !ok {
		m = mappings[grpccodes.Unknown]
	}
	retry := m.retry
	r := &filter.Response{
		Code:      m.code,
		Message:   fmt.Sprintf(m.message, code),
		Details:   map[string]any{"grpcCode": code.String()},
		Retryable: &retry,
		// The call may have reached the service and done its work: the
		// advice is then the Retry line's, which depends on the tool.
		MayHaveTakenEffect: mayHaveTakenEffect[code] || !ok,
	}
	if r.MayHaveTakenEffect {
		before, _, _ := strings.Cut(r.Message, ";")
		r.Message = before + "."
	}
	if retry {
		r.RetryAfter = m.after
		if d := retryDelay(st); d > 0 {
			r.RetryAfter = d
		}
	}
	if g.c.send[code] {
		if said := oneLine(st.Message(), maxSent); said != "" {
			r.Message += fmt.Sprintf(" The service said: %q", said)
		}
	}
	return r, nil
}

// mapping is how one gRPC code is answered.
type mapping struct {
	code    codes.Code
	message string // a format with one verb, the gRPC code
	retry   bool
	after   time.Duration // the retry delay when the backend gives none
}

// unavailableDelay is the retry delay of Unavailable when the backend
// gives none: long enough for a restarted backend or a new connection.
const unavailableDelay = 2 * time.Second

// mappings holds the answer to each gRPC code but OK.
var mappings = map[grpccodes.Code]mapping{
	grpccodes.Canceled: {codes.ExternalServiceError,
		"The service the tool called cancelled the operation (gRPC %v); retry the call.", true, 0},
	grpccodes.Unknown: {codes.ExternalServiceError,
		"The service the tool called failed (gRPC %v); retry the call later.", true, 0},
	grpccodes.InvalidArgument: {codes.ValidationError,
		"The service the tool called rejected the request as invalid (gRPC %v); check the arguments.", false, 0},
	grpccodes.DeadlineExceeded: {codes.Timeout,
		"The service the tool called did not answer in time (gRPC %v); retry the call.", true, 0},
	grpccodes.NotFound: {codes.NotFound,
		"The service the tool called has no such record (gRPC %v); check the identifiers in the arguments.", false, 0},
	grpccodes.AlreadyExists: {codes.Conflict,
		"A record with these values already exists (gRPC %v); choose other values or use the existing record.", false, 0},
	grpccodes.PermissionDenied: {codes.ExternalServiceError,
		"The tool is not allowed to use the service it called (gRPC %v); the server's operator must fix this, so retrying will not help.", false, 0},
	grpccodes.ResourceExhausted: {codes.RateLimited,
		"The service the tool called is rate limiting requests or out of quota (gRPC %v); wait before retrying.", true, 0},
	grpccodes.FailedPrecondition: {codes.BusinessRuleViolation,
		"The service the tool called refused the operation in the current state of the record (gRPC %v); change the state first or choose another operation.", false, 0},
	grpccodes.Aborted: {codes.Conflict,
		"The operation conflicted with a concurrent change (gRPC %v); retry the call.", true, 0},
	grpccodes.OutOfRange: {codes.ValidationError,
		"A value in the request is out of range for the service the tool called (gRPC %v); check the arguments.", false, 0},
	grpccodes.Unimplemented: {codes.ExternalServiceError,
		"The service the tool called does not support this operation (gRPC %v); retrying will not help.", false, 0},
	grpccodes.Internal: {codes.ExternalServiceError,
		"The service the tool called failed (gRPC %v); retry the call later.", true, 0},
	grpccodes.Unavailable: {codes.Unavailable,
		"The service the tool called is unavailable right now (gRPC %v); retry the call shortly.", true, unavailableDelay},
	grpccodes.DataLoss: {codes.ExternalServiceError,
		"The service the tool called reported lost or corrupt data (gRPC %v); retrying will not help.", false, 0},
	grpccodes.Unauthenticated: {codes.ExternalServiceError,
		"The tool could not authenticate with the service it called (gRPC %v); the server's operator must fix this, so retrying will not help.", false, 0},
}

// mayHaveTakenEffect holds the codes after which the call may have done
// its work on the service: it failed, was cut off or stopped while it ran.
var mayHaveTakenEffect = map[grpccodes.Code]bool{
	grpccodes.Canceled: true, grpccodes.Unknown: true, grpccodes.DeadlineExceeded: true,
	grpccodes.Internal: true, grpccodes.Unavailable: true, grpccodes.DataLoss: true,
}

// retryDelay returns the delay of the first RetryInfo in the status's
// details, or 0 if there is none, or it is not a valid positive delay.
func retryDelay(st *status.Status) time.Duration {
	for _, d := range st.Details() {
		ri, ok := d.(*errdetails.RetryInfo)
		if !ok {
			continue
		}
		delay := ri.GetRetryDelay()
		if delay == nil || delay.CheckValid() != nil {
			return 0
		}
		return max(delay.AsDuration(), 0)
	}
	return 0
}

// maxSent bounds, in bytes, the part of a status message SendMessage sends.
const maxSent = 512

// oneLine returns s as valid UTF-8 on one line: control characters become
// spaces, runs of spaces one space, invisible formatting characters are
// dropped, and text past n bytes is cut at a character's boundary and
// ends with "…".
func oneLine(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.Is(unicode.Cf, r) {
			continue // invisible formatting, such as a bidirectional override
		}
		if unicode.IsControl(r) || unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		add := utf8.RuneLen(r)
		if space {
			add++
		}
		if b.Len()+add > n {
			b.WriteString("…")
			return b.String()
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}
