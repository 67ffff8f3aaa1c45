package filter

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/redact"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/internal/uriview"
	"github.com/mcperr/mcperr/toolerr"
)

// Pipeline is a server's error-handling configuration (see the package
// documentation), built with New: immutable, and safe for concurrent use.
type Pipeline struct {
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
	budget  budget                // the retries left, shared by every server given the pipeline

	fallback slog.Handler // the last resort when the logger fails; nil: standard error

	unknown  sync.Map     // the unregistered codes warned about
	nUnknown atomic.Int32 // how many, at most maxUnknownWarnings
}

// New returns a Pipeline configured by opts; a bad one, such as a nil filter, is a *codes.DefinitionError.
func New(opts ...Option) (*Pipeline, error) {
	p := &Pipeline{}
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

// Handle turns err, raised by the request call describes, into the Failure
// the client receives, tells the observers, and logs it once; filters run
// before those of ForTool and the server's. A nil err yields nil; Serve, not
// Handle, runs a whole request. A code the registry does not know is sent as
// BUSINESS_RULE_VIOLATION for a business rule and TOOL_ERROR otherwise, with
// one WARN record the first time. A ref is always the pipeline's. Handle is
// total: whatever err or a filter, observer, renderer or log handler does
// (panic, return a typed nil, build a cyclic or enormous chain), it returns
// one Failure and writes one bounded record, to standard error if the logger fails.
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

// handle decides and logs the answer to in; nil for a hand-built result passed unreported.
func (p *Pipeline) handle(ctx context.Context, in *input, ask *asks) (f *Failure) {
	reportOnly, policy := p.reportOnly(in.tool), p.policy(in.tool)
	h := handling{call: in.call, raw: in.err, filters: in.tool.filters, attempt: in.attempt, took: in.took, reportOnly: reportOnly, handBuilt: in.err == nil, check: in.check}
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
		if f == nil { // finish did not return: a runtime.Goexit in a filter, observer, renderer or log handler
			f = p.lastResort(ctx, &h, recover())
		}
	}()
	var r Response
	switch {
	case h.handBuilt && policy == MaskHandBuilt:
		r = p.internal(&h)
	case h.handBuilt: // filters see errors, not results: the handler's own answer passes as it is
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

type handBuiltError struct{ text string }

func (e *handBuiltError) Error() string { return e.text }

// handling is a failure on its way, without the adapter's callbacks, which stay on the stack.
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
	repeat      int8               // onOff(what mayRepeat found), once asked
	ended       bool               // the request's own end answered it, in the pipeline's own words
	wouldRetry  bool               // report-only: WithRetries would have called the tool again
	retry       time.Duration      // the wait before the tool is called again, if it is
	notRetried  string             // why WithRetries does not call a tool again that it might
	masked      bool
	unexplained bool // a ToolError's cause that nothing public or classified explains: a server failure
	check       bool // the argument check's refusal of a call the handler served (report-only)
	reportOnly  bool // nothing of the Failure is sent: it is reported
	handBuilt   bool // the error stands for a result the handler built
	ref         string
	logged      bool        // the record was written
	attrs       []slog.Attr // extra attributes for the log record
}

// setErr makes err, or its opaqueError, the error handled; a method of it that panics masks it.
func (h *handling) setErr(err error) {
	h.facts, h.err = scan(err)
	if h.facts.custom && !h.facts.opaque {
		if v := try(func() { h.facts.ask(h.err) }); v != nil {
			h.attrs = append(h.attrs, slog.String("mapping_error", "a method of the error panicked: "+safeSprint(v.Value)))
			h.facts.panicked = true
		}
	}
}

// runFilters offers the filters the cause of a ToolError (see worded), then the whole error.
func (p *Pipeline) runFilters(ctx context.Context, h *handling) (Response, bool) {
	if te, _ := h.facts.public.(*toolerr.ToolError); te != nil && te.PublicMessage() != "" && h.facts.cause != nil {
		if r, ok := p.offer(ctx, h, h.facts.cause, false); ok || h.filterErr != nil {
			return worded(te, h.facts.through, r, true), ok
		}
	}
	return p.offer(ctx, h, h.err, true)
}

// worded gives r the words of te over the ToolErrors of no code through
// (outermost first) and, below them, r's message when r answers te's cause:
// below a ToolError made by toolerr.Wrap, words follow its own after ": ",
// as fmt.Errorf("%s: %w") reads; below any other, they are the first hints.
func worded(te *toolerr.ToolError, through []*toolerr.ToolError, r Response, below bool) Response {
	msg, joins, hints := te.PublicMessage(), te.Wraps(), []string(nil)
	for i := range len(through) + 1 {
		w := r.Message
		if i < len(through) {
			w = through[i].PublicMessage()
		} else if !below {
			break
		}
		if joins && w != "" {
			msg += ": " + w
		} else {
			hints = append(hints, w)
		}
		joins = joins && i < len(through) && through[i].Wraps()
	}
	r.Message, r.Hints = msg, slices.DeleteFunc(append(append(hints, r.Hints...), te.ErrorHint()), func(s string) bool { return s == "" })
	return r
}

// offer runs the filters on err until one answers; transformed, err is replaced (whole: h's too).
func (p *Pipeline) offer(ctx context.Context, h *handling, err error, whole bool) (Response, bool) {
	for _, fs := range [2][]Filter{h.filters, p.global} {
		for _, f := range fs {
			var resp *Response
			var next error
			if v := try(func() { resp, next = f.Catch(ctx, h.call, err) }); v != nil {
				h.filterErr = fmt.Errorf("filter %T panicked: %w", f, v)
			} else if resp != nil && resp.Message == "" {
				h.filterErr = fmt.Errorf("filter %T answered with an empty message", f)
			}
			switch {
			case h.filterErr != nil: // nil on entry: runFilters stops at it
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

// mapError is the built-in mapping; a method of the error that panics masks it.
func (p *Pipeline) mapError(h *handling, ask *asks) (r Response) {
	if v := try(func() { r = p.mapped(h, ask) }); v != nil {
		h.attrs = append(h.attrs, slog.String("mapping_error", "a method of the error panicked: "+safeSprint(v.Value)))
		h.public = nil
		return p.internal(h)
	}
	return r
}

func (p *Pipeline) mapped(h *handling, ask *asks) (r Response) {
	f := &h.facts
	if pub := f.public; pub != nil && h.filterErr == nil && !f.panicked {
		// A public error in a ToolError's cause answers as a filter's answer to the cause.
		te, _ := pub.(*toolerr.ToolError)
		if inner := f.inner; te.PublicMessage() != "" && inner != nil && !isNil(inner) && inner.PublicMessage() != "" {
			pub = inner
		} else {
			// The tool's words, with no code of their own, over a cause mcperr
			// would mask: the model reads the words, the server's log and
			// observers see a server failure. A code classifies, as a domain
			// error's type does.
			h.unexplained = te != nil && inner == nil && te.ErrorCode() == codes.ToolFailed && f.cause != nil && !isNil(f.cause)
			te = nil
		}
		if isNil(pub) { // a nil pointer whose methods ignore it (an Authorization's) means nothing
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
			return worded(te, f.through, r, true)
		}
		if alone, ok := pub.(*toolerr.ToolError); ok && f.through != nil { // over a cause nothing explains
			r.Hints = nil // worded adds its hint
			return worded(alone, f.through, r, false)
		}
		return r
	}
	if ask.arguments == nil || h.filterErr != nil || f.panicked {
		return p.internal(h)
	}
	// The client can correct its arguments; the record keeps the error.
	if v := noPanic(func() *domain.Validation { return ask.arguments(h.raw) }); v != nil {
		h.public, h.refused, h.details = v, v, v
		return Response{Code: v.ErrorCode(), Message: v.PublicMessage()}
	}
	return p.internal(h)
}

// ended answers a failure of a request whose context is done, unless a panic or public error does.
func (p *Pipeline) ended(ctx context.Context, h *handling, ask *asks) (r Response, ok bool) {
	done := noPanic(ctx.Err) // nil while the request is alive
	if done != context.Canceled && done != context.DeadlineExceeded || ask.detached || h.facts.panicked || h.facts.public != nil {
		return Response{}, false // alive, or for the mapping to answer
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

// mayRepeat reports whether calling again is safe whatever the failure did; it asks once.
func (p *Pipeline) mayRepeat(h *handling, ask *asks) bool {
	if !h.call.isTool() || p.safe[h.call.Tool] {
		return true
	}
	if h.repeat == 0 {
		h.repeat = onOff(ask.repeatable != nil && noPanic(ask.repeatable))
	}
	return h.repeat == 2
}

func (p *Pipeline) internal(h *handling) Response {
	h.masked = true
	return Response{Code: codes.InternalError}
}

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
	category := info.Category
	if h.unexplained {
		category = codes.Server
	}
	server := h.masked || category == codes.Server
	retryable, after := info.Retryable, r.RetryAfter
	if r.Retryable != nil && !h.masked {
		retryable = *r.Retryable
	}
	outcome := ""
	if r.MayHaveTakenEffect && !h.masked && !p.mayRepeat(h, ask) || h.unexplained && r.Retryable == nil {
		outcome, retryable = "unknown", false // nobody said what the cause did: never "no"
	}
	switch {
	case !retryable || h.masked: // a negative delay is clamped to 0 below
		after = 0
	case after == 0:
		after = info.RetryAfter
	}
	after = min(max(after, 0), maxRetryAfter)
	h.retry = p.retryIn(ctx, h, ask, r.Code, retryable, after)
	if h.reportOnly && h.facts.public != nil && !h.masked && !h.check && !h.handBuilt {
		h.reportOnly = false // written for mcperr: answered in report-only mode too, not retried
	}
	if h.ref == "" && (server || h.handBuilt || h.retry > 0) {
		h.ref = p.ref() // the attempts of a retried call share one
	}
	msg := r.Message
	var hints []string
	if h.masked {
		msg = maskedText(h.call, h.ref)
	} else {
		if h.ended && h.ref != "" { // the pipeline's own texts end with the ref, as the masked one does
			msg = strings.TrimSuffix(msg, ".") + " (ref: " + h.ref + ")."
		}
		for _, x := range r.Hints { // bounded, without empty ones, repeats, or too many
			if x = boundMessage(x, maxHint); x != "" && len(hints) < maxHints && !slices.Contains(hints, x) {
				hints = append(hints, x)
			}
		}
	}
	f := h.failure(Envelope{Code: r.Code, Category: category, Message: msg, Details: details,
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
		if v := try(func() { o(ctx, f.view()) }); v != nil {
			h.attrs = append(h.attrs, slog.String("observer_error", p.text(v)))
		}
	}
	p.log(ctx, h, f, server)
	return f
}

func validViolations(details []byte) bool {
	var top struct{ Violations json.RawMessage }
	var vs []struct{ Field, Constraint, Pointer *string }
	switch {
	case json.Unmarshal(details, &top) != nil:
		return false
	case top.Violations == nil:
		return true
	case json.Unmarshal(top.Violations, &vs) != nil || string(top.Violations) == "null": // json.Marshal's: compact
		return false
	}
	for _, v := range vs {
		if v.Field == nil || v.Constraint == nil || v.Pointer != nil && !jsonPointer(*v.Pointer) {
			return false
		}
	}
	return true
}

// jsonPointer reports whether s is a JSON Pointer (RFC 6901).
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

// encodeDetails returns v's details, else details (checked: by validViolations), as JSON, or why not.
func encodeDetails(details map[string]any, v *domain.Validation, checked bool) (b []byte, reason string) {
	var err error
	x := try(func() {
		if v != nil {
			b, err = validationDetails(v)
		} else {
			b, err = json.Marshal(details)
		}
	})
	switch {
	case x != nil:
		return nil, "the details cannot be encoded: " + safeSprint(x.Value)
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

// validationDetails is json.Marshal(v.PublicDetails()) without maps, pointers checked.
func validationDetails(v *domain.Validation) ([]byte, error) {
	type violation struct {
		Constraint string  `json:"constraint"`
		Field      string  `json:"field"`
		Pointer    *string `json:"pointer,omitempty"`
		Reason     string  `json:"reason,omitempty"`
	}
	d := &struct { // one allocation for one or two violations, the usual refusal
		Violations []violation `json:"violations"`
		two        [2]violation
	}{}
	vs := d.two[:0]
	if len(v.Violations) > len(d.two) {
		vs = make([]violation, 0, len(v.Violations))
	}
	vs = vs[:len(v.Violations)]
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
	d.Violations = vs
	return json.Marshal(d)
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

// lastResort masks a failure whose handling ended abnormally, and logs it if not yet logged.
func (p *Pipeline) lastResort(ctx context.Context, h *handling, v any) *Failure {
	if h.ref == "" {
		h.ref = newRef()
	}
	f := h.failure(Envelope{Code: codes.InternalError, Category: codes.Server, Message: maskedText(h.call, h.ref)})
	f.Texts = RenderForModel(f.Envelope)
	if !h.logged {
		h.logged = true
		reason := "runtime.Goexit in a filter, an observer, the renderer or the log handler"
		if v != nil {
			reason = safeSprint(v)
		}
		rec := slog.NewRecord(time.Now(), slog.LevelError, logMessageOf(h.call), 0)
		rec.AddAttrs(targetAttr(h.call, p.redact), slog.String("code", string(f.Envelope.Code)), slog.String("ref", h.ref),
			slog.String("request_id", f.Envelope.RequestID), slog.String("error", fmt.Sprintf("%T", h.orig)),
			slog.String("pipeline_error", reason))
		_ = handle(ctx, p.lastHandler(), rec)
	}
	return f
}

func (p *Pipeline) lastHandler() slog.Handler {
	return cmp.Or[slog.Handler](p.fallback, slog.NewTextHandler(os.Stderr, nil))
}

func (p *Pipeline) renderSafely(h *handling, f *Failure, env Envelope) (texts []string) {
	if p.render == nil {
		f.textsBuf = [2]string{env.Message, modelBlock(env)}
		return f.textsBuf[:]
	}
	var out []string
	reason := "the Renderer returned no text blocks"
	if v := try(func() { out = p.render(env.clone()) }); v != nil {
		reason = "the Renderer panicked: " + p.text(v)
	}
	if len(out) == 0 { // nil after a panic
		h.attrs = append(h.attrs, slog.String("render_error", reason))
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
	} else if _, seen := p.unknown.LoadOrStore(codes.Code(bad), struct{}{}); seen {
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

func (p *Pipeline) warn(ctx context.Context, level slog.Level, msg string, attrs ...slog.Attr) {
	if handler := p.handler(); enabled(ctx, handler, level) {
		rec := slog.NewRecord(time.Now(), level, msg, 0)
		rec.AddAttrs(attrs...)
		if handle(ctx, handler, rec) != nil {
			_ = handle(ctx, p.lastHandler(), rec)
		}
	}
}

func (p *Pipeline) checkSetup(ctx context.Context, has func(string) bool, problemsOf func() []string) {
	if problemsOf != nil {
		for _, problem := range noPanic(problemsOf) {
			p.warn(ctx, slog.LevelError, "mcperr: misplaced middleware", slog.String("problem", problem))
		}
	}
	var missing []string
	for _, name := range slices.Concat(slices.Collect(maps.Keys(p.tools)), slices.Collect(maps.Keys(p.safe))) {
		if has != nil && !slices.Contains(missing, name) && !noPanic(func() bool { return has(name) }) {
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

func (p *Pipeline) log(ctx context.Context, h *handling, f *Failure, server bool) {
	level := slog.LevelInfo
	switch {
	case server && h.retry == 0:
		level = slog.LevelError
	case server || h.handBuilt: // a tool called again may still succeed
		level = slog.LevelWarn
	}
	if handler := p.handler(); enabled(ctx, handler, level) {
		var buf [16]slog.Attr
		rec := slog.NewRecord(time.Now(), level, logMessageOf(h.call), 0)
		rec.AddAttrs(p.attrs(buf[:0], h, f)...)
		if err := handle(ctx, handler, rec); err != nil {
			rec.AddAttrs(slog.String("log_handler_error", bound(err.Error(), maxLogValue)))
			_ = handle(ctx, p.lastHandler(), rec) // nothing is left to try
		}
	}
	h.logged = true // only now: a handler's runtime.Goexit leaves it unset, for the last resort
}

// handler returns the logger's handler, or slog.Default's as it is now.
func (p *Pipeline) handler() slog.Handler { return cmp.Or(p.logger, slog.Default()).Handler() }

// enabled asks handler whether it logs level; a handler that panics is
// taken to log everything, so that the record reaches the last resort.
func enabled(ctx context.Context, handler slog.Handler, level slog.Level) (ok bool) {
	return try(func() { ok = handler.Enabled(ctx, level) }) != nil || ok
}

func handle(ctx context.Context, handler slog.Handler, rec slog.Record) (err error) {
	if v := try(func() { err = handler.Handle(ctx, rec) }); v != nil {
		return fmt.Errorf("the log handler %T panicked: %s", handler, safeSprint(v.Value))
	}
	if err != nil {
		return fmt.Errorf("the log handler %T failed: %w", handler, err)
	}
	return nil
}

// attrs appends to attrs (on the caller's stack) the record's attributes.
func (p *Pipeline) attrs(attrs []slog.Attr, h *handling, f *Failure) []slog.Attr {
	e := &f.Envelope
	add := func(ok bool, a slog.Attr) { // for attributes cheap to make
		if ok {
			attrs = append(attrs, a)
		}
	}
	attrs = append(attrs, targetAttr(h.call, p.redact), slog.String("code", string(e.Code)))
	add(e.Ref != "", slog.String("ref", e.Ref))
	add(e.RequestID != "", slog.String("request_id", e.RequestID))
	add(h.call.SessionID != "", slog.String("session_id", bound(h.call.SessionID, 256)))
	add(h.handBuilt, slog.Bool("hand_built", true))
	add(h.attempt > 1 || h.retry > 0 || h.wouldRetry, slog.Int("attempt", h.attempt))
	add(h.retry > 0, slog.Duration("retry_in", h.retry))
	add(h.wouldRetry, slog.Bool("would_retry", true))
	add(h.reportOnly, slog.Bool("report_only", true))
	add(h.reportOnly, slog.Bool("masked", h.masked))
	// The message the client reads anyway, kept beside a redacted error;
	// never a hand-built result's text, which is the error itself.
	shown := !h.handBuilt || h.masked
	add(h.reportOnly && (shown || !p.redact), slog.String("would_send", bound(e.Message, maxLogValue)))
	add(!h.reportOnly && p.redact && !h.masked && shown, slog.String("message", bound(e.Message, maxLogValue)))
	add(h.notRetried != "", slog.String("not_retried", h.notRetried))
	attrs = append(attrs, slog.Any("error", &f.logged))
	if p.redact { // what redaction leaves of the error's shape: its Go types
		attrs = append(attrs, slog.String("error_types", h.facts.typeNames()))
	}
	if h.transformed {
		attrs = append(attrs, slog.String("original_error", p.text(h.orig)))
	}
	if h.filterErr != nil {
		attrs = append(attrs, slog.String("filter_error", p.text(h.filterErr)))
	}
	if !p.redact {
		if v := h.logValuer(); v != nil {
			attrs = append(attrs, slog.Attr{Key: "fields", Value: logView(v)})
		}
	}
	if len(e.Hints) > 0 {
		attrs = append(attrs, slog.Any("hints", e.Hints))
	}
	if stack := p.stackOf(h); stack != "" {
		attrs = append(attrs, slog.String("stack", stack))
	}
	return append(attrs, h.attrs...)
}

func (p *Pipeline) text(err error) (s string) {
	if !p.redact {
		return safeText(err)
	}
	if try(func() { s = bound(string(redact.Sprint(err).Redact()), maxLogValue) }) != nil {
		return fmt.Sprintf("<%T: its text cannot be redacted: ‹×›>", err)
	}
	return s
}

// stackOf returns the stack of a panic, or the %+v of the chain's first
// fmt.Formatter, where cockroachdb/errors and pkg/errors keep theirs.
func (p *Pipeline) stackOf(h *handling) string {
	return noPanic(func() string {
		if ofErr := h.facts.panicked || h.facts.custom; ofErr || h.filterErr != nil {
			var pe *PanicError // allocated only here
			if (ofErr && errors.As(h.err, &pe) || h.filterErr != nil && errors.As(h.filterErr, &pe)) && pe.Stack != nil {
				return bound(string(pe.Stack), maxLogValue)
			}
		}
		switch e := h.facts.formatter; {
		case e == nil:
			return ""
		case p.redact:
			return bound(string(redact.Sprintf("%+v", e).Redact()), maxLogValue)
		default:
			return bound(fmt.Sprintf("%+v", e), maxLogValue)
		}
	})
}

func (h *handling) logValuer() slog.LogValuer {
	switch {
	case h.refused != nil:
		return validationView{h.refused}
	case !h.facts.custom:
		return h.facts.valuer
	}
	return noPanic(func() slog.LogValuer {
		var lv logValuerError
		if errors.As(h.err, &lv) {
			return lv
		}
		return nil
	})
}

// loggedError is a record's "error", for handlers that read one (such as
// OpenTelemetry's, Sentry's); under redaction it unwraps to nothing.
type loggedError struct {
	text string
	err  error
}

func (e *loggedError) Error() string { return e.text }
func (e *loggedError) Unwrap() error { return e.err }
