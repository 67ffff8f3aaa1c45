package filter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/internal/isolate"
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
	render   Renderer

	observers []Observer

	customRender bool // render is the application's own
	messageOnly  bool // render is RenderMessageOnly

	customRef bool         // newRef was set by WithRefGenerator
	recent    recentRefs   // the last refs a custom generator made
	badRef    sync.Once    // warns once about a custom generator's bad ref
	fallback  slog.Handler // the last resort when the logger fails
	runner    *isolate.Runner[handleCall, *Response]
	logRunner *isolate.Runner[logCall, error]

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
	p := &Pipeline{newRef: newRef, now: time.Now, render: RenderForModel, fallback: slog.NewTextHandler(os.Stderr, nil), runner: isolate.NewRunner(runHandle),
		logRunner: isolate.NewRunner(runLog)}
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
//
// Handle is total: whatever err, a filter, the reporter or the log handler
// does (panic, return a typed nil, build a cyclic or enormous chain), it
// returns one Response, with a ref for a server error, reports it at most
// once and writes one record, to the last-resort handler on standard error
// if the logger fails. An error whose chain is cyclic, longer than MaxChain
// or has an Unwrap that panics is not walked: it is masked, and the record
// names its type. The message is at most MaxMessage bytes, the details at
// most MaxDetails of JSON, and each logged value at most MaxLogValue. A ref
// is always the pipeline's: one a filter sets is replaced.
//
// Filters, a reporter, observers, a custom Renderer and a log handler from
// outside the standard library run on a goroutine of its own, so that even one that calls runtime.Goexit
// cannot leave the call unanswered; that hand-off costs a few microseconds
// a failure, which a pipeline without them does not pay.
func (p *Pipeline) Handle(ctx context.Context, call Call, err error, toolFilters ...Filter) *Response {
	if err == nil {
		return nil
	}
	if call.RequestID == "" {
		call.RequestID = RequestIDFromContext(ctx)
		if call.RequestID == "" {
			call.RequestID = NewRequestID()
		}
	}
	h := &handling{call: call, orig: err}
	h.setErr(err)
	h.orig = h.err
	// Filters, a reporter and a log handler from outside the standard
	// library run on a goroutine of their own, so that one that panics or
	// calls runtime.Goexit cannot take the call with it. Without them there
	// is no code to fear, and no hand-off to pay for.
	c := handleCall{p: p, ctx: ctx, h: h, filters: toolFilters}
	var resp *Response
	var ended isolate.Outcome
	if len(toolFilters) > 0 || len(p.global) > 0 || p.reporter != nil || len(p.observers) > 0 || p.customRender || !stdHandler(p.handler()) {
		resp, ended = p.runner.Run(c)
	} else {
		resp, ended = p.runner.Call(c)
	}
	switch {
	case ended.Panicked:
		return p.lastResort(ctx, h, ended.Value)
	case ended.Exited:
		return p.lastResort(ctx, h, "runtime.Goexit, or a nil panic, in a filter, the reporter or the log handler")
	}
	return resp
}

// logCall is one record for a log handler, run by Pipeline.logRunner.
type logCall struct {
	ctx     context.Context
	handler slog.Handler
	rec     slog.Record
}

// errLogFailed stands for a log handler that did not return.
var errLogFailed = errors.New("the log handler did not return")

func runLog(c logCall) error { return handle(c.ctx, c.handler, c.rec) }

// stdHandler reports whether h is a handler of log/slog itself: a JSON or
// text handler, the discarding one, or the default one.
func stdHandler(h slog.Handler) bool {
	switch h.(type) {
	case *slog.JSONHandler, *slog.TextHandler:
		return true
	}
	if h == slog.DiscardHandler {
		return true
	}
	t := reflect.TypeOf(h)
	return t.Kind() == reflect.Pointer && t.Elem().PkgPath() == "log/slog"
}

// handleCall is one call of Handle, run by Pipeline.runner.
type handleCall struct {
	p       *Pipeline
	ctx     context.Context
	h       *handling
	filters []Filter
}

// runHandle handles one error: the filters, the built-in mapping, the
// report and the record.
func runHandle(c handleCall) *Response {
	p, h := c.p, c.h
	resp := p.runFilters(c.ctx, h, c.filters)
	if resp == nil {
		resp = p.mapSafely(h)
	}
	p.finish(c.ctx, h, resp)
	return resp
}

// lastResort answers for a call whose handling failed in the pipeline
// itself: a masked internal error with a ref, logged once to the
// last-resort handler unless it was logged already.
func (p *Pipeline) lastResort(ctx context.Context, h *handling, v any) *Response {
	r := &Response{Code: codes.InternalError, Ref: h.ref}
	if r.Ref == "" {
		r.Ref = newRef()
	}
	r.retry = false
	r.Retryable = &r.retry
	r.category = codes.Server
	r.Message = boundMessage(maskedText(h.call, r.Ref), MaxMessage)
	r.RequestID = h.call.RequestID
	r.Timestamp = time.Now().UTC()
	r.textsBuf = [2]string{r.Message, modelBlock(r)}
	r.texts = r.textsBuf[:]
	if !h.logDone {
		rec := slog.NewRecord(time.Now(), slog.LevelError, logMessageOf(h.call.Kind), 0)
		rec.AddAttrs(targetAttr(h.call), slog.String("code", r.Code.String()),
			slog.String("ref", r.Ref), slog.String("error", fmt.Sprintf("%T", h.orig)),
			slog.String("pipeline_error", safeSprint(v)))
		// The logger gets the record unless it is what failed; it runs
		// isolated, as in Handle.
		var err error = errLogFailed
		if !h.logStarted {
			var ended isolate.Outcome
			err, ended = p.logRunner.Run(logCall{ctx: ctx, handler: p.handler(), rec: rec})
			if ended.Failed() {
				err = errLogFailed
			}
		}
		if err != nil {
			_ = handle(ctx, p.fallback, rec)
		}
	}
	return r
}

// setErr makes err the error being handled, with what one walk of its
// chain finds; a chain that cannot be walked safely is replaced by an
// opaque error.
func (h *handling) setErr(err error) {
	f, reason := scan(err)
	if reason != "" {
		err = &opaqueError{text: reflect.TypeOf(err).String() + " (not walked: " + reason + ")", reason: reason}
		f = chainFacts{}
	}
	h.err, h.facts = err, f
}

// handling is the state of one error on its way through the pipeline.
type handling struct {
	call       Call
	orig       error      // as the handler returned it
	err        error      // after the filters' transformations
	facts      chainFacts // what the chain of err holds
	filterErr  error      // a filter that panicked or answered badly
	public     error      // the public error the built-in mapping answered with
	masked     bool
	ownText    bool // the message is the pipeline's own, not the application's
	ref        string
	reported   bool
	logStarted bool        // the record was handed to the logger
	logDone    bool        // the record was written, by the logger or the last resort
	attrs      []slog.Attr // extra attributes for the log record
	errText    string      // the text of err as the record holds it
	logged     loggedError // the record's error value
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
				r.Ref = "" // refs are the pipeline's
				return &r
			}
			if next != nil {
				h.setErr(next)
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

// mapSafely runs the built-in mapping, masking the error if a method of the
// error (ErrorCode, PublicMessage, an As or Is method...) panics.
func (p *Pipeline) mapSafely(h *handling) (r *Response) {
	defer func() {
		if v := recover(); v != nil {
			h.attrs = append(h.attrs, slog.String("mapping_error", "a method of the error panicked: "+safeSprint(v)))
			h.public = nil
			r = p.internal(h)
		}
	}()
	return p.mapError(h)
}

// mapError is the built-in mapping, run when no filter handled the error.
// It reads the chain with one walk; where an error has an As or Is method
// of its own, errors.As and errors.Is decide, as they would.
func (p *Pipeline) mapError(h *handling) *Response {
	if h.filterErr != nil {
		return p.internal(h)
	}
	f := h.facts
	if f.custom {
		f = p.slowFacts(h.err)
	}
	if f.panicked {
		return p.internal(h)
	}
	if pub := f.public; pub != nil {
		r := &Response{Code: pub.ErrorCode(), Message: pub.PublicMessage()}
		if d, ok := pub.(toolerr.Detailer); ok {
			r.Details = d.PublicDetails()
		}
		if retry, known := toolerr.RetryableOf(pub); known {
			r.retry = retry
			r.Retryable = &r.retry
			r.RetryAfter = toolerr.RetryAfterOf(pub)
		}
		if r.Message == "" {
			return p.internal(h)
		}
		h.public = pub
		return r
	}
	switch {
	case f.canceled:
		h.ownText = true
		return &Response{Code: codes.Cancelled, Message: cancelledText(h.call.Kind)}
	case f.deadline:
		h.ownText = true
		return &Response{Code: codes.Timeout, Message: timeoutText(h.call.Kind)}
	}
	return p.internal(h)
}

// slowFacts finds what mapError needs with errors.As and errors.Is, for a
// chain with an error that has its own As or Is method.
func (p *Pipeline) slowFacts(err error) chainFacts {
	var f chainFacts
	var pe *PanicError
	f.panicked = errors.As(err, &pe)
	f.custom = true
	f.public, _ = toolerr.PublicOf(err)
	f.canceled = errors.Is(err, context.Canceled)
	f.deadline = errors.Is(err, context.DeadlineExceeded)
	var lv interface {
		error
		slog.LogValuer
	}
	if errors.As(err, &lv) {
		f.valuer = lv
	}
	return f
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
	r.detailsJSON = nil
	if r.Details != nil {
		b, reason := checkDetails(r.Details)
		if reason != "" {
			r.Details = nil
			h.attrs = append(h.attrs, slog.String("details_error", p.text(errors.New(reason))))
		}
		r.detailsJSON = b
	}
	server := h.masked || info.Category == codes.Server
	r.Ref = ""
	if server {
		r.Ref = p.ref(ctx)
		h.ref = r.Ref
	}
	if server && p.reporter != nil && !p.report(ctx, h, r) {
		// A reporter that fails makes the call an internal error too.
		h.masked = true
		*r = Response{Code: codes.InternalError, Ref: r.Ref}
		info, _ = p.registry.Lookup(codes.InternalError)
	}
	if r.Retryable == nil || h.masked {
		r.retry = info.Retryable
		r.Retryable = &r.retry
		if h.masked {
			r.RetryAfter = 0
		}
	}
	switch {
	case !*r.Retryable || r.RetryAfter < 0:
		r.RetryAfter = 0
	case r.RetryAfter == 0:
		r.RetryAfter = info.RetryAfter
	}
	r.RetryAfter = min(r.RetryAfter, MaxRetryAfter)
	r.category, r.docURL = info.Category, info.DocURL
	if h.masked {
		r.Message = maskedText(h.call, r.Ref)
		if p.expose {
			r.Message = strings.TrimSuffix(r.Message, ".") + ": " + safeText(h.err)
		}
		r.Details, r.detailsJSON = nil, nil
	} else if h.ownText && r.Ref != "" {
		// The pipeline's own texts end with the ref, as the masked one does.
		r.Message = strings.TrimSuffix(r.Message, ".") + " (ref: " + r.Ref + ")."
	}
	r.Message = boundMessage(r.Message, MaxMessage)
	var hints []string
	for _, x := range r.Hints {
		hints = appendHint(hints, x) // never into a filter's own array
	}
	for _, x := range modelHints(h.err, h.public) {
		hints = appendHint(hints, x)
	}
	r.Hints = hints
	r.RequestID = h.call.RequestID
	if r.Timestamp.IsZero() {
		r.Timestamp = p.timestamp()
	}
	r.texts = p.renderSafely(h, r)
	h.errText = p.text(h.err)
	if len(p.observers) > 0 {
		p.observe(ctx, h, r)
	}
	h.logStarted = true
	p.log(ctx, h, r, server)
	h.logDone = true
}

// maskedMessage is the text of a masked error: `Internal error in tool "x"
// (ref: R).`
func maskedMessage(tool, ref string) string {
	var quoted string
	if plainName(tool) {
		quoted = `"` + tool + `"` // what strconv.Quote gives, cheaper
	} else {
		quoted = strconv.Quote(tool)
	}
	return "Internal error in tool " + quoted + " (ref: " + ref + ")."
}

// plainName reports whether name has only the characters of a valid MCP
// tool name, which strconv.Quote leaves as they are.
func plainName(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// checkDetails returns details as JSON, or why they cannot be sent.
func checkDetails(details map[string]any) (b []byte, reason string) {
	defer func() {
		if v := recover(); v != nil {
			b, reason = nil, "the details cannot be encoded: "+safeSprint(v)
		}
	}()
	b, err := json.Marshal(details)
	switch {
	case err != nil:
		return nil, "the details cannot be encoded: " + err.Error()
	case len(b) > MaxDetails:
		return nil, fmt.Sprintf("the details are %d bytes of JSON, more than %d", len(b), MaxDetails)
	}
	return b, ""
}

// renderSafely renders r with the pipeline's Renderer. One that panics or
// returns no blocks is replaced by RenderForModel, and the failure noted
// in the log record; the blocks are bounded.
func (p *Pipeline) renderSafely(h *handling, r *Response) (texts []string) {
	if !p.customRender {
		if p.messageOnly {
			return RenderMessageOnly(r)
		}
		// RenderForModel, into the Response's own array.
		r.textsBuf = [2]string{r.Message, modelBlock(r)}
		return r.textsBuf[:]
	}
	defer func() {
		if v := recover(); v != nil {
			h.attrs = append(h.attrs, slog.String("render_error", "the Renderer panicked: "+p.text(recovered(v))))
			texts = RenderForModel(r)
		}
	}()
	view := *r // a Renderer that writes to it changes nothing sent
	out := p.render(&view)
	if len(out) == 0 {
		h.attrs = append(h.attrs, slog.String("render_error", "the Renderer returned no text blocks"))
		return RenderForModel(r)
	}
	texts = make([]string, min(len(out), maxBlocks))
	for i := range texts {
		texts[i] = boundMessage(out[i], MaxMessage)
	}
	return texts
}

// timestamp returns the time of the clock, or the real time if the clock
// panics.
func (p *Pipeline) timestamp() (t time.Time) {
	defer func() {
		if recover() != nil {
			t = time.Now().UTC()
		}
	}()
	return p.now().UTC()
}

// ref returns a new ref. A custom generator's ref that is empty, malformed
// or one of the last 256 it made is replaced by a random one, and the
// pipeline warns once, so that a ref always names one failure.
func (p *Pipeline) ref(ctx context.Context) string {
	if !p.customRef {
		return newRef()
	}
	ref, reason := p.customRefOrWhy()
	if reason == "" && !p.recent.add(ref) {
		reason = "it returned a ref it had returned before"
	}
	if reason != "" {
		p.badRef.Do(func() {
			p.warn(ctx, "mcperr: WithRefGenerator made an unusable ref; using random refs instead where it does",
				slog.String("reason", reason))
		})
		ref = newRef()
	}
	return ref
}

// recentRefs remembers the last refs a custom generator made, to refuse a
// repeated one. The zero value is ready to use.
type recentRefs struct {
	mu   sync.Mutex
	ring [256]string
	next int
	set  map[string]struct{}
}

// add records ref and reports whether it is new.
func (r *recentRefs) add(ref string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, seen := r.set[ref]; seen {
		return false
	}
	if r.set == nil {
		r.set = make(map[string]struct{}, len(r.ring))
	}
	delete(r.set, r.ring[r.next])
	r.ring[r.next] = ref
	r.next = (r.next + 1) % len(r.ring)
	r.set[ref] = struct{}{}
	return true
}

// customRefOrWhy calls the custom generator, and says why its ref cannot be
// used, if it cannot.
func (p *Pipeline) customRefOrWhy() (ref, reason string) {
	defer func() {
		if v := recover(); v != nil {
			ref, reason = "", "it panicked: "+safeSprint(v)
		}
	}()
	ref = p.newRef()
	if !validRef(ref) {
		return "", "it returned " + strconv.Quote(bound(ref, 80)) + "; a ref is 1 to 64 ASCII letters, digits, '-', '_' or '.'"
	}
	return ref, ""
}

// validRef reports whether ref is 1 to 64 ASCII letters, digits, '-', '_'
// or '.'.
func validRef(ref string) bool {
	if ref == "" || len(ref) > 64 {
		return false
	}
	for i := 0; i < len(ref); i++ {
		c := ref[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
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
	h.attrs = append(h.attrs, slog.String("unregistered_code", bound(bad.String(), 256)))
	p.warnUnknown(ctx, bad, fallback, h.call.Target())
	info, _ := p.registry.Lookup(fallback)
	return info
}

// warnUnknown writes the one WARN record of an unregistered code.
func (p *Pipeline) warnUnknown(ctx context.Context, bad, fallback codes.Code, tool string) {
	if p.nUnknown.Load() >= maxUnknownWarnings {
		return
	}
	if _, seen := p.unknown.LoadOrStore(codes.Code(bound(bad.String(), 256)), struct{}{}); seen {
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
	p.warn(ctx, "mcperr: unregistered error code",
		slog.String("unregistered_code", bound(bad.String(), 256)), slog.String("sent_as", fallback.String()),
		slog.String("tool", bound(tool, 256)), slog.String("reason", reason))
}

// warn writes a WARN record about the pipeline's configuration, to the
// last-resort handler if the logger fails.
func (p *Pipeline) warn(ctx context.Context, msg string, attrs ...slog.Attr) {
	handler := p.handler()
	if !p.enabled(ctx, handler, slog.LevelWarn) {
		return
	}
	rec := slog.NewRecord(time.Now(), slog.LevelWarn, msg, 0)
	rec.AddAttrs(attrs...)
	if err := handle(ctx, handler, rec); err != nil {
		_ = handle(ctx, p.fallback, rec)
	}
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
	h.reported = true
	p.reporter.Report(ctx, Incident{Ref: r.Ref, Call: h.call, Code: r.Code, Err: err})
	return true
}
