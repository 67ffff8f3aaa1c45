package filter

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/internal/callctx"
	"github.com/mcperr/mcperr/internal/nilness"
	"github.com/mcperr/mcperr/internal/uriview"
	"github.com/mcperr/mcperr/toolerr"
)

// Pipeline is the error-handling configuration of a server: it turns the
// errors of its requests into Failures and logs each once. It is immutable
// once built and safe for concurrent use. Build one with New.
type Pipeline struct {
	logger    *slog.Logger
	registry  *codes.Registry
	global    []Filter
	observers []func(context.Context, Failure)
	render    func(Envelope) []string // nil: RenderForModel
	newRef    func() string
	redact    bool

	reportOnly bool            // WithReportOnly
	handBuilt  HandBuilt       // WithHandBuilt
	checkArgs  bool            // WithArgumentCheck
	retries    int             // WithRetries: at most this many more attempts
	safe       map[string]bool // WithRetries: tools named safe to call again
	budget     budget          // the retries left to the server

	fallback slog.Handler // the last resort when the logger fails

	unknown  sync.Map     // the unregistered codes warned about
	nUnknown atomic.Int32 // how many, at most maxUnknownWarnings
}

// New returns a Pipeline configured by opts. A bad option, such as a nil
// filter, is a *codes.DefinitionError.
func New(opts ...Option) (*Pipeline, error) {
	p := &Pipeline{newRef: newRef, fallback: slog.NewTextHandler(os.Stderr, nil)}
	for i, opt := range opts {
		if opt == nil {
			return nil, &codes.DefinitionError{Mistake: codes.NilValue,
				Reason: "option " + strconv.Itoa(i) + " given to filter.New is nil; leave it out, or pass the option you meant"}
		}
		if err := opt(p); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Handle turns err, raised by the request described by call, into the
// Failure the client receives, tells the observers, and writes the one log
// record of it. A nil err yields nil. The adapters call it; an application
// rarely needs to.
//
// The request's own end is decided first, then filters (those given where
// the tool, resource or prompt was registered) run before the global ones
// and the built-in mapping, as the package documentation says. A code the
// registry does not know, whatever produced it, is sent as
// BUSINESS_RULE_VIOLATION for a business rule and TOOL_ERROR otherwise, with
// one WARN record the first time. A ref is always the pipeline's.
//
// Handle is total: whatever err, a filter, an observer, the renderer or the
// log handler does (panic, return a typed nil, build a cyclic or enormous
// chain), it returns one Failure and writes one record, to standard error
// if the logger fails, bounded as the package documentation says.
func (p *Pipeline) Handle(ctx context.Context, call Call, err error, filters ...Filter) (f *Failure) {
	if err == nil {
		return nil
	}
	if ctx == nil {
		ctx = context.Background()
	}
	var in callctx.Input
	if x, ok := err.(*callctx.Input); ok && x != nil {
		in, err = *x, x.Err // an adapter's: the tool's settings and arguments
		if err == nil {
			return nil
		}
	}
	reportOnly, policy := p.settings(in.Settings)
	hb, handBuilt := err.(*callctx.HandBuilt)
	if handBuilt && policy == PassHandBuilt && !reportOnly {
		return nil // the adapter sends the result as the handler built it
	}
	if call.RequestID == "" {
		if call.RequestID = RequestIDFromContext(ctx); call.RequestID == "" {
			call.RequestID = callctx.NewID()
		}
	}
	h := &handling{call: call, reportOnly: reportOnly, handBuilt: handBuilt, arguments: in.Arguments, repeatable: in.Repeatable,
		attempt: max(in.Attempt, 1), took: in.Took, ref: in.Ref}
	h.setErr(err)
	h.orig = h.err // an opaqueError if the chain cannot be walked: nothing asks it again
	defer func() {
		if f == nil { // finish did not return
			// Only a runtime.Goexit in a filter, observer, renderer or log
			// handler gets here. The adapter that called Handle does so after
			// the handler returned, or from its deferred recovery, which has
			// run already: nothing else logs it.
			f = p.lastResort(ctx, h, recover())
		}
	}()
	var r Response
	switch {
	case handBuilt && policy == MaskHandBuilt:
		r = p.internal(h)
	case handBuilt:
		// Filters see errors, not results: the handler's own answer passes as it is.
		r = Response{Code: codes.ToolFailed, Message: hb.Text}
	default:
		var ok bool
		if r, ok = p.ended(ctx, h); !ok {
			if r, ok = p.runFilters(ctx, h, filters); !ok {
				r = p.mapError(h)
			}
		}
	}
	return p.finish(ctx, h, &r)
}

func init() {
	callctx.Modes = func(pipeline any, tool callctx.Settings) (checkArguments, reportOnly bool) {
		p, _ := pipeline.(*Pipeline)
		if p == nil {
			return false, false
		}
		reportOnly, _ = p.settings(tool)
		return tool.ArgumentCheck == 2 || tool.ArgumentCheck == 0 && p.checkArgs, reportOnly
	}
	callctx.Succeeded = func(pipeline any) bool { // a success gives back to the retry budget
		p, _ := pipeline.(*Pipeline)
		if p == nil || p.retries == 0 {
			return false
		}
		p.budget.add(-budgetRefund)
		return true
	}
}

// settings returns the mode and hand-built policy of a failure of a tool
// with settings tool: the pipeline's, or the tool's own where it has them.
func (p *Pipeline) settings(tool callctx.Settings) (reportOnly bool, policy HandBuilt) {
	reportOnly, policy = p.reportOnly, p.handBuilt
	if tool.ReportOnly != 0 {
		reportOnly = tool.ReportOnly == 2
	}
	if tool.HandBuilt != 0 {
		policy = HandBuilt(tool.HandBuilt - 1)
	}
	return reportOnly, policy
}

// handling is the state of one error on its way through the pipeline.
type handling struct {
	call        Call
	orig        error              // as the handler returned it
	transformed bool               // a filter replaced orig with err
	err         error              // after the filters' transformations
	facts       chainFacts         // what the chain of err holds
	slow        *chainFacts        // facts found again with errors.As, once
	filterErr   error              // a filter that panicked or answered badly
	public      error              // the public error the built-in mapping answered with
	refused     *domain.Validation // how the arguments did not fit, when that decided
	arguments   func() error       // the adapter's check of the arguments, or nil
	repeatable  func() bool        // the adapter's: the tool is read-only or idempotent
	repeat      int8               // 1 + what mayRepeat found, once asked
	attempt     int                // which call of the tool in the request, from 1
	took        time.Duration      // how long the attempt ran
	ended       bool               // the request's own end answered it, in the pipeline's own words
	wouldRetry  bool               // report-only: WithRetries would have called the tool again
	retry       time.Duration      // the wait before the tool is called again, if it is
	masked      bool
	reportOnly  bool // nothing of the Failure is sent: it is reported
	handBuilt   bool // the error stands for a result the handler built
	ref         string
	logged      bool        // the record was written
	attrs       []slog.Attr // extra attributes for the log record
	loggedErr   loggedError // the record's error value: the text of err, bounded and redacted
}

// setErr makes err the error being handled, with what one walk of its
// chain finds; a chain that cannot be walked safely becomes an opaqueError.
func (h *handling) setErr(err error) {
	f, reason := scan(err)
	if reason != "" {
		err = &opaqueError{text: reflect.TypeOf(err).String() + " (not walked: " + reason + ")"}
		f = chainFacts{}
		f.note(err)
	}
	h.err, h.facts, h.slow = err, f, nil
}

// runFilters offers the cause of a ToolError to the tool's filters, then
// the global ones, and if none answers, the whole error. The ToolError
// keeps its words over an answer to its cause: the filter's message becomes
// the first hint, and the class (code, details, retry advice) is the filter's.
func (p *Pipeline) runFilters(ctx context.Context, h *handling, own []Filter) (Response, bool) {
	te, _ := h.chain().public.(*toolerr.ToolError)
	cause := te.Unwrap()
	if h.facts.custom { // te was found by an As method: its cause is not the chain walked
		if _, unsafe := scan(cause); unsafe != "" {
			cause = nil
		}
	}
	if cause != nil && te.PublicMessage() != "" {
		if r, ok := p.offer(ctx, h, own, cause, false); ok || h.filterErr != nil {
			return worded(te, r), ok
		}
	}
	return p.offer(ctx, h, own, h.err, true)
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
func (p *Pipeline) offer(ctx context.Context, h *handling, own []Filter, err error, whole bool) (Response, bool) {
	for _, fs := range [2][]Filter{own, p.global} {
		for _, f := range fs {
			if f == nil {
				continue
			}
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
				if _, unsafe := scan(next); unsafe != "" {
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
// A method of the error (ErrorCode, PublicMessage, As...) that panics masks it.
func (p *Pipeline) mapError(h *handling) (r Response) {
	defer func() {
		if v := recover(); v != nil {
			h.attrs = append(h.attrs, slog.String("mapping_error", "a method of the error panicked: "+safeSprint(v)))
			h.public = nil
			r = p.internal(h)
		}
	}()
	if h.filterErr != nil {
		return p.internal(h)
	}
	f := h.chain()
	if f.panicked {
		return p.internal(h)
	}
	if pub := f.public; pub != nil {
		// A public error in a ToolError's cause answers as a filter's answer to the cause.
		te, _ := pub.(*toolerr.ToolError)
		if in, _ := scan(te.Unwrap()); te.PublicMessage() != "" && in.public != nil && !nilness.IsNil(in.public) && in.public.PublicMessage() != "" {
			pub = in.public
		} else {
			te = nil
		}
		if nilness.IsNil(pub) {
			// A nil pointer whose methods ignore it (an Authorization's) means nothing.
			h.attrs = append(h.attrs, slog.String("mapping_error", fmt.Sprintf("the public error is a nil %T", pub)))
			return p.internal(h)
		}
		r = Response{Code: pub.ErrorCode(), Message: pub.PublicMessage()}
		if d, ok := pub.(interface{ PublicDetails() map[string]any }); ok {
			r.Details = d.PublicDetails()
		}
		if retry, known, after := toolerr.RetryAdvice(pub); known {
			r.Retryable, r.RetryAfter = &retry, after
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
	if h.arguments == nil {
		return p.internal(h)
	}
	// The client can correct its arguments; the record keeps the error.
	if v, _ := noPanic(h.arguments).(*domain.Validation); v != nil {
		h.public, h.refused = v, v
		return Response{Code: v.ErrorCode(), Message: v.PublicMessage(), Details: v.PublicDetails()}
	}
	return p.internal(h)
}

// ended answers, before any filter runs, the failure of a request whose
// own context is done: CANCELLED or TIMEOUT, as ctx.Err() says, whatever the
// error says, except a panic or a public error, whose words are deliberate.
func (p *Pipeline) ended(ctx context.Context, h *handling) (r Response, ok bool) {
	done := noPanic(ctx.Err) // nil while the request is alive
	if done != context.Canceled && done != context.DeadlineExceeded {
		return Response{}, false
	}
	if f := h.chain(); f.panicked || f.public != nil { // a panicking As or Is method: the mapping masks it
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
	case tool && !p.mayRepeat(h):
		return Response{Code: codes.Timeout, Message: "The tool did not finish in time, and may have done its work before it stopped.", MayHaveTakenEffect: true}, true
	case tool:
		return Response{Code: codes.Timeout, Message: "The tool did not finish in time; try again, perhaps with a smaller request.", MayHaveTakenEffect: true}, true
	default:
		return Response{Code: codes.Timeout, Message: "The request did not finish in time; try again later."}, true
	}
}

// chain returns the facts of the error's chain, found again with errors.As,
// once, if an error in it has As or Is methods of its own; an As or Is
// method that panics counts as a panic in the chain, which is masked.
func (h *handling) chain() chainFacts {
	if !h.facts.custom {
		return h.facts
	}
	if h.slow == nil {
		h.slow = &chainFacts{custom: true, panicked: true}
		func() {
			defer func() {
				if v := recover(); v != nil {
					h.attrs = append(h.attrs, slog.String("mapping_error", "a method of the error panicked: "+safeSprint(v)))
				}
			}()
			var pe *PanicError
			panicked := errors.As(h.err, &pe)
			var pub toolerr.PublicError
			if !errors.As(h.err, &pub) {
				pub = nil // an As method may set the target and answer false
			}
			*h.slow = chainFacts{custom: true, panicked: panicked, public: pub}
		}()
	}
	return *h.slow
}

// mayRepeat reports whether calling again is safe whatever the failure did:
// a resource, prompt or completion, which reads, a tool named safe
// (WithRetries), or one the adapter knows is annotated read-only or
// idempotent. It asks the adapter once.
func (p *Pipeline) mayRepeat(h *handling) bool {
	if !h.call.isTool() || p.safe[h.call.Tool] {
		return true
	}
	if h.repeat == 0 {
		h.repeat = 1
		if h.repeatable != nil && noPanic(h.repeatable) {
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
func (p *Pipeline) finish(ctx context.Context, h *handling, r *Response) *Failure {
	r.Code = cmp.Or(r.Code, codes.InternalError)
	info, known := p.registry.Lookup(r.Code)
	if !known {
		info = p.unregistered(ctx, h, r)
	}
	var details []byte
	if r.Details != nil && !h.masked {
		var reason string
		// Only the pipeline's own refusal has the schema's form by construction.
		if details, reason = encodeDetails(r.Details, r.Code == codes.ValidationError && h.refused == nil); reason != "" {
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
	if r.MayHaveTakenEffect && !h.masked && !p.mayRepeat(h) {
		outcome, retryable = "unknown", false
	}
	switch {
	case !retryable || h.masked: // a negative delay is clamped to 0 below
		after = 0
	case after == 0:
		after = info.RetryAfter
	}
	after = min(max(after, 0), maxRetryAfter)
	h.retry = p.retryIn(ctx, h, r.Code, retryable, after)
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
	h.loggedErr.text = p.text(h.err)
	f.ErrorText = h.loggedErr.text
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
	p.log(ctx, h, f.Envelope, server)
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

// encodeDetails returns details as the JSON sent, or why they cannot be;
// checked, their violations must have the form validViolations requires.
func encodeDetails(details map[string]any, checked bool) (b []byte, reason string) {
	defer func() {
		if v := recover(); v != nil {
			b, reason = nil, "the details cannot be encoded: "+safeSprint(v)
		}
	}()
	b, err := json.Marshal(details)
	switch {
	case err != nil:
		return nil, "the details cannot be encoded: " + bound(err.Error(), maxLogValue)
	case len(b) > maxDetails:
		return nil, fmt.Sprintf("the details are %d bytes of JSON, more than %d", len(b), maxDetails)
	case string(b) == "{}" || string(b) == "null":
		return nil, ""
	case checked && !validViolations(b):
		return nil, "the details of a VALIDATION_ERROR hold violations that do not fit the envelope's schema: each needs a string field and constraint, and a pointer that is a JSON Pointer"
	}
	return b, ""
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
		_ = handle(ctx, p.fallback, rec)
	}
	return f
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
	if ref := noPanic(p.newRef); validRef(ref) {
		return ref
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
	var br *domain.BusinessRule
	if h.public != nil && errors.As(h.public, &br) {
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
	if handler := p.handler(); enabled(ctx, handler, slog.LevelWarn) {
		rec := slog.NewRecord(time.Now(), slog.LevelWarn, "mcperr: unregistered error code", 0)
		rec.AddAttrs(slog.String("unregistered_code", bad), slog.String("sent_as", string(r.Code)), slog.String("target", bound(target, 256)),
			slog.String("reason", "the registry does not know it; register it with codes.NewRegistry and pass the registry to filter.WithRegistry"))
		if handle(ctx, handler, rec) != nil { // the logger failed: to the last resort
			_ = handle(ctx, p.fallback, rec)
		}
	}
	return info
}
