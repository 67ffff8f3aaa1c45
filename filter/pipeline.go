package filter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/toolerr"
)

// Pipeline is the error-handling configuration of a server: it turns the
// errors of tool calls into Responses and logs each once. It is immutable
// once built and safe for concurrent use. The zero Pipeline is not usable:
// build one with New.
type Pipeline struct {
	logger   *slog.Logger
	registry *codes.Registry
	global   []Filter
	newRef   func() string
	now      func() time.Time
	reporter Reporter
	expose   bool
	redact   bool

	// unknown holds the unregistered codes already warned about.
	unknown  sync.Map
	nUnknown atomic.Int32
}

// maxUnknownWarnings bounds the unregistered codes a Pipeline remembers, so
// that codes made from data cannot grow it without end.
const maxUnknownWarnings = 1024

// New returns a Pipeline configured by opts. A bad option, such as a nil
// filter, is a *toolerr.DefinitionError.
func New(opts ...Option) (*Pipeline, error) {
	p := &Pipeline{newRef: newRef, now: time.Now}
	for _, opt := range opts {
		if opt == nil {
			continue
		}
		if err := opt(p); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Handle turns err, raised by the tool call described by call, into the
// Response the client receives, and writes the one log record of it. A nil
// err yields a nil Response.
//
// The filters run in one order: toolFilters (those given to the tool where
// it was registered), then the global filters of WithFilters, then the
// built-in mapping; in each list the first is outermost. The first filter
// that answers decides the Response. A filter that panics, or answers with
// an empty message, is recovered and the call reported as an internal error.
//
// Codes are checked on the way out. A Response whose code is malformed or
// unknown to the registry, whatever produced it (a filter, a ToolError's
// WithCode, a domain.BusinessRule), is sent with a fallback code instead:
// BUSINESS_RULE_VIOLATION for a business rule, TOOL_ERROR otherwise. The
// message stays. The pipeline writes one WARN record for each such code,
// the first time it sees it, saying how to register it; the call's own
// record names it as unregistered_code. Every Response carries Retryable:
// as its error or filter set it, or else as the code is registered.
func (p *Pipeline) Handle(ctx context.Context, call Call, err error, toolFilters ...Filter) *Response {
	if err == nil {
		return nil
	}
	h := handling{call: call, orig: err, err: err}
	resp := p.runFilters(ctx, &h, toolFilters)
	if resp == nil {
		resp = p.mapError(&h)
	}
	p.finish(ctx, &h, resp)
	return resp
}

// handling is the state of one error on its way through the pipeline.
type handling struct {
	call      Call
	orig      error // as the handler returned it
	err       error // after the filters' transformations
	filterErr error // a filter that panicked or answered badly
	public    error // the public error the built-in mapping answered with
	masked    bool
	attrs     []slog.Attr // extra attributes for the log record
}

func (p *Pipeline) runFilters(ctx context.Context, h *handling, toolFilters []Filter) *Response {
	for _, fs := range [2][]Filter{toolFilters, p.global} {
		for _, f := range fs {
			if f == nil {
				continue
			}
			resp, next, ferr := catch(ctx, f, h.call, h.err)
			if ferr != nil {
				h.filterErr = ferr
				return nil
			}
			if resp != nil {
				if resp.Message == "" {
					h.filterErr = fmt.Errorf("filter %T answered with an empty message", f)
					return nil
				}
				r := *resp
				return &r
			}
			if next != nil {
				h.err = next
			}
		}
	}
	return nil
}

// catch runs one filter, turning a panic into an error.
func catch(ctx context.Context, f Filter, call Call, err error) (resp *Response, next error, failure error) {
	defer func() {
		if v := recover(); v != nil {
			failure = fmt.Errorf("filter %T panicked: %w", f, recovered(v))
		}
	}()
	resp, next = f.Catch(ctx, call, err)
	return resp, next, nil
}

// mapError is the built-in mapping, run when no filter handled the error.
func (p *Pipeline) mapError(h *handling) *Response {
	err := h.err
	if h.filterErr != nil {
		return p.internal(h)
	}
	var pe *PanicError
	if errors.As(err, &pe) {
		return p.internal(h)
	}
	if pub, ok := toolerr.PublicOf(err); ok {
		r := &Response{Code: pub.ErrorCode(), Message: pub.PublicMessage()}
		if d, ok := pub.(toolerr.Detailer); ok {
			r.Details = d.PublicDetails()
		}
		if retry, known := toolerr.RetryableOf(pub); known {
			r.Retryable = &retry
		}
		if r.Message == "" {
			return p.internal(h)
		}
		h.public = pub
		return r
	}
	switch {
	case errors.Is(err, context.Canceled):
		return &Response{Code: codes.Cancelled, Message: "The request was cancelled before the tool finished."}
	case errors.Is(err, context.DeadlineExceeded):
		return &Response{Code: codes.Timeout, Message: "The tool did not finish in time. Try again, perhaps with a smaller request."}
	}
	return p.internal(h)
}

// internal returns the masked response of an internal error.
func (p *Pipeline) internal(h *handling) *Response {
	h.masked = true
	return &Response{Code: codes.InternalError}
}

// finish fills in what a response leaves out, reports and logs it.
func (p *Pipeline) finish(ctx context.Context, h *handling, r *Response) {
	if r.Code.IsZero() {
		r.Code = codes.InternalError
	}
	info, known := p.registry.Lookup(r.Code)
	if !known {
		info = p.unregistered(ctx, h, r)
	}
	if r.Details != nil {
		if _, err := json.Marshal(r.Details); err != nil {
			r.Details = nil
			h.attrs = append(h.attrs, slog.String("details_error", err.Error()))
		}
	}
	server := h.masked || info.Category == codes.Server
	if server && r.Ref == "" {
		r.Ref = p.newRef()
	}
	if server && p.reporter != nil && !p.report(ctx, h, r) {
		// A reporter that fails makes the call an internal error too.
		h.masked = true
		*r = Response{Code: codes.InternalError, Ref: r.Ref}
		info, _ = p.registry.Lookup(codes.InternalError)
	}
	if r.Retryable == nil || h.masked {
		retry := info.Retryable
		r.Retryable = &retry
	}
	if h.masked {
		r.Message = fmt.Sprintf("Internal error in tool %q (ref: %s).", h.call.Tool, r.Ref)
		if p.expose {
			r.Message = fmt.Sprintf("Internal error in tool %q (ref: %s): %s", h.call.Tool, r.Ref, h.err.Error())
		}
	}
	if hints := hintsOf(h.err); len(hints) > 0 {
		r.Hints = append(slices.Clip(r.Hints), hints...) // never into a filter's own array
	}
	r.RequestID = h.call.RequestID
	if r.Timestamp.IsZero() {
		r.Timestamp = p.now().UTC()
	}
	p.log(ctx, h, r, server)
}

// unregistered replaces the code of r, which the registry does not know,
// with its fallback, warns about it once, and returns the fallback's
// information.
func (p *Pipeline) unregistered(ctx context.Context, h *handling, r *Response) codes.Info {
	bad := r.Code
	fallback := codes.ToolFailed
	var br *domain.BusinessRule
	if h.public != nil && errors.As(h.public, &br) {
		fallback = codes.BusinessRuleViolation
	}
	r.Code = fallback
	h.attrs = append(h.attrs, slog.String("unregistered_code", bad.String()))
	p.warnUnknown(ctx, bad, fallback, h.call.Tool)
	info, _ := p.registry.Lookup(fallback)
	return info
}

// warnUnknown writes the one WARN record of an unregistered code.
func (p *Pipeline) warnUnknown(ctx context.Context, bad, fallback codes.Code, tool string) {
	if p.nUnknown.Load() >= maxUnknownWarnings {
		return
	}
	if _, seen := p.unknown.LoadOrStore(bad, struct{}{}); seen {
		return
	}
	p.nUnknown.Add(1)
	reason := "the registry does not know it; register it with codes.NewRegistry and pass the registry to filter.WithRegistry"
	if err := bad.Validate(); err != nil {
		var de *codes.DefinitionError
		if errors.As(err, &de) {
			reason = de.Reason
		}
	}
	logger := p.logger
	if logger == nil {
		logger = slog.Default()
	}
	logger.LogAttrs(ctx, slog.LevelWarn, "mcperr: unregistered error code",
		slog.String("unregistered_code", bad.String()), slog.String("sent_as", fallback.String()),
		slog.String("tool", tool), slog.String("reason", reason))
}

// report hands a server error to the reporter. It reports whether the
// reporter returned normally; a panic is recovered and kept for the log.
func (p *Pipeline) report(ctx context.Context, h *handling, r *Response) (ok bool) {
	defer func() {
		if v := recover(); v != nil {
			h.attrs = append(h.attrs, slog.String("reporter_error", p.text(recovered(v))))
			ok = false
		}
	}()
	err := h.err
	if h.filterErr != nil {
		err = errors.Join(h.err, h.filterErr)
	}
	p.reporter.Report(ctx, Incident{Ref: r.Ref, Call: h.call, Code: r.Code, Err: err})
	return true
}
