package filter

import (
	"bytes"
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

	reportOnly bool      // WithReportOnly
	handBuilt  HandBuilt // WithHandBuilt
	checkArgs  bool      // WithArgumentCheck

	fallback slog.Handler // the last resort when the logger fails

	// unknown holds the unregistered codes already warned about, at most
	// maxUnknownWarnings of them.
	unknown  sync.Map
	nUnknown atomic.Int32
}

// maxUnknownWarnings bounds the unregistered codes a Pipeline remembers, so
// that codes made from data cannot grow it without end.
const maxUnknownWarnings = 1024

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
// The filters run in one order: filters (those given to the tool, resource
// or prompt where it was registered), then the global filters, then the
// built-in mapping; in each list the first is outermost. The first filter
// that answers decides. A request whose own context has ended is answered
// before any filter runs (see the mapping below), so that no filter needs
// to check ctx.Err(). A filter that panics, or answers with an empty
// message, is recovered and the request reported as an internal error.
//
// The built-in mapping:
//
//   - a public error (a ToolError, a domain error): its code, message,
//     details and retry advice, and a ToolError's hint;
//   - the request's own context cancelled or past its deadline, decided
//     before any filter runs, whatever the error but a panic or a public
//     error: CANCELLED (retryable, no ref) or TIMEOUT (a server error,
//     retryable, its text ending with its ref), as ctx.Err() says. A
//     cancellation or deadline of another context, such as a
//     sub-operation's while the request is alive, is an internal error
//     like any other;
//   - an error of a call whose arguments do not fit the tool's input schema,
//     as the adapter says: VALIDATION_ERROR naming the fields, never their
//     values; the record keeps the error;
//   - anything else, a panic, a filter that fails: INTERNAL_ERROR and the
//     text `Internal error in tool "x" (ref: R).`, nothing else of the
//     error, no hint. R names exactly one log record, at error level, with
//     the full error chain and the stack.
//
// Codes are checked on the way out: a code the registry does not know,
// whatever produced it, is sent as BUSINESS_RULE_VIOLATION for a business
// rule and TOOL_ERROR otherwise, with one WARN record the first time. A
// ref is always the pipeline's.
//
// Handle is total: whatever err, a filter, an observer, the renderer or the
// log handler does (panic, return a typed nil, build a cyclic or enormous
// chain), it returns one Failure and writes one record, to standard error
// if the logger fails. Everything runs on the calling goroutine; a panic is
// recovered there with defer. The message and each text block are at most
// 16 KiB, the details at most 16 KiB of JSON, each logged value at most
// 8 KiB, and an error chain is walked to at most 256 errors.
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
	h := &handling{call: call, reportOnly: reportOnly, handBuilt: handBuilt, arguments: in.Arguments}
	h.setErr(err)
	// A chain that cannot be walked safely is set aside whole: nothing, not
	// the log, not an observer, asks it for its text again.
	h.orig = h.err
	done := false
	defer func() {
		if !done {
			// Only a runtime.Goexit in a filter, observer, renderer or log
			// handler gets here: everything else is recovered where it runs.
			// The goroutine ends; the record is written here, once, and the
			// adapter's layers of the same call are told not to write another.
			if c := callctx.From(ctx); c != nil {
				c.Exited = true
			}
			f = p.lastResort(ctx, h, recover())
		}
	}()
	var r Response
	switch {
	case handBuilt && policy == MaskHandBuilt:
		r = p.internal(h)
	case handBuilt:
		// Filters see errors, not results: the result is the handler's own
		// answer, passed on as it is.
		r = Response{Code: codes.ToolFailed, Message: hb.Text}
	default:
		var ok bool
		if r, ok = p.ended(ctx, h); !ok {
			if r, ok = p.runFilters(ctx, h, filters); !ok {
				r = p.mapSafely(ctx, h)
			}
		}
	}
	f = p.finish(ctx, h, &r)
	done = true
	return f
}

func init() {
	callctx.Modes = func(pipeline any, tool callctx.Settings) (checkArguments, reportOnly bool) {
		p, _ := pipeline.(*Pipeline)
		if p == nil {
			return false, false
		}
		checkArguments = p.checkArgs
		if tool.ArgumentCheck != 0 {
			checkArguments = tool.ArgumentCheck == 2
		}
		reportOnly, _ = p.settings(tool)
		return checkArguments, reportOnly
	}
}

// settings returns the mode and hand-built policy of a failure of a tool
// with settings tool: the pipeline's, or the tool's own where it has them.
func (p *Pipeline) settings(tool callctx.Settings) (reportOnly bool, policy HandBuilt) {
	reportOnly, policy = p.reportOnly, p.handBuilt
	switch tool.ReportOnly {
	case 1:
		reportOnly = false
	case 2:
		reportOnly = true
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
	filterErr   error              // a filter that panicked or answered badly
	public      error              // the public error the built-in mapping answered with
	refused     *domain.Validation // how the arguments did not fit, when that decided
	arguments   func() error       // the adapter's check of the arguments, or nil
	masked      bool
	reportOnly  bool // nothing of the Failure is sent: it is reported
	handBuilt   bool // the error stands for a result the handler built
	ownText     bool // the message is the pipeline's own, not the application's
	ref         string
	logged      bool        // the record was written
	attrs       []slog.Attr // extra attributes for the log record
	errText     string      // the text of err as the record holds it
	loggedErr   loggedError // the record\'s error value
}

// setErr makes err the error being handled, with what one walk of its
// chain finds; a chain that cannot be walked safely is replaced by an
// opaque error.
func (h *handling) setErr(err error) {
	f, reason := scan(err)
	if reason != "" {
		err = &opaqueError{text: reflect.TypeOf(err).String() + " (not walked: " + reason + ")"}
		f = chainFacts{}
		f.note(err)
	}
	h.err, h.facts = err, f
}

func (p *Pipeline) runFilters(ctx context.Context, h *handling, own []Filter) (Response, bool) {
	for _, fs := range [2][]Filter{own, p.global} {
		for _, f := range fs {
			if f == nil {
				continue
			}
			resp, next, ferr := catch(ctx, f, h.call, h.err)
			if ferr != nil {
				h.filterErr = ferr
				return Response{}, false
			}
			if resp != nil {
				if resp.Message == "" {
					h.filterErr = fmt.Errorf("filter %T answered with an empty message", f)
					return Response{}, false
				}
				return *resp, true // a copy: the filter's own value stays as it was
			}
			if next != nil {
				h.setErr(next)
				h.transformed = true
			}
		}
	}
	return Response{}, false
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

// mapSafely runs the built-in mapping, masking the error if a method of
// the error (ErrorCode, PublicMessage, an As or Is method...) panics.
func (p *Pipeline) mapSafely(ctx context.Context, h *handling) (r Response) {
	defer func() {
		if v := recover(); v != nil {
			h.attrs = append(h.attrs, slog.String("mapping_error", "a method of the error panicked: "+safeSprint(v)))
			h.public = nil
			r = p.internal(h)
		}
	}()
	return p.mapError(ctx, h)
}

// mapError is the built-in mapping, run when no filter handled the error.
func (p *Pipeline) mapError(ctx context.Context, h *handling) Response {
	if h.filterErr != nil {
		return p.internal(h)
	}
	f := h.facts
	if f.custom {
		f = slowFacts(h.err)
	}
	if f.panicked {
		return p.internal(h)
	}
	if pub := f.public; pub != nil {
		if nilness.IsNil(pub) {
			// A nil pointer whose methods happen not to read it (an
			// Authorization's code and message are fixed) says nothing the
			// server meant: masked, as a chain that cannot be read.
			h.attrs = append(h.attrs, slog.String("mapping_error", fmt.Sprintf("the public error is a nil %T", pub)))
			return p.internal(h)
		}
		r := Response{Code: pub.ErrorCode(), Message: pub.PublicMessage()}
		if d, ok := pub.(interface{ PublicDetails() map[string]any }); ok {
			r.Details = d.PublicDetails()
		}
		if retry, known, after := toolerr.RetryAdvice(pub); known {
			r.Retryable = &retry
			r.RetryAfter = after
		}
		if hinter, ok := pub.(interface{ ErrorHint() string }); ok {
			if hint := hinter.ErrorHint(); hint != "" {
				r.Hints = []string{hint}
			}
		}
		if r.Message == "" {
			return p.internal(h)
		}
		h.public = pub
		return r
	}
	if v := refused(h.arguments); v != nil {
		// The call failed and its arguments do not fit the tool's schema:
		// the client's failure, which it can correct. The record keeps the
		// error the call failed with.
		h.public, h.refused = v, v
		return Response{Code: v.ErrorCode(), Message: v.PublicMessage(), Details: v.PublicDetails()}
	}
	return p.internal(h)
}

// ended answers the failure of a request whose own context is done, before
// any filter runs, so that no filter, a pack's or the application's, needs
// to ask: CANCELLED or TIMEOUT, as ctx.Err() says, whatever the error (a
// driver's, a sentinel) says of the moment the request ended. A panic and
// a public error, whose words are deliberate, are answered as ever; so is
// any failure while the request is alive, a sub-operation's cancelled
// context included.
func (p *Pipeline) ended(ctx context.Context, h *handling) (r Response, ok bool) {
	done := requestErr(ctx)
	if done != context.Canceled && done != context.DeadlineExceeded {
		return Response{}, false
	}
	defer func() {
		if recover() != nil {
			r, ok = Response{}, false // an As or Is method that panics: the mapping masks it
		}
	}()
	f := h.facts
	if f.custom {
		f = slowFacts(h.err)
	}
	if f.panicked || f.public != nil {
		return Response{}, false
	}
	h.ownText = true
	if done == context.Canceled {
		return Response{Code: codes.Cancelled, Message: cancelledText(h.call)}, true
	}
	return Response{Code: codes.Timeout, Message: timeoutText(h.call)}, true
}

// requestErr returns the error of the request's own context, which is
// done; nil while the request is alive, or if asking panics.
func requestErr(ctx context.Context) (err error) {
	defer func() {
		if recover() != nil {
			err = nil
		}
	}()
	return ctx.Err()
}

// refused asks check, the adapter's check of the call's arguments, how
// they do not fit the tool's input schema; nil if they fit, cannot be
// checked, or the check panics.
func refused(check func() error) (v *domain.Validation) {
	if check == nil {
		return nil
	}
	defer func() {
		if recover() != nil {
			v = nil
		}
	}()
	v, _ = check().(*domain.Validation)
	return v
}

// internal returns the masked response of an internal error.
func (p *Pipeline) internal(h *handling) Response {
	h.masked = true
	return Response{Code: codes.InternalError}
}

// finish completes r into the Failure sent, tells the observers, and logs.
func (p *Pipeline) finish(ctx context.Context, h *handling, r *Response) *Failure {
	if r.Code == "" {
		r.Code = codes.InternalError
	}
	info, known := p.registry.Lookup(r.Code)
	if !known {
		info = p.unregistered(ctx, h, r)
	}
	var details []byte
	if r.Details != nil && !h.masked {
		b, reason := encodeDetails(r.Details)
		// The pipeline's own refusal of the arguments has the form by
		// construction; any other VALIDATION_ERROR's details are checked.
		if reason == "" && b != nil && r.Code == codes.ValidationError && h.refused == nil && !validViolations(b) {
			b, reason = nil, "the details of a VALIDATION_ERROR hold violations that do not fit the envelope's schema: each needs a string field and constraint, and a pointer that is a JSON Pointer"
		}
		if reason != "" {
			h.attrs = append(h.attrs, slog.String("details_error", p.text(errors.New(reason))))
		}
		details = b
	}
	server := h.masked || info.Category == codes.Server
	if server || h.handBuilt {
		h.ref = p.ref()
	}
	retryable := info.Retryable
	after := r.RetryAfter
	if r.Retryable != nil && !h.masked {
		retryable = *r.Retryable
	}
	switch {
	case !retryable || after < 0 || h.masked:
		after = 0
	case after == 0:
		after = info.RetryAfter
	}
	after = min(after, maxRetryAfter)
	msg := r.Message
	var hints []string
	switch {
	case h.masked:
		msg = maskedText(h.call, h.ref)
	default:
		if h.ownText && h.ref != "" {
			// The pipeline's own texts end with the ref, as the masked one does.
			msg = strings.TrimSuffix(msg, ".") + " (ref: " + h.ref + ")."
		}
		for _, x := range r.Hints {
			hints = appendHint(hints, x)
		}
	}
	env := Envelope{
		Version:   envelopeVersion,
		Error:     true,
		Code:      r.Code,
		Category:  info.Category,
		Message:   boundMessage(msg, maxMessage),
		Details:   details,
		Hints:     hints,
		Retryable: retryable,
		DocURL:    info.DocURL,
		Timestamp: time.Now().UTC().Format(time.RFC3339Nano),
		RequestID: boundMessage(h.call.RequestID, maxRequestID),
		Ref:       h.ref,
	}
	if after > 0 {
		// Whole milliseconds, rounded up, so a delay is never shortened.
		env.RetryAfterSeconds = float64((after+time.Millisecond-1)/time.Millisecond) / 1000
	}
	f := &Failure{Call: h.call, Envelope: env, Err: h.orig, ReportOnly: h.reportOnly, HandBuilt: h.handBuilt}
	if h.filterErr != nil {
		f.Err = errors.Join(h.orig, h.filterErr)
	}
	if !h.call.isTool() {
		f.JSONRPCCode = rpcCode(h.call, env)
		if h.call.Method == methodReadResource && env.Code == codes.NotFound {
			f.Envelope.URI = h.call.Resource
		}
	}
	f.Texts = p.renderSafely(h, f, f.Envelope)
	h.errText = p.text(h.err)
	f.ErrorText = h.errText
	if len(p.observers) > 0 {
		p.observe(ctx, h, f)
	}
	p.log(ctx, h, f.Envelope, server)
	return f
}

// validViolations reports whether the violations in details, a JSON
// object, have the form the envelope's schema gives a VALIDATION_ERROR's:
// an array of objects with a string field and constraint, and optionally a
// string reason and a JSON Pointer. Details without violations fit.
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
	if json.Unmarshal(raw, &vs) != nil || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
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

// maxRequestID bounds the request id sent and logged.
const maxRequestID = 256

// encodeDetails returns details as JSON, or why they cannot be sent: the
// details are encoded once, and these bytes are what is sent.
func encodeDetails(details map[string]any) (b []byte, reason string) {
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
	}
	return b, ""
}

// lastResort answers for a request whose handling ended abnormally in the
// pipeline itself: a masked internal error with a ref, logged to the
// last-resort handler unless it was logged already.
func (p *Pipeline) lastResort(ctx context.Context, h *handling, v any) *Failure {
	if h.ref == "" {
		h.ref = newRef()
	}
	env := Envelope{Version: envelopeVersion, Error: true, Code: codes.InternalError, Category: codes.Server,
		Message: boundMessage(maskedText(h.call, h.ref), maxMessage), Timestamp: time.Now().UTC().Format(time.RFC3339Nano),
		RequestID: boundMessage(h.call.RequestID, maxRequestID), Ref: h.ref}
	f := &Failure{Call: h.call, Envelope: env, Texts: []string{env.Message, modelBlock(env)}, Err: h.orig,
		ReportOnly: h.reportOnly, HandBuilt: h.handBuilt}
	if !h.call.isTool() {
		f.JSONRPCCode = codeInternalError
	}
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

// renderSafely renders env with the pipeline's Renderer. One that panics
// or returns no blocks is replaced by RenderForModel, and the failure
// noted in the log record; the blocks are bounded.
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

// ref returns a new ref: the custom generator's, if it makes a valid one.
func (p *Pipeline) ref() (ref string) {
	defer func() {
		if recover() != nil {
			ref = newRef()
		}
	}()
	if ref = p.newRef(); !validRef(ref) {
		ref = newRef()
	}
	return ref
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
	h.attrs = append(h.attrs, slog.String("unregistered_code", bound(string(bad), 256)))
	target := h.call.target()
	if p.redact && target == h.call.Resource && target != "" {
		target = uriview.Safe(target, false)
	}
	p.warnUnknown(ctx, bad, fallback, target)
	info, _ := p.registry.Lookup(fallback)
	return info
}

// warnUnknown writes the one WARN record of an unregistered code.
func (p *Pipeline) warnUnknown(ctx context.Context, bad, fallback codes.Code, target string) {
	if p.nUnknown.Load() >= maxUnknownWarnings {
		return
	}
	if _, seen := p.unknown.LoadOrStore(codes.Code(bound(string(bad), 256)), struct{}{}); seen {
		return
	}
	p.nUnknown.Add(1)
	reason := "the registry does not know it; register it with codes.NewRegistry and pass the registry to filter.WithRegistry"
	p.warn(ctx, "mcperr: unregistered error code",
		slog.String("unregistered_code", bound(string(bad), 256)), slog.String("sent_as", string(fallback)),
		slog.String("target", bound(target, 256)), slog.String("reason", reason))
}
