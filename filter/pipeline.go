package filter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/toolerr"
)

// Pipeline turns the errors of tool calls into Responses and logs each once.
// It is immutable once built and safe for concurrent use. The zero Pipeline
// is not usable: build one with New.
type Pipeline struct {
	logger   *slog.Logger
	registry *codes.Registry
	global   []Filter
	perTool  map[string][]Filter // per-tool filters followed by the global ones
	local    []Filter            // bound by With, before all others
	newRef   func() string
	now      func() time.Time
	reporter Reporter
	expose   bool
	redact   bool
}

// New returns a Pipeline configured by opts. Its chains are composed here,
// once. A bad option, such as a nil filter, is a *toolerr.DefinitionError.
func New(opts ...Option) (*Pipeline, error) {
	p := &Pipeline{newRef: NewRef, now: time.Now}
	for _, opt := range opts {
		if opt == nil {
			continue
		}
		if err := opt(p); err != nil {
			return nil, err
		}
	}
	for tool, fs := range p.perTool {
		chain := make([]Filter, 0, len(fs)+len(p.global))
		p.perTool[tool] = append(append(chain, fs...), p.global...)
	}
	return p, nil
}

// With returns a Pipeline that runs filters first, before the per-tool and
// global filters of p, the first outermost. Adapters use it to bind the
// filters of one wrapped handler. A nil filter is a definition error.
func (p *Pipeline) With(filters ...Filter) (*Pipeline, error) {
	if err := checkFilters(filters); err != nil {
		return nil, err
	}
	if len(filters) == 0 {
		return p, nil
	}
	n := *p
	n.local = append(append([]Filter(nil), p.local...), filters...)
	return &n, nil
}

// Handle turns err, raised by the tool call described by call, into the
// Response the client receives, and writes the one log record of it. A nil
// err yields a nil Response. Handle never panics: a filter or reporter that
// fails is recovered and the call reported as an internal error.
func (p *Pipeline) Handle(ctx context.Context, call Call, err error) *Response {
	if err == nil {
		return nil
	}
	h := handling{call: call, orig: err, err: err}
	resp := p.runFilters(ctx, &h)
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
	masked    bool
	attrs     []slog.Attr // extra attributes for the log record
}

// chain returns the filters for tool, first outermost.
func (p *Pipeline) chain(tool string) (first, rest []Filter) {
	if fs, ok := p.perTool[tool]; ok {
		return p.local, fs
	}
	return p.local, p.global
}

func (p *Pipeline) runFilters(ctx context.Context, h *handling) *Response {
	first, rest := p.chain(h.call.Tool)
	for _, fs := range [2][]Filter{first, rest} {
		for _, f := range fs {
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
			failure = fmt.Errorf("filter %T panicked: %w", f, Recovered(v))
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
	if r.Details != nil {
		if _, err := json.Marshal(r.Details); err != nil {
			r.Details = nil
			h.attrs = append(h.attrs, slog.String("details_error", err.Error()))
		}
	}
	info, _ := p.registry.Lookup(r.Code)
	server := h.masked || info.Category == codes.Server
	if server && r.Ref == "" {
		r.Ref = p.newRef()
	}
	if server && p.reporter != nil && !p.report(ctx, h, r) {
		// A reporter that fails makes the call an internal error too.
		h.masked = true
		*r = Response{Code: codes.InternalError, Ref: r.Ref}
	}
	if info, known := p.registry.Lookup(r.Code); known && r.Retryable == nil {
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

// report hands a server error to the reporter. It reports whether the
// reporter returned normally; a panic is recovered and kept for the log.
func (p *Pipeline) report(ctx context.Context, h *handling, r *Response) (ok bool) {
	defer func() {
		if v := recover(); v != nil {
			h.attrs = append(h.attrs, slog.String("reporter_error", p.text(Recovered(v))))
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
