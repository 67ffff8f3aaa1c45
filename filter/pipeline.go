package filter

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/internal/uriview"
	"github.com/mcperr/mcperr/toolerr"
)

// Pipeline is the error-handling configuration of a server: it turns the
// errors of its requests into Failures and logs each once. It is immutable
// once built and safe for concurrent use. Build one with New.
type Pipeline struct {
	built     bool // by New
	logger    *slog.Logger
	registry  *codes.Registry
	global    []Filter
	observers []func(context.Context, Failure)
	render    func(Envelope) []string // nil: RenderForModel
	newRef    func() string           // nil: newRef
	redact    bool

	server  toolConfig            // the settings of every tool (WithReportOnly, ...)
	tools   map[string]toolConfig // ForTool
	retries int                   // WithRetries: at most this many more attempts
	safe    map[string]bool       // WithRetries: tools named safe to call again
	budget  budget                // the retries left to the server

	fallback slog.Handler // the last resort when the logger fails; nil: standard error

	unknown  sync.Map     // the unregistered codes warned about
	nUnknown atomic.Int32 // how many, at most maxUnknownWarnings
}

// New returns a Pipeline configured by opts. A bad option, such as a nil
// filter, is a *codes.DefinitionError.
func New(opts ...Option) (*Pipeline, error) {
	p := &Pipeline{built: true}
	for i, opt := range opts {
		if isNil(opt) {
			return nil, &codes.DefinitionError{Mistake: codes.NilValue,
				Reason: "option " + strconv.Itoa(i) + " given to filter.New is nil; leave it out, or pass the option you meant"}
		}
		if err := opt.apply(p); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Handle turns err, raised by the request described by call, into the
// Failure the client receives, tells the observers, and writes the one log
// record of it; filters are those of the tool, resource or prompt, and run
// before those ForTool gives the tool and the server's. A nil err yields
// nil. It is for an application or an adapter that holds an error and
// nothing else; Serve runs a whole request.
//
// The request's own end is decided first, then the filters and the
// built-in mapping run, as the package documentation says. A code the
// registry does not know, whatever produced it, is sent as
// BUSINESS_RULE_VIOLATION for a business rule and TOOL_ERROR otherwise, with
// one WARN record the first time. A ref is always the pipeline's.
//
// Handle is total: whatever err, a filter, an observer, the renderer or the
// log handler does (panic, return a typed nil, build a cyclic or enormous
// chain), it returns one Failure and writes one record, to standard error
// if the logger fails, bounded as the package documentation says.
func (p *Pipeline) Handle(ctx context.Context, call Call, err error, filters ...Filter) *Failure {
	if err == nil {
		return nil
	}
	in := input{call: call, err: err, tool: p.toolFor(call.Tool, nil), attempt: 1}
	if len(filters) > 0 {
		in.tool.filters = append(filters[:len(filters):len(filters)], in.tool.filters...)
	}
	return p.handle(cmp.Or[context.Context](ctx, context.Background()), &in, &asks{})
}

// handle decides the answer to in, a failure of the request ctx serves, and
// writes its record: the request's end first, then the filters, the tool's
// then the server's, then the built-in mapping. It returns nil for a
// hand-built result the policy passes unreported.
func (p *Pipeline) handle(ctx context.Context, in *input, ask *asks) (f *Failure) {
	reportOnly, policy := p.reportOnly(in.tool), p.policy(in.tool)
	h := handling{call: in.call, raw: in.err, filters: in.tool.filters, attempt: in.attempt, took: in.took, reportOnly: reportOnly, handBuilt: in.err == nil}
	if h.handBuilt && policy == PassHandBuilt && !reportOnly {
		return nil // the adapter sends the result as the handler built it
	}
	if h.call.RequestID == "" {
		if h.call.RequestID = RequestIDFromContext(ctx); h.call.RequestID == "" {
			h.call.RequestID = newID()
		}
	}
	err := in.err
	if h.handBuilt {
		err = &handBuiltError{text: in.text}
	}
	h.setErr(err)
	h.orig, h.ref = h.err, in.ref
	defer func() {
		if f == nil { // finish did not return
			// Only a runtime.Goexit in a filter, observer, renderer or log
			// handler gets here: nothing else logs it.
			f = p.lastResort(ctx, &h, recover())
		}
	}()
	var r Response
	switch {
	case h.handBuilt && policy == MaskHandBuilt:
		r = p.internal(&h)
	case h.handBuilt:
		// Filters see errors, not results: the handler's own answer passes as it is.
		r = Response{Code: codes.ToolFailed, Message: in.text}
	default:
		var ok bool
		if r, ok = p.ended(ctx, &h, ask); !ok {
			if r, ok = p.runFilters(ctx, &h); !ok {
				r = p.mapError(&h, ask)
			}
		}
	}
	return p.finish(ctx, &h, ask, &r)
}

// handBuiltError stands for an error result a handler built itself: its
// text, for the record and Failure.Err.
type handBuiltError struct{ text string }

func (e *handBuiltError) Error() string { return e.text }

// handling is the state of one failure on its way through the pipeline.
// It holds no callback of the adapter's, which its input keeps, so that
// what the adapter hands Serve never leaves the stack.
type handling struct {
	call        Call
	raw         error              // as the handler returned it, before any check of it
	filters     []Filter           // the tool's own
	attempt     int                // which call of the tool in the request, from 1
	took        time.Duration      // how long the attempt ran
	orig        error              // as the handler returned it
	transformed bool               // a filter replaced orig with err
	err         error              // after the filters' transformations
	facts       chainFacts         // what the chain of err holds
	filterErr   error              // a filter that panicked or answered badly
	public      error              // the public error the built-in mapping answered with
	refused     *domain.Validation // how the arguments did not fit, when that decided
	details     *domain.Validation // the public error whose details are sent, if a Validation
	repeat      int8               // 1 + what mayRepeat found, once asked
	ended       bool               // the request's own end answered it, in the pipeline's own words
	wouldRetry  bool               // report-only: WithRetries would have called the tool again
	retry       time.Duration      // the wait before the tool is called again, if it is
	notRetried  string             // why WithRetries does not call a tool again that it might
	masked      bool
	reportOnly  bool // nothing of the Failure is sent: it is reported
	handBuilt   bool // the error stands for a result the handler built
	ref         string
	logged      bool        // the record was written
	attrs       []slog.Attr // extra attributes for the log record
}

// setErr makes err the error being handled, with what one walk of its
// chain finds; a chain that cannot be walked safely becomes an opaqueError.
func (h *handling) setErr(err error) {
	h.facts, h.err = scan(err)
	if h.facts.custom && !h.facts.opaque {
		h.facts.asked(h.err, &h.attrs)
	}
}

// runFilters offers the cause of a ToolError to the tool's filters, then
// the global ones, and if none answers, the whole error. The ToolError
// keeps its words over an answer to its cause: the filter's message becomes
// the first hint, and the class (code, details, retry advice) is the filter's.
func (p *Pipeline) runFilters(ctx context.Context, h *handling) (Response, bool) {
	if te, _ := h.facts.public.(*toolerr.ToolError); te != nil && te.PublicMessage() != "" && h.facts.cause != nil {
		if r, ok := p.offer(ctx, h, h.facts.cause, false); ok || h.filterErr != nil {
			return worded(te, r), ok
		}
	}
	return p.offer(ctx, h, h.err, true)
}

// worded gives te's words to r, an answer to te's cause: te's message,
// then r's as the first hint; the class is r's.
func worded(te *toolerr.ToolError, r Response) Response {
	hints := append(append([]string{r.Message}, r.Hints...), te.ErrorHint())
	r.Message, r.Hints = te.PublicMessage(), slices.DeleteFunc(hints, func(s string) bool { return s == "" })
	return r
}

// offer runs the filters on err until one answers; a transformation
// replaces err for those that follow, and, if whole, the error handled.
func (p *Pipeline) offer(ctx context.Context, h *handling, err error, whole bool) (Response, bool) {
	for _, fs := range [2][]Filter{h.filters, p.global} {
		for _, f := range fs {
			resp, next, ferr := catch(ctx, f, h.call, err)
			if ferr == nil && resp != nil && resp.Message == "" {
				ferr = fmt.Errorf("filter %T answered with an empty message", f)
			}
			switch {
			case ferr != nil:
				h.filterErr = ferr
				return Response{}, false
			case resp != nil:
				return *resp, true // a copy: the filter's own value stays as it was
			case next != nil && whole:
				h.setErr(next)
				err, h.transformed = h.err, true
			case next != nil:
				if facts, _ := scan(next); facts.opaque {
					return Response{}, false // a cause whose chain cannot be walked: the whole error is offered
				}
				err = next
			}
		}
	}
	return Response{}, false
}

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
// A method of the error (ErrorCode, PublicMessage, ...) that panics masks it.
func (p *Pipeline) mapError(h *handling, ask *asks) (r Response) {
	defer func() {
		if v := recover(); v != nil {
			h.attrs = append(h.attrs, slog.String("mapping_error", "a method of the error panicked: "+safeSprint(v)))
			h.public = nil
			r = p.internal(h)
		}
	}()
	f := &h.facts
	if h.filterErr != nil || f.panicked {
		return p.internal(h)
	}
	if pub := f.public; pub != nil {
		// A public error in a ToolError's cause answers as a filter's answer to the cause.
		te, _ := pub.(*toolerr.ToolError)
		if inner := f.inner; te.PublicMessage() != "" && inner != nil && !isNil(inner) && inner.PublicMessage() != "" {
			pub = inner
		} else {
			te = nil
		}
		if isNil(pub) {
			// A nil pointer whose methods ignore it (an Authorization's) means nothing.
			h.attrs = append(h.attrs, slog.String("mapping_error", fmt.Sprintf("the public error is a nil %T", pub)))
			return p.internal(h)
		}
		r = Response{Code: pub.ErrorCode(), Message: pub.PublicMessage()}
		if v, ok := pub.(*domain.Validation); ok {
			h.details = v
		} else if d, ok := pub.(interface{ PublicDetails() map[string]any }); ok {
			r.Details = d.PublicDetails()
		}
		if f.adviceKnown {
			retry := f.retryable
			r.Retryable, r.RetryAfter = &retry, f.retryAfter
		}
		if hinter, ok := pub.(interface{ ErrorHint() string }); ok {
			if hint := hinter.ErrorHint(); hint != "" {
				r.Hints = []string{hint}
			}
		}
		if r.Message == "" {
			return p.internal(h)
		}
		if h.public = pub; te != nil {
			return worded(te, r)
		}
		return r
	}
	if ask.arguments == nil {
		return p.internal(h)
	}
	// The client can correct its arguments; the record keeps the error.
	if v := noPanic(func() *domain.Validation { return ask.arguments(h.raw) }); v != nil {
		h.public, h.refused, h.details = v, v, v
		return Response{Code: v.ErrorCode(), Message: v.PublicMessage()}
	}
	return p.internal(h)
}

// ended answers, before any filter runs, the failure of a request whose
// own context is done: CANCELLED or TIMEOUT, as ctx.Err() says, whatever the
// error says, except a panic or a public error, whose words are deliberate.
func (p *Pipeline) ended(ctx context.Context, h *handling, ask *asks) (r Response, ok bool) {
	done := noPanic(ctx.Err) // nil while the request is alive
	if done != context.Canceled && done != context.DeadlineExceeded {
		return Response{}, false
	}
	if h.facts.panicked || h.facts.public != nil { // the mapping answers those
		return Response{}, false
	}
	h.ended = true // a timeout's text gets the ref
	// A tool stopped while it ran may have done its work: said so, and the
	// advice depends on whether the tool may be called again (finish).
	switch tool := h.call.isTool(); {
	case done == context.Canceled && tool:
		return Response{Code: codes.Cancelled, Message: "The request was cancelled before the tool finished.", MayHaveTakenEffect: true}, true
	case done == context.Canceled:
		return Response{Code: codes.Cancelled, Message: "The request was cancelled before it finished."}, true
	case tool && !p.mayRepeat(h, ask):
		return Response{Code: codes.Timeout, Message: "The tool did not finish in time, and may have done its work before it stopped.", MayHaveTakenEffect: true}, true
	case tool:
		return Response{Code: codes.Timeout, Message: "The tool did not finish in time; try again, perhaps with a smaller request.", MayHaveTakenEffect: true}, true
	default:
		return Response{Code: codes.Timeout, Message: "The request did not finish in time; try again later."}, true
	}
}

// mayRepeat reports whether calling again is safe whatever the failure did:
// a resource, prompt or completion, which reads, a tool named safe
// (WithRetries), or one the adapter knows is annotated read-only or
// idempotent. It asks the adapter once.
func (p *Pipeline) mayRepeat(h *handling, ask *asks) bool {
	if !h.call.isTool() || p.safe[h.call.Tool] {
		return true
	}
	if h.repeat == 0 {
		h.repeat = 1
		if ask.repeatable != nil && noPanic(ask.repeatable) {
			h.repeat = 2
		}
	}
	return h.repeat == 2
}

func (p *Pipeline) internal(h *handling) Response {
	h.masked = true
	return Response{Code: codes.InternalError}
}

// finish completes r into the Failure sent, tells the observers, and logs.
func (p *Pipeline) finish(ctx context.Context, h *handling, ask *asks, r *Response) *Failure {
	r.Code = cmp.Or(r.Code, codes.InternalError)
	info, known := p.registry.Lookup(r.Code)
	if !known {
		info = p.unregistered(ctx, h, r)
	}
	var details []byte
	if (r.Details != nil || h.details != nil) && !h.masked {
		var reason string
		if details, reason = encodeDetails(r.Details, h.details, r.Code == codes.ValidationError); reason != "" {
			h.attrs = append(h.attrs, slog.String("details_error", p.text(errors.New(reason))))
		}
	}
	server := h.masked || info.Category == codes.Server
	retryable := info.Retryable
	after := r.RetryAfter
	if r.Retryable != nil && !h.masked {
		retryable = *r.Retryable
	}
	outcome := ""
	if r.MayHaveTakenEffect && !h.masked && !p.mayRepeat(h, ask) {
		outcome, retryable = "unknown", false
	}
	switch {
	case !retryable || h.masked: // a negative delay is clamped to 0 below
		after = 0
	case after == 0:
		after = info.RetryAfter
	}
	after = min(max(after, 0), maxRetryAfter)
	h.retry = p.retryIn(ctx, h, ask, r.Code, retryable, after)
	if h.ref == "" && (server || h.handBuilt || h.retry > 0) {
		h.ref = p.ref() // the attempts of a retried call share one
	}
	msg := r.Message
	var hints []string
	if h.masked {
		msg = maskedText(h.call, h.ref)
	} else {
		if h.ended && h.ref != "" {
			// The pipeline's own texts end with the ref, as the masked one does.
			msg = strings.TrimSuffix(msg, ".") + " (ref: " + h.ref + ")."
		}
		for _, x := range r.Hints { // bounded, without empty ones, repeats, or too many
			if x != "" && len(hints) < maxHints {
				if x = boundMessage(x, maxHint); !slices.Contains(hints, x) {
					hints = append(hints, x)
				}
			}
		}
	}
	f := h.failure(Envelope{Code: r.Code, Category: info.Category, Message: msg, Details: details,
		Hints: hints, Retryable: retryable, Outcome: outcome, DocURL: info.DocURL,
		// Whole milliseconds, rounded up, so a delay is never shortened.
		RetryAfterSeconds: float64((after+time.Millisecond-1)/time.Millisecond) / 1000})
	f.Retry = h.retry
	if h.attempt > 1 {
		f.Envelope.Attempts = h.attempt
	}
	if h.filterErr != nil {
		f.Err = errors.Join(h.orig, h.filterErr)
	}
	f.Texts = p.renderSafely(h, f, f.Envelope)
	f.ErrorText = p.text(h.err)
	f.logged.text = f.ErrorText
	if !p.redact {
		f.logged.err = h.err // under redaction it unwraps to nothing
	}
	for _, o := range p.observers {
		func() {
			defer func() {
				if v := recover(); v != nil {
					h.attrs = append(h.attrs, slog.String("observer_error", p.text(recovered(v))))
				}
			}()
			o(ctx, f.view())
		}()
	}
	p.log(ctx, h, f, server)
	return f
}

// validViolations reports whether the violations in details, if any, have
// the form the envelope's schema gives a VALIDATION_ERROR's.
func validViolations(details []byte) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(details, &top) != nil {
		return false
	}
	raw, ok := top["violations"]
	if !ok {
		return true
	}
	var vs []struct {
		Field      *string `json:"field"`
		Constraint *string `json:"constraint"`
		Pointer    *string `json:"pointer"`
		Reason     *string `json:"reason"`
	}
	if json.Unmarshal(raw, &vs) != nil || string(raw) == "null" { // raw is json.Marshal's: compact
		return false
	}
	for _, v := range vs {
		if v.Field == nil || v.Constraint == nil || v.Pointer != nil && !jsonPointer(*v.Pointer) {
			return false
		}
	}
	return true
}

// jsonPointer reports whether s is a JSON Pointer (RFC 6901): empty, or
// "/"-separated tokens in which "~" is followed by 0 or 1.
func jsonPointer(s string) bool {
	if s != "" && s[0] != '/' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '~' && (i+1 == len(s) || s[i+1] != '0' && s[i+1] != '1') {
			return false
		}
	}
	return true
}

// encodeDetails returns the details sent, as JSON, or why they cannot be:
// those of v, a Validation, else details; checked, violations must have the
// form validViolations requires.
func encodeDetails(details map[string]any, v *domain.Validation, checked bool) (b []byte, reason string) {
	defer func() {
		if x := recover(); x != nil {
			b, reason = nil, "the details cannot be encoded: "+safeSprint(x)
		}
	}()
	var err error
	if v != nil {
		b, err = validationDetails(v)
	} else {
		b, err = json.Marshal(details)
	}
	switch {
	case err != nil:
		return nil, "the details cannot be encoded: " + bound(err.Error(), maxLogValue)
	case len(b) > maxDetails:
		return nil, fmt.Sprintf("the details are %d bytes of JSON, more than %d", len(b), maxDetails)
	case string(b) == "{}" || string(b) == "null":
		return nil, ""
	case v == nil && checked && !validViolations(b):
		return nil, "the details of a VALIDATION_ERROR hold violations that do not fit the envelope's schema: each needs a string field and constraint, and a pointer that is a JSON Pointer"
	}
	return b, ""
}

// validationDetails returns the details of v as json.Marshal writes its
// PublicDetails, without building them as maps; an error if a pointer is
// not a JSON Pointer, as the envelope's schema requires.
func validationDetails(v *domain.Validation) ([]byte, error) {
	type violation struct {
		Constraint string  `json:"constraint"`
		Field      string  `json:"field"`
		Pointer    *string `json:"pointer,omitempty"`
		Reason     string  `json:"reason,omitempty"`
	}
	vs := make([]violation, len(v.Violations))
	for i := range v.Violations {
		x := &v.Violations[i]
		if !jsonPointer(x.Pointer) {
			return nil, errors.New("the pointer of a violation is not a JSON Pointer")
		}
		vs[i] = violation{Constraint: x.Constraint, Field: x.Field, Reason: x.Reason}
		if x.Pointer != "" || x.Reason != "" { // "" is the arguments as a whole, sent when the violation says why
			vs[i].Pointer = &x.Pointer
		}
	}
	return json.Marshal(struct {
		Violations []violation `json:"violations"`
	}{vs})
}

func (h *handling) failure(env Envelope) *Failure {
	env.Version, env.Error, env.Ref = envelopeVersion, true, h.ref
	env.Message = boundMessage(env.Message, maxMessage)
	env.Timestamp = time.Now().UTC().Format(time.RFC3339Nano)
	env.RequestID = boundMessage(h.call.RequestID, maxRequestID)
	f := &Failure{Call: h.call, Envelope: env, Err: h.orig, ReportOnly: h.reportOnly, HandBuilt: h.handBuilt}
	if !h.call.isTool() {
		f.JSONRPCCode = rpcCode(h.call, env)
		if h.call.Method == methodReadResource && env.Code == codes.NotFound {
			f.Envelope.URI = h.call.Resource
		}
	}
	return f
}

// lastResort answers a request whose handling ended abnormally: a masked
// internal error, logged to the last-resort handler unless already logged.
func (p *Pipeline) lastResort(ctx context.Context, h *handling, v any) *Failure {
	if h.ref == "" {
		h.ref = newRef()
	}
	f := h.failure(Envelope{Code: codes.InternalError, Category: codes.Server, Message: maskedText(h.call, h.ref)})
	env := f.Envelope
	f.Texts = []string{env.Message, modelBlock(env)}
	if !h.logged {
		h.logged = true
		reason := "runtime.Goexit in a filter, an observer, the renderer or the log handler"
		if v != nil {
			reason = safeSprint(v)
		}
		rec := slog.NewRecord(time.Now(), slog.LevelError, logMessageOf(h.call), 0)
		rec.AddAttrs(targetAttr(h.call, p.redact), slog.String("code", string(env.Code)), slog.String("ref", h.ref),
			slog.String("request_id", env.RequestID), slog.String("error", fmt.Sprintf("%T", h.orig)),
			slog.String("pipeline_error", reason))
		_ = handle(ctx, p.lastHandler(), rec)
	}
	return f
}

// lastHandler is the last resort of a record whose logger fails.
func (p *Pipeline) lastHandler() slog.Handler {
	if p.fallback != nil {
		return p.fallback
	}
	return slog.NewTextHandler(os.Stderr, nil)
}

// renderSafely renders env with the pipeline's Renderer, bounded; one that
// panics or returns no blocks is replaced by RenderForModel, and noted.
func (p *Pipeline) renderSafely(h *handling, f *Failure, env Envelope) (texts []string) {
	if p.render == nil {
		f.textsBuf = [2]string{env.Message, modelBlock(env)}
		return f.textsBuf[:]
	}
	defer func() {
		if v := recover(); v != nil {
			h.attrs = append(h.attrs, slog.String("render_error", "the Renderer panicked: "+p.text(recovered(v))))
			texts = RenderForModel(env)
		}
	}()
	out := p.render(env.clone())
	if len(out) == 0 {
		h.attrs = append(h.attrs, slog.String("render_error", "the Renderer returned no text blocks"))
		return RenderForModel(env)
	}
	texts = make([]string, min(len(out), maxBlocks))
	for i := range texts {
		texts[i] = boundMessage(out[i], maxMessage)
	}
	return texts
}

func (p *Pipeline) ref() string {
	if p.newRef != nil {
		if ref := noPanic(p.newRef); validRef(ref) {
			return ref
		}
	}
	return newRef()
}

// validRef reports whether ref is 1 to 64 ASCII letters, digits, '-', '_' or '.'.
func validRef(ref string) bool { return ref != "" && len(ref) <= 64 && plain(ref) }

// unregistered replaces r's unknown code with its fallback, whose information
// it returns, and warns of it the first time.
func (p *Pipeline) unregistered(ctx context.Context, h *handling, r *Response) codes.Info {
	bad := bound(string(r.Code), 256)
	r.Code = codes.ToolFailed
	if _, rule := h.public.(*domain.BusinessRule); rule {
		r.Code = codes.BusinessRuleViolation
	}
	h.attrs = append(h.attrs, slog.String("unregistered_code", bad))
	info, _ := p.registry.Lookup(r.Code)
	if p.nUnknown.Load() >= maxUnknownWarnings {
		return info
	}
	if _, seen := p.unknown.LoadOrStore(codes.Code(bad), struct{}{}); seen {
		return info
	}
	p.nUnknown.Add(1)
	_, target := h.call.subject()
	if p.redact && target == h.call.Resource && target != "" {
		target = uriview.Safe(target, false)
	}
	p.warn(ctx, slog.LevelWarn, "mcperr: unregistered error code", slog.String("unregistered_code", bad), slog.String("sent_as", string(r.Code)), slog.String("target", bound(target, 256)),
		slog.String("reason", "the registry does not know it; register it with codes.NewRegistry and pass the registry to filter.WithRegistry"))
	return info
}

// warn writes one record of the pipeline's own, to the last resort if the
// logger fails.
func (p *Pipeline) warn(ctx context.Context, level slog.Level, msg string, attrs ...slog.Attr) {
	if handler := p.handler(); enabled(ctx, handler, level) {
		rec := slog.NewRecord(time.Now(), level, msg, 0)
		rec.AddAttrs(attrs...)
		if handle(ctx, handler, rec) != nil {
			_ = handle(ctx, p.lastHandler(), rec)
		}
	}
}

// checkSetup writes one ERROR record for each of the problems an adapter
// found in how mcperr is put on a server, and one WARN record naming the
// tools that ForTool or WithRetries name and that, as has says, the server
// does not have: their options apply to nothing.
func (p *Pipeline) checkSetup(ctx context.Context, has func(string) bool, problemsOf func() []string) {
	var problems []string
	if problemsOf != nil {
		problems = noPanic(problemsOf)
	}
	for _, problem := range problems {
		p.warn(ctx, slog.LevelError, "mcperr: misplaced middleware", slog.String("problem", problem))
	}
	if has == nil {
		return
	}
	var missing []string
	for name := range p.tools {
		if !noPanic(func() bool { return has(name) }) {
			missing = append(missing, name)
		}
	}
	for name := range p.safe {
		if !slices.Contains(missing, name) && !noPanic(func() bool { return has(name) }) {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		p.warn(ctx, slog.LevelWarn, "mcperr: options for tools the server does not have", slog.Any("tools", missing),
			slog.String("consequence", "the options that filter.ForTool or filter.WithRetries give these names apply to nothing"),
			slog.String("fix", "name the tools as the server adds them, or drop the options"))
	}
}
