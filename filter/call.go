package filter

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/internal/toolname"
	"github.com/mcperr/mcperr/internal/uriview"
)

const (
	methodCallTool     = "tools/call"
	methodReadResource = "resources/read"
	methodGetPrompt    = "prompts/get"
	methodComplete     = "completion/complete"
)

// Call identifies the request an error came from, as adapters fill it.
type Call struct {
	// Method is the MCP method: "tools/call" (or ""), "resources/read",
	// "prompts/get" or "completion/complete".
	Method string
	// Tool is the name of the tool called, for a tools/call.
	Tool string
	// Resource is the URI read, or for a completion the URI (template) whose argument is completed.
	Resource string
	// Prompt is the prompt's name, for a prompts/get or a completion of its argument.
	Prompt string
	// RequestID is the request's id; if empty, the pipeline fills it (RequestIDFromContext).
	RequestID string
	// SessionID is the MCP session id; empty if there is none, as over stdio.
	SessionID string
	// ProtocolVersion is the MCP protocol version negotiated, or empty; see Failure.JSONRPCCode.
	ProtocolVersion string
}

func (c Call) isTool() bool { return c.Method == "" || c.Method == methodCallTool }

func (c Call) subject() (noun, target string) {
	switch {
	case c.Method == methodReadResource:
		return "resource", c.Resource
	case c.Method == methodGetPrompt:
		return "prompt", c.Prompt
	case c.Method != methodComplete:
		return "tool", c.Tool
	case c.Prompt != "":
		return "completion for prompt", c.Prompt
	case c.Resource != "":
		return "completion for resource", c.Resource
	}
	return "completion", ""
}

// Failure is one failure the pipeline handled: what the client receives
// and what the server knows. Every Observer receives a copy of it.
type Failure struct {
	// Call identifies the request, its request id included.
	Call Call
	// Texts are the text blocks the model reads, as the Renderer makes them.
	Texts []string
	// Envelope is the machine-readable form, for programs.
	Envelope Envelope
	// JSONRPCCode is the code of the JSON-RPC error answering a failure of a
	// method but tools/call (for which it is zero): -32603 for a server error,
	// -32002 for a resource not found on protocol 2025-11-25 and earlier,
	// else -32602. An SDK may send another: mcp-go sends -32603 for all.
	JSONRPCCode int64
	// Err is the error handled, as the handler returned it or a *PanicError,
	// joined (errors.Join) with the failure of a filter that panicked or
	// answered badly; for a chain not safely walkable, an opaque error naming
	// its type. Never send it to a client; under WithRedaction, show only ErrorText.
	Err error
	// ErrorText is the error's text as logged: bounded, redacted under WithRedaction.
	ErrorText string
	// ReportOnly is set in report-only mode (see WithReportOnly): Texts and
	// Envelope are what mcperr would have sent.
	ReportOnly bool
	// HandBuilt is set for an error result the handler built itself, whose
	// text Err holds; see WithHandBuilt for what the client received.
	HandBuilt bool
	// Retry, when more than zero, is how long the adapter waits before it
	// calls the tool again (WithRetries): this failure is not sent.
	Retry time.Duration

	textsBuf [2]string   // holds Texts for the default renderer
	logged   loggedError // the error its record holds
}

// view returns a copy of f that shares nothing mutable with it.
func (f *Failure) view() Failure {
	v := *f
	v.Texts, v.Envelope = append([]string(nil), f.Texts...), f.Envelope.clone()
	return v
}

// JSON-RPC error codes of failures but tools/call's (MCP specification, basic/index "Error Codes").
const (
	codeInvalidParams    int64 = -32602 // a request the client can correct, or the application refused
	codeInternalError    int64 = -32603 // a masked error, or any code of the server category
	codeResourceNotFound int64 = -32002 // NOT_FOUND of a resource, protocol 2025-11-25 and earlier
)

// rpcCode returns Failure.JSONRPCCode. Protocol revisions are dates, which
// compare as strings: 2026-07-28 is the first that forbids -32002.
func rpcCode(call Call, e Envelope) int64 {
	if e.Category == codes.Server || e.Ref != "" {
		return codeInternalError
	}
	if e.Code == codes.NotFound && call.Method == methodReadResource && call.ProtocolVersion != "" && call.ProtocolVersion < "2026-07-28" {
		return codeResourceNotFound
	}
	return codeInvalidParams
}

// newRef returns 16 hex digits, 64 random bits: short to read and unique in practice.
func newRef() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never returns an error.
	return hex.EncodeToString(b[:])
}

func validRef(ref string) bool { return len(ref) <= 64 && toolname.Check(ref) == nil }

func maskedText(call Call, ref string) string {
	noun, target := call.subject()
	if noun == "completion" {
		return "Internal error in completion (ref: " + ref + ")."
	}
	target = boundMessage(target, maxTarget)
	if !strings.ContainsFunc(target, toolname.Disallowed) {
		return "Internal error in " + noun + ` "` + target + `" (ref: ` + ref + ")." // what strconv.Quote gives, in one allocation
	}
	return "Internal error in " + noun + " " + strconv.Quote(target) + " (ref: " + ref + ")."
}

func logMessageOf(call Call) string {
	switch call.Method {
	case methodReadResource:
		return "resource read failed"
	case methodGetPrompt:
		return "prompt get failed"
	case methodComplete:
		return "completion failed"
	}
	return "tool call failed"
}

// targetAttr names what failed (a completion's is a group); redacted, a URI loses its secrets.
func targetAttr(call Call, redact bool) slog.Attr {
	noun, target := call.subject()
	target = bound(target, 256)
	if redact && target != "" && (noun == "resource" || noun == "completion for resource") {
		target = uriview.Safe(target, false)
	}
	switch noun {
	case "completion for prompt":
		return slog.Group("completion", slog.String("prompt", target))
	case "completion for resource", "completion":
		return slog.Group("completion", slog.String("resource", target))
	}
	return slog.String(noun, target)
}

// RequestIDFromContext returns the id of the request ctx serves, which its
// failures' envelopes and records carry: its Call's, or a UUID of version 7
// minted when first asked for; "" for a context Serve did not prepare.
func RequestIDFromContext(ctx context.Context) string {
	if c := callOf(ctx); c != nil {
		return c.requestID()
	}
	return ""
}

type callKey struct{}

// callContext is the context Serve gives a handler, in one allocation: the call, its id minted on first use.
type callContext struct {
	context.Context
	call Call
	once sync.Once
}

func (c *callContext) Value(k any) any {
	if _, ok := k.(callKey); ok {
		return c
	}
	return c.Context.Value(k)
}

func (c *callContext) requestID() string {
	c.once.Do(func() {
		if c.call.RequestID == "" {
			c.call.RequestID = newID()
		}
	})
	return c.call.RequestID
}

func callOf(ctx context.Context) *callContext {
	if ctx == nil {
		return nil
	}
	c, _ := ctx.Value(callKey{}).(*callContext)
	return c
}

func (p *Pipeline) enter(ctx context.Context, call Call) *callContext {
	return &callContext{Context: cmp.Or[context.Context](ctx, context.Background()), call: call}
}

func newID() string {
	if id, err := uuid.NewV7(); err == nil {
		return id.String()
	}
	return newRef() + newRef() // crypto/rand does not fail; keep the request answerable anyway
}

// LogHandler returns a slog.Handler that adds to every record logged with
// the context of a request mcperr serves (under the adapter's Install) what
// the pipeline's records say of it, so that a handler's own lines join the
// failure's: request_id, the tool, resource, prompt or completion (under
// that key), and session_id if any, inside any group of next. Other records,
// and those with a request_id already, pass to next as they are. It panics
// with a *codes.DefinitionError if next is nil.
func LogHandler(next slog.Handler) slog.Handler {
	if isNil(next) {
		panic(&codes.DefinitionError{Mistake: codes.NilValue,
			Reason: "filter.LogHandler needs the slog.Handler that writes the records, such as slog.NewJSONHandler(os.Stderr, nil)"})
	}
	return logHandler{next}
}

// logHandler is the slog.Handler of LogHandler: Enabled is next's.
type logHandler struct{ slog.Handler }

func (h logHandler) Handle(ctx context.Context, r slog.Record) error {
	c := callOf(ctx)
	if c == nil || hasRequestID(r) {
		return h.Handler.Handle(ctx, r)
	}
	r = r.Clone()
	r.AddAttrs(slog.String("request_id", c.requestID()))
	if noun, target := c.call.subject(); target != "" || noun != "completion" {
		r.AddAttrs(slog.String(strings.Fields(noun)[0], bound(target, 256)))
	}
	if c.call.SessionID != "" {
		r.AddAttrs(slog.String("session_id", bound(c.call.SessionID, 256)))
	}
	return h.Handler.Handle(ctx, r)
}

func (h logHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return logHandler{h.Handler.WithAttrs(attrs)}
}

func (h logHandler) WithGroup(name string) slog.Handler { return logHandler{h.Handler.WithGroup(name)} }

func hasRequestID(r slog.Record) (found bool) {
	r.Attrs(func(a slog.Attr) bool {
		found = a.Key == "request_id"
		return !found
	})
	return found
}

// Handler is a request's handler as an adapter hands it to Serve: how to run
// it once, and what the adapter knows of the tool. R is what it returns
// besides its error, such as a tool result. Serve keeps none of its
// functions, so closures given here need not leave the caller's stack.
type Handler[R any] struct {
	// Run runs the handler once, with the context Serve gives it. A failure
	// that the SDK turned into a result (a typed handler's error, a helper's
	// error result) comes back as the error it stands for.
	Run func(ctx context.Context) (R, error)
	// HandBuilt, if set, reports whether a result Run returned is an error
	// result the handler built itself, and its text, for WithHandBuilt.
	HandBuilt func(res R) (text string, ok bool)
	// Passes, if set, reports whether an error Run returned is a deliberate
	// protocol error, which the SDK sends as it is and Serve passes on.
	Passes func(err error) bool
	// Arguments, if set, returns how the call's arguments do not fit the
	// tool's input schema or could not be read (as err, the failure Run
	// returned, may say), or nil. Serve asks it with a nil err before the
	// handler runs under WithArgumentCheck, and after a failure it would mask.
	Arguments func(err error) *domain.Validation
	// Repeatable, if set, reports whether the tool is annotated read-only
	// or idempotent. Serve asks it only when that decides.
	Repeatable func() bool
	// Fresh, if set, is called when the pipeline retries (WithRetries): with
	// first set before the first attempt, to keep the client's request, then
	// before each later one, to give the handler that request again, without
	// its progress token, so that the client's progress never goes back.
	Fresh func(first bool)
	// Tools, if set, reports whether the server has a tool of a name, and
	// Problems returns the mistakes the adapter found in how mcperr is put
	// on the server. Set for a server's first tool call, Serve then logs
	// each problem, and the tools of ForTool or WithRetries the server lacks.
	Tools    func(name string) bool
	Problems func() []string
	// Detached is set for a request that outlives the one that started it,
	// such as a task: the end of its context is not taken for its own.
	Detached bool
}

// Serve runs the request call through p with the handler h and opts (the
// tool's own options, over those of ForTool and the server's): the argument
// check, the handler, again after a transient failure (WithRetries), and the
// answer to its failure, a panic included, mapped and logged once. It
// returns what Run returned, and a nil Failure where the adapter sends that
// as it came (a success, a protocol error, a hand-built result the policy
// passes, any failure in report-only mode), else the Failure to answer in
// the SDK's shape. A panic in report-only mode is panicked again.
func Serve[R any](ctx context.Context, p *Pipeline, call Call, opts []ToolOption, h Handler[R]) (res R, f *Failure, err error) {
	c := p.enter(ctx, call)
	in := input{call: call, tool: p.toolFor(call.Tool, opts), attempt: 1}
	ask := asks{arguments: h.Arguments, repeatable: h.Repeatable, detached: h.Detached}
	if h.Tools != nil || h.Problems != nil {
		p.checkSetup(c, h.Tools, h.Problems)
	}
	var refused *domain.Validation // the arguments, checked before the handler
	if call.isTool() && h.Arguments != nil && p.checks(in.tool) {
		if refused = noPanic(func() *domain.Validation { return h.Arguments(nil) }); refused != nil && !p.reportOnly(in.tool) {
			in.err = refused
			return res, p.handle(c, &in, &ask), nil
		}
	}
	fresh := h.Fresh != nil && p.retries > 0 && call.isTool() // keeps what a later attempt needs
	if fresh {
		h.Fresh(true) // the adapter's copy of values it holds: it does not panic
	}
	running := false
	defer func() {
		if !running {
			return
		}
		v := recover() // nil: the handler called runtime.Goexit, and the goroutine ends
		in.err = &PanicError{Value: cmp.Or[any](v, "the handler called runtime.Goexit"), Stack: debug.Stack()}
		var zero R
		if res, f, err = zero, p.handle(c, &in, &ask), nil; f.ReportOnly && v != nil {
			panic(v)
		}
	}()
	for {
		start := time.Now()
		running = true // a result HandBuilt cannot read fails as the handler's panic
		res, err = h.Run(c)
		text, ok := "", false
		if err == nil && h.HandBuilt != nil {
			text, ok = h.HandBuilt(res)
		}
		running = false
		in.took = time.Since(start)
		switch {
		case err != nil && h.Passes != nil && noPanic(func() bool { return h.Passes(err) }):
			return res, nil, err
		case err != nil:
			in.err = err
		case !ok:
			p.succeeded()
			if refused != nil { // report-only: the refusal mcperr would have sent
				in.err, in.check = refused, true
				p.handle(c, &in, &ask)
			}
			return res, nil, nil
		default:
			in.err, in.text = nil, text
		}
		if f = p.handle(c, &in, &ask); f == nil || f.ReportOnly || in.err == nil && p.policy(in.tool) != MaskHandBuilt {
			return res, nil, err // a hand-built result is replaced only when the policy masks it
		}
		if !wait(c, f.Retry) {
			return res, f, err
		}
		in.attempt, in.ref = in.attempt+1, f.Envelope.Ref
		if fresh {
			h.Fresh(false)
		}
	}
}

func wait(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return false
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

type input struct {
	call    Call
	err     error  // nil for a hand-built result, whose text is text
	text    string // the text of a hand-built result
	tool    toolConfig
	attempt int           // which call of the tool in the request, from 1
	took    time.Duration // how long the attempt ran
	ref     string        // the ref of the earlier attempts' records
	check   bool          // err is the argument check's refusal of a call the handler served
}

// asks are what only the adapter knows, kept apart so that they never leave the stack.
type asks struct {
	arguments  func(err error) *domain.Validation
	repeatable func() bool
	detached   bool
}

func (p *Pipeline) toolFor(name string, own []ToolOption) toolConfig {
	t := p.tools[name]
	for _, o := range own {
		if !isNil(o) {
			t = o.tool(t)
		}
	}
	return t
}

func (p *Pipeline) checks(t toolConfig) bool { return cmp.Or(t.check, p.server.check) == 2 }

func (p *Pipeline) reportOnly(t toolConfig) bool {
	return cmp.Or(t.reportOnly, p.server.reportOnly) == 2
}

func (p *Pipeline) policy(t toolConfig) HandBuilt {
	return HandBuilt(max(cmp.Or(t.handBuilt, p.server.handBuilt)-1, 0))
}
