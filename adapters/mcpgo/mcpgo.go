package mcpgo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
	"weak"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/bind"
	"github.com/mcperr/mcperr/internal/envelope"
	"github.com/mcperr/mcperr/internal/inputschema"
)

// servers lets AddTool refuse a server where Install was not called.
var servers bind.Table[server.MCPServer, serverState]

type serverState struct {
	p       *filter.Pipeline
	self    weak.Pointer[server.MCPServer] // servers may share the hooks
	started atomic.Bool                    // the first tool call was served
	added   sync.Map                       // name -> []filter.ToolOption, of AddTool
	tasks   sync.Map                       // name -> *server.ServerTool, a task tool of AddTool
	adding  sync.Mutex                     // AddTool's duplicate check and registration
	schemas inputschema.Cache
	byTool  sync.Map // name -> *toolSchema
	// unchecked: a handler ran with arguments the SDK's validator refuses, so
	// this server's SDK does not check them (no WithInputSchemaValidation).
	unchecked atomic.Bool
}

// Install makes p the mcperr configuration of s, with the middleware that
// runs every tool call, resources/read and prompts/get of s through
// filter.Serve. Call it once per server, at start-up, after the SDK's own
// middleware options (server.WithLogger, server.WithRecovery, ...) and your
// own tool middleware (s.Use), and before AddTool: mcp-go runs the
// middleware added first outermost, so Install's, added last, turns errors
// into results before any other sees them, so that no log line holds the raw
// error text, and recovers a panic itself, with its stack. A middleware
// added after Install, between mcperr and the handlers, is named in one
// ERROR record at the server's first tool call.
//
// A failed tool call is answered with an isError tool result: the text
// blocks the pipeline rendered and its envelope under _meta[filter.MetaKey],
// which EnvelopeOf reads back, and no structured content; a task tool is
// covered only if added with AddTaskTool, as mcp-go gives it no middleware.
// Arguments that do not fit the tool's input schema are answered
// VALIDATION_ERROR (filter.WithArgumentCheck), when the handler fails or,
// with that option, before it runs. The SDK's own refusal of arguments
// (server.WithInputSchemaValidation), made before any middleware with the
// validator's text, is answered the same way, by an after-call hook. The
// error results of mcp-go's typed helpers (mcp.NewTypedToolHandler,
// mcp.NewStructuredToolHandler) are handled as the errors they stand for,
// found by the handler the tool was registered with: arguments they could
// not bind are a VALIDATION_ERROR, a handler's error is masked (Structured
// keeps a ToolError's words).
//
// A failed resources/read or prompts/get is answered -32603 with the
// pipeline's message and no data: mcp-go offers no way to choose either, so
// the envelope is in the log only. Every successful result, a call to an
// unknown tool and a mcp.URLElicitationRequiredError returned as it is pass
// through untouched; so, by default (see filter.WithHandBuilt), does an
// error result the handler built itself, such as mcp.NewToolResultError's.
//
// Install returns a *codes.DefinitionError if s or p is nil, or if s has
// mcperr with another pipeline (codes.ConflictingConfiguration); installing
// the same pipeline twice does nothing.
func Install(s *server.MCPServer, p *filter.Pipeline) error {
	if s == nil {
		return &codes.DefinitionError{Mistake: codes.NilValue, Reason: "Install needs the *server.MCPServer to install mcperr on"}
	}
	if p == nil {
		return bind.NilPipeline
	}
	st := &serverState{p: p, self: weak.Make(s)}
	if old, loaded := servers.LoadOrStore(s, st); loaded {
		if old.p == p {
			return nil
		}
		return bind.Conflict("mcpgo")
	}
	s.Use(st.middleware)
	hooks := s.GetHooks()
	if hooks == nil {
		hooks = &server.Hooks{}
		server.WithHooks(hooks)(s)
	}
	hooks.AddAfterCallTool(st.afterCallTool)
	server.WithResourceHandlerMiddleware(func(next server.ResourceHandlerFunc) server.ResourceHandlerFunc {
		return func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return serveRPC(ctx, p, rpcCallOf(ctx, "resources/read", req.Params.URI, ""), nil, // resources and templates alike
				func(ctx context.Context) ([]mcp.ResourceContents, error) { return next(ctx, req) })
		}
	})(s)
	server.WithPromptHandlerMiddleware(func(next server.PromptHandlerFunc) server.PromptHandlerFunc {
		return func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return serveRPC(ctx, p, rpcCallOf(ctx, "prompts/get", "", req.Params.Name), nil,
				func(ctx context.Context) (*mcp.GetPromptResult, error) { return next(ctx, req) })
		}
	})(s)
	return nil
}

// AddTool is the drop-in replacement for (*server.MCPServer).AddTool, on a
// server where Install was called: it adds the tool with its own options
// (filter.WithFilters, ...), which apply over those of filter.ForTool. It
// returns a *codes.DefinitionError, and adds nothing, if s is nil, Install
// was not called on s (codes.NotInstalled), the tool's name is not a valid
// MCP tool name (codes.InvalidToolName), s has a tool of that name already,
// added with s.AddTool or by AddTaskTool (codes.DuplicateTool), h or an
// option is nil or misdefined (codes.NilValue, codes.InvalidOption), or the
// input schema is not a JSON object schema that compiles or the tool carries
// x-mcp-header annotations the SDK refuses (codes.InvalidSchema). The SDK
// alone registers any name and silently replaces a tool added twice.
func AddTool(s *server.MCPServer, tool mcp.Tool, h server.ToolHandlerFunc, opts ...filter.ToolOption) error {
	return add(s, "AddTool", tool, h == nil, opts, func(*serverState) { s.AddTool(tool, h) })
}

// AddTaskTool is AddTool for (*server.MCPServer).AddTaskTool. mcp-go runs a
// task tool's handler outside every middleware and makes a failure's text,
// or a panic's value, the task's statusMessage (tasks/get,
// notifications/tasks/status) and the message of the -32603 that answers
// tasks/result. AddTaskTool runs it through Install's middleware: the task
// is "failed", as the SDK marks it, and both say only the message a tool
// call would send, such as `Internal error in tool "x" (ref: R).`. The
// envelope stays in the log: mcp-go answers a failed task's tasks/result
// with that error alone, and a task whose result is an isError result is
// "completed", which the protocol calls "failed". A success is untouched.
func AddTaskTool(s *server.MCPServer, tool mcp.Tool, h server.TaskToolHandlerFunc, opts ...filter.ToolOption) error {
	return add(s, "AddTaskTool", tool, h == nil, opts, func(st *serverState) {
		s.AddTaskTool(tool, st.task(h))
		st.tasks.Store(tool.Name, &server.ServerTool{Tool: tool})
	})
}

func add(s *server.MCPServer, fn string, tool mcp.Tool, nilHandler bool, opts []filter.ToolOption, register func(*serverState)) (err error) {
	if s == nil {
		return &codes.DefinitionError{Mistake: codes.NilValue, Reason: fn + " needs the *server.MCPServer to add the tool to"}
	}
	st := servers.Load(s)
	if st == nil {
		return bind.NotInstalled("mcpgo", fn)
	}
	if err := bind.CheckTool("mcpgo", fn, tool.Name, nilHandler, opts); err != nil {
		return err
	}
	if err := mcp.ValidateParamHeaderAnnotations(&tool); err != nil {
		return &codes.DefinitionError{Mistake: codes.InvalidSchema, Subject: tool.Name, Reason: err.Error()}
	}
	if err := st.checkInputSchema(&tool); err != nil {
		return err
	}
	st.adding.Lock()
	defer st.adding.Unlock()
	if _, task := st.tasks.Load(tool.Name); task || s.GetTool(tool.Name) != nil { // the server is the one list of its tools
		return &codes.DefinitionError{Mistake: codes.DuplicateTool, Subject: tool.Name, Reason: "a tool with this name is already registered on this server; give each tool its own name"}
	}
	defer func() { // the SDK's panic for a name taken by the other kind of tool, before it registers anything
		if v := recover(); v != nil {
			err = &codes.DefinitionError{Mistake: codes.DuplicateTool, Subject: tool.Name, Reason: fmt.Sprint(v)}
		}
	}()
	register(st)
	st.added.Store(tool.Name, opts)
	return nil
}

// task returns h run by the middleware, which mcp-go does not put around
// it: a failure is the error whose text the SDK sends (see AddTaskTool).
func (st *serverState) task(h server.TaskToolHandlerFunc) server.TaskToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CreateTaskResult, error) {
		var out *mcp.CreateTaskResult
		res, err := st.middleware(func(ctx context.Context, req mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
			if out, err = h(ctx, req); out != nil && out.IsError { // an error result the handler built
				res = &mcp.CallToolResult{Content: out.Content, IsError: true}
			}
			return res, err
		})(ctx, req)
		if env, ok := EnvelopeOf(res); ok {
			return nil, errors.New(env.Message)
		}
		return out, err
	}
}

func (st *serverState) middleware(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		added, _ := st.added.Load(req.Params.Name)
		opts, _ := added.([]filter.ToolOption)
		var args any                   // the client's arguments, kept when the call may be retried
		task := req.Params.Task != nil // mcp-go ends its context with the tools/call that created it
		h := filter.Handler[*mcp.CallToolResult]{
			Run: func(ctx context.Context) (*mcp.CallToolResult, error) {
				res, err := next(ctx, req)
				if err == nil && res != nil && res.IsError {
					// an error result of a typed helper, as registered (Wrap's gives both)
					if t := st.registeredTool(ctx, req.Params.Name); t != nil && t.Handler != nil {
						err = helperError(helperKind(t.Handler), res)
					}
				}
				return res, err
			},
			HandBuilt: errorText,
			Detached:  task,
			Fresh: func(first bool) {
				if first { // mcp-go hands every attempt the same map
					args = cloneJSON(req.Params.Arguments, 0)
					return
				}
				req.Params.Arguments = cloneJSON(args, 0)
				if m := req.Params.Meta; m != nil { // without the progress token
					req.Params.Meta = &mcp.Meta{AdditionalFields: m.AdditionalFields}
				}
			},
			Passes: isProtocolError,
			Arguments: func(err error) *domain.Validation {
				v := st.compiled(ctx, req.Params.Name).check(&req)
				if _, unbound := err.(*unboundError); v == nil && unbound {
					v = domain.NewValidation("", nil, "The arguments cannot be read as the tool expects; check them against its input schema.")
				}
				return v
			},
			Repeatable: func() bool {
				t := st.registeredTool(ctx, req.Params.Name)
				return t != nil && (isTrue(t.Tool.Annotations.ReadOnlyHint) || isTrue(t.Tool.Annotations.IdempotentHint))
			},
		}
		h.Tools, h.Problems = st.firstCall(ctx, req.Params.Name, next)
		res, f, err := filter.Serve(ctx, st.p, callIn(ctx, filter.Call{Tool: req.Params.Name}), opts, h)
		switch {
		case f != nil:
			return errorResult(f), nil
		case res != nil && res.IsError:
			if !st.unchecked.Load() && !task { // the SDK checks no task's arguments
				st.sawArguments(ctx, &req) // passed as it came: before the after-call hook reads it
			}
			return res, nil
		}
		return res, err
	}
}

// firstCall returns, for the server's first tool call only, what Serve
// needs to check how mcperr is put on it: next, unless it is the tool's
// handler, is a middleware between mcperr and the handlers.
func (st *serverState) firstCall(ctx context.Context, name string, next server.ToolHandlerFunc) (func(string) bool, func() []string) {
	if st.started.Load() || !st.started.CompareAndSwap(false, true) {
		return nil, nil
	}
	problems := func() []string {
		t := st.registeredTool(ctx, name)
		if t == nil || t.Handler == nil || reflect.ValueOf(t.Handler).Pointer() == reflect.ValueOf(next).Pointer() {
			return nil
		}
		fn, inner := runtime.FuncForPC(reflect.ValueOf(next).Pointer()), "a tool middleware"
		if fn != nil {
			inner = fn.Name()
		}
		return []string{bind.Misplaced("mcpgo", inner, "call mcpgo.Install after s.Use and the server's middleware options, so that mcp-go runs it innermost")}
	}
	return func(name string) bool { return st.registeredTool(ctx, name) != nil }, problems
}

// afterCallTool answers the refusal of arguments by
// server.WithInputSchemaValidation, made before any middleware with the
// validator's text, which can hold the refused value. It fills the SDK's
// result in place, the one thing a hook can change.
func (st *serverState) afterCallTool(ctx context.Context, _ any, req *mcp.CallToolRequest, result any) {
	res, ok := result.(*mcp.CallToolResult)
	if !ok || res == nil || !res.IsError || req == nil || st.unchecked.Load() {
		return // a success costs a type assertion
	}
	defer func() { _ = recover() }() // outside every middleware: never take the server down
	if res.Meta != nil && res.Meta.AdditionalFields[filter.MetaKey] != nil ||
		server.ServerFromContext(ctx) != st.self.Value() {
		return // mcperr's own answer, or another server's call
	}
	// Arguments that the check finds do not fit cannot have reached a
	// handler of this server, whose SDK checks them: the result is its
	// refusal. Where the check finds nothing, the SDK's validator decides.
	ts := st.compiled(ctx, req.Params.Name)
	v := ts.check(req)
	if v == nil && ts != nil && ts.refuses(req) {
		v = domain.NewValidation("", nil, "The arguments do not fit the tool's input schema; check them against it.")
	}
	if v == nil {
		return
	}
	added, _ := st.added.Load(req.Params.Name)
	opts, _ := added.([]filter.ToolOption)
	_, f, _ := filter.Serve(ctx, st.p, callIn(ctx, filter.Call{Tool: req.Params.Name}), opts, filter.Handler[*mcp.CallToolResult]{
		Run:       func(context.Context) (*mcp.CallToolResult, error) { return nil, errors.New(v.Error()) }, // the SDK's refusal
		Arguments: func(error) *domain.Validation { return v }})
	if f != nil {
		*res = *errorResult(f)
	}
}

// sawArguments learns, from a handler's error result, whether the SDK checks
// arguments: if its validator refuses the call's, it does not, and no error
// result of this server is a refusal. The validator is asked only where the
// check finds they do not fit, so that it costs little.
func (st *serverState) sawArguments(ctx context.Context, req *mcp.CallToolRequest) {
	if ts := st.compiled(ctx, req.Params.Name); ts.check(req) != nil && ts.refuses(req) {
		st.unchecked.Store(true)
	}
}

func serveRPC[Res any](ctx context.Context, p *filter.Pipeline, call filter.Call, opts []filter.ToolOption, next func(context.Context) (Res, error)) (Res, error) {
	res, f, err := filter.Serve(ctx, p, call, opts, filter.Handler[Res]{Run: next, Passes: isProtocolError})
	if f != nil {
		return *new(Res), errors.New(f.Envelope.Message) // the SDK's -32603 says it; nothing of the chain
	}
	return res, err
}

// Wrap returns a tool handler that runs h, for a tool that something else
// registers. On a server with mcperr, Install covers the tool, whose options
// filter.ForTool gives; where h is one of mcp-go's typed helpers, the
// wrapped handler returns the errors they turn into error results as the
// errors they are, as Install says. On a server without mcperr, its first
// call writes one ERROR record to slog.Default saying so and what to do, and
// h's failures reach the SDK as they came. Like regexp.MustCompile, Wrap
// panics with a *codes.DefinitionError, at start-up, if h is nil.
func Wrap(h server.ToolHandlerFunc) server.ToolHandlerFunc {
	w, kind := mustWrapper("Wrap", h == nil), helperKind(h)
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		w.warn(ctx, req.Params.Name)
		res, err := h(ctx, req)
		if kind != "" && err == nil && res != nil && res.IsError && servers.Load(server.ServerFromContext(ctx)) != nil {
			err = helperError(kind, res) // both: the middleware sends res as it is in report-only mode
		}
		return res, err
	}
}

// Structured is mcp.NewStructuredToolHandler, which binds the arguments to
// TArgs and sends a TResult as structured content with its JSON as text,
// except that it returns the errors of h, and arguments it cannot bind, as
// errors for mcperr to map, a ToolError's words included, instead of sending
// their raw text. Like regexp.MustCompile, Structured panics with a
// *codes.DefinitionError, at start-up, if h is nil.
func Structured[TArgs, TResult any](h mcp.StructuredToolHandlerFunc[TArgs, TResult]) server.ToolHandlerFunc {
	mustWrapper("Structured", h == nil)
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args TArgs
		if err := req.BindArguments(&args); err != nil {
			return nil, &unboundError{err}
		}
		out, err := h(ctx, req, args)
		if err != nil {
			return nil, err
		}
		return mcp.NewToolResultStructuredOnly(out), nil
	}
}

// WrapPromptCompletion returns a prompt completion provider that runs the
// errors and panics of p through the mcperr configuration of the server
// running it, with filters of its own, which run before the server's: mcp-go
// gives completion/complete no middleware for Install to add. A failure is
// answered as a resources/read's is (see Install), with `Internal error in
// completion for prompt "name" (ref: R).` for a masked error. On a server
// without mcperr it does as Wrap does, and like Wrap it panics with a
// *codes.DefinitionError, at start-up, if p or a filter is nil.
func WrapPromptCompletion(p server.PromptCompletionProvider, filters ...filter.Filter) server.PromptCompletionProvider {
	return &completion{prompt: p, w: mustWrapper("WrapPromptCompletion", p == nil, filters...)}
}

// WrapResourceCompletion is WrapPromptCompletion for the completion of a
// resource template's arguments.
func WrapResourceCompletion(p server.ResourceCompletionProvider, filters ...filter.Filter) server.ResourceCompletionProvider {
	return &completion{resource: p, w: mustWrapper("WrapResourceCompletion", p == nil, filters...)}
}

// completion is a completion provider of WrapPromptCompletion or WrapResourceCompletion.
type completion struct {
	prompt   server.PromptCompletionProvider
	resource server.ResourceCompletionProvider
	w        *wrapper
}

// CompletePromptArgument implements server.PromptCompletionProvider.
func (c *completion) CompletePromptArgument(ctx context.Context, prompt string, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	return c.w.complete(ctx, rpcCallOf(ctx, "completion/complete", "", prompt), func(ctx context.Context) (*mcp.Completion, error) {
		return c.prompt.CompletePromptArgument(ctx, prompt, arg, cc)
	})
}

// CompleteResourceArgument implements server.ResourceCompletionProvider.
func (c *completion) CompleteResourceArgument(ctx context.Context, uri string, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	return c.w.complete(ctx, rpcCallOf(ctx, "completion/complete", uri, ""), func(ctx context.Context) (*mcp.Completion, error) {
		return c.resource.CompleteResourceArgument(ctx, uri, arg, cc)
	})
}

type wrapper struct {
	fn   string
	opts []filter.ToolOption // a completion provider's filters
	once sync.Once           // Wrap's first call; a provider's first unserved one
}

func mustWrapper(fn string, nilHandler bool, filters ...filter.Filter) *wrapper {
	if nilHandler {
		panic(&codes.DefinitionError{Mistake: codes.NilValue, Reason: fn + " needs a handler; pass the function to wrap"})
	}
	w := &wrapper{fn: fn}
	if len(filters) > 0 {
		w.opts = []filter.ToolOption{filter.WithFilters(filters...)}
		if err := bind.CheckOptions("mcpgo", fn, w.opts); err != nil {
			panic(err)
		}
	}
	return w
}

// complete runs next through the server's configuration, unless an outer
// provider of this package does.
func (w *wrapper) complete(ctx context.Context, call filter.Call, next func(context.Context) (*mcp.Completion, error)) (*mcp.Completion, error) {
	if filter.RequestIDFromContext(ctx) == "" {
		if st := servers.Load(server.ServerFromContext(ctx)); st != nil {
			return serveRPC(ctx, st.p, call, w.opts, next)
		}
		w.warn(ctx, call.Prompt+call.Resource)
	}
	return next(ctx)
}

func (w *wrapper) warn(ctx context.Context, target string) {
	w.once.Do(func() {
		if filter.RequestIDFromContext(ctx) != "" {
			return
		}
		defer func() { _ = recover() }() // a log handler that panics never takes the call down
		slog.Default().LogAttrs(ctx, slog.LevelError, "mcperr: mcpgo."+w.fn+" runs on a server without mcperr installed",
			slog.String("target", target),
			slog.String("consequence", "its failures and panics reach the SDK unhandled, exactly as without mcperr: their text is sent to the client"),
			slog.String("fix", "call mcpgo.Install(s, pipeline) at start-up, before the server runs"))
	})
}

// registeredTool returns the tool the server in ctx runs for name, found as
// the SDK finds it (the session's tools first), or a task tool of AddTool.
func (st *serverState) registeredTool(ctx context.Context, name string) *server.ServerTool {
	if s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithTools); ok {
		if st, ok := s.GetSessionTools()[name]; ok {
			return &st
		}
	}
	if srv := server.ServerFromContext(ctx); srv != nil {
		if t := srv.GetTool(name); t != nil {
			return t
		}
	}
	t, _ := st.tasks.Load(name)
	task, _ := t.(*server.ServerTool)
	return task
}

// toolSchema is the input schema last seen under a tool's name.
type toolSchema struct {
	id  schemaID
	doc []byte
	s   *inputschema.Schema // nil if there is none or it does not compile

	once sync.Once
	sdk  *jsonschema.Schema // as the SDK's validator compiles doc
}

type schemaID struct {
	raw                 *byte
	required            *string
	rawLen, requiredLen int
	defs, properties    unsafe.Pointer
	typ                 string
	additional          any // a comparable value, or the pointer of a map
}

// compiled returns the input schema of the tool the server in ctx runs for
// name, or nil if it has none of that name. The SDK's copies of a tool
// share the schema's maps and slices, so one made of the same ones as last
// time is not encoded again (the pointers kept pin their memory).
func (st *serverState) compiled(ctx context.Context, name string) *toolSchema {
	t := st.registeredTool(ctx, name)
	if t == nil {
		return nil
	}
	tool, in := &t.Tool, &t.Tool.InputSchema
	id := schemaID{
		unsafe.SliceData(tool.RawInputSchema), unsafe.SliceData(in.Required), len(tool.RawInputSchema), len(in.Required),
		reflect.ValueOf(in.Defs).UnsafePointer(), reflect.ValueOf(in.Properties).UnsafePointer(),
		in.Type, in.AdditionalProperties,
	}
	if m, ok := id.additional.(map[string]any); ok {
		id.additional = reflect.ValueOf(m).UnsafePointer()
	}
	known := reflect.TypeOf(id.additional) == nil || reflect.TypeOf(id.additional).Comparable()
	if e, ok := st.byTool.Load(tool.Name); ok && known && e.(*toolSchema).id == id {
		return e.(*toolSchema)
	}
	ts := &toolSchema{id: id}
	if doc, err := inputSchemaDoc(tool); err == nil && doc != nil {
		ts.doc = doc
		ts.s, _ = st.schemas.Get(doc)
	}
	if known {
		st.byTool.Store(tool.Name, ts)
	}
	return ts
}

// inputSchemaDoc returns the JSON of the input schema of tool as the SDK's
// validator reads it: RawInputSchema if set, else InputSchema, nil if empty.
func inputSchemaDoc(tool *mcp.Tool) ([]byte, error) {
	if len(tool.RawInputSchema) > 0 {
		return tool.RawInputSchema, nil
	}
	in := &tool.InputSchema
	if in.Type == "" && len(in.Properties) == 0 && len(in.Required) == 0 && in.AdditionalProperties == nil {
		return nil, nil
	}
	return json.Marshal(in)
}

// checkInputSchema compiles into st's cache, so that failures cost nothing.
func (st *serverState) checkInputSchema(tool *mcp.Tool) error {
	doc, err := inputSchemaDoc(tool)
	if err != nil {
		return &codes.DefinitionError{Mistake: codes.InvalidSchema, Subject: tool.Name, Reason: "the input schema does not marshal to JSON: " + err.Error()}
	}
	if doc == nil {
		return nil
	}
	var root struct {
		Type any `json:"type"`
	}
	if json.Unmarshal(doc, &root) != nil || root.Type != "object" {
		return &codes.DefinitionError{Mistake: codes.InvalidSchema, Subject: tool.Name, Reason: `the input schema must be a JSON object with "type": "object"; mcp.NewTool makes one`}
	}
	if _, err := st.schemas.Get(doc); err != nil {
		return &codes.DefinitionError{Mistake: codes.InvalidSchema, Subject: tool.Name, Reason: err.Error()}
	}
	return nil
}

func (ts *toolSchema) check(req *mcp.CallToolRequest) *domain.Validation {
	if ts == nil || ts.s == nil {
		return nil
	}
	switch args := req.Params.Arguments.(type) {
	case nil, map[string]any, []any, string, float64, bool, json.Number:
		return ts.s.Check(args) // as decoded from the request
	}
	if b, err := argumentsJSON(req); err == nil {
		return ts.s.CheckJSON(b)
	}
	return nil
}

// refuses asks the validator of server.WithInputSchemaValidation: the same
// engine, schema and reading of the arguments.
func (ts *toolSchema) refuses(req *mcp.CallToolRequest) bool {
	ts.once.Do(func() {
		c := jsonschema.NewCompiler()
		if d, err := jsonschema.UnmarshalJSON(bytes.NewReader(ts.doc)); ts.doc != nil && err == nil && c.AddResource("mem:///input-schema.json", d) == nil {
			ts.sdk, _ = c.Compile("mem:///input-schema.json")
		}
	})
	if ts.sdk == nil {
		return false // the SDK skips a schema that does not compile
	}
	var value any = map[string]any{}
	doc, err := argumentsJSON(req)
	if len(bytes.TrimSpace(doc)) > 0 && err == nil {
		value, err = jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	}
	return err != nil || ts.sdk.Validate(value) != nil
}

// argumentsJSON returns the arguments of req as JSON, nil if there are none.
func argumentsJSON(req *mcp.CallToolRequest) ([]byte, error) {
	if raw, ok := req.Params.Arguments.(json.RawMessage); ok || req.Params.Arguments == nil {
		return raw, nil
	}
	return json.Marshal(req.Params.Arguments)
}

// helperError returns the error that res, an error result of a typed
// helper of kind, stands for: arguments it could not bind, or, from
// NewStructuredToolHandler, whose handler cannot build a result, the
// handler's error, as its text.
func helperError(kind string, res *mcp.CallToolResult) error {
	switch text, _ := errorText(res); {
	case kind == "":
		return nil
	case strings.HasPrefix(text, "failed to bind arguments: "):
		return &unboundError{errors.New("mcp-go's " + kind + ": " + text)}
	case kind == "NewStructuredToolHandler":
		return errors.New("mcp-go's " + kind + ": " + text)
	}
	return nil
}

// unboundError is a typed handler's failure to bind the arguments: the
// client's to correct.
type unboundError struct{ error }

func (e *unboundError) Unwrap() error { return e.error }

// helperKind returns the name of the typed helper of mcp-go that built h,
// or "": h, its closure, is in mcp/typed_tools.go, inlined or not.
func helperKind(h server.ToolHandlerFunc) string {
	fn := runtime.FuncForPC(reflect.ValueOf(h).Pointer())
	if fn == nil {
		return ""
	}
	if file, _ := fn.FileLine(fn.Entry()); !strings.Contains(file, "mark3labs/mcp-go") || !strings.HasSuffix(file, "/mcp/typed_tools.go") {
		return ""
	}
	for _, kind := range [...]string{"NewTypedToolHandler", "NewStructuredToolHandler"} {
		if strings.Contains(fn.Name(), "."+kind+"[") {
			return kind
		}
	}
	return ""
}

func errorResult(f *filter.Failure) *mcp.CallToolResult {
	content := make([]mcp.Content, len(f.Texts))
	for i, t := range f.Texts {
		content[i] = mcp.NewTextContent(t)
	}
	meta := &mcp.Meta{AdditionalFields: map[string]any{filter.MetaKey: &f.Envelope}}
	return &mcp.CallToolResult{Result: mcp.Result{Meta: meta}, Content: content, IsError: true}
}

// EnvelopeOf returns the mcperr envelope of a tool result, as a client
// received it or a server built it, and whether it has one: a result
// without one is a success, or a failure mcperr did not handle, such as an
// error result a handler built itself.
func EnvelopeOf(res *mcp.CallToolResult) (filter.Envelope, bool) {
	if res == nil || res.Meta == nil {
		return filter.Envelope{}, false
	}
	return envelope.Read(res.Meta.AdditionalFields)
}

// isProtocolError is true only for a mcp.URLElicitationRequiredError, not
// wrapped, whose elicitations encode, so that neither an error's text nor a
// broken answer leaks.
func isProtocolError(err error) bool {
	if p, isPtr := err.(*mcp.URLElicitationRequiredError); isPtr && p != nil {
		err = *p
	}
	e, ok := err.(mcp.URLElicitationRequiredError)
	return ok && encodes(json.Marshal(e.Elicitations)) // a MarshalJSON that panics: Serve's recovery says no
}

func encodes(_ []byte, err error) bool { return err == nil }

func rpcCallOf(ctx context.Context, method, resource, prompt string) filter.Call {
	return callIn(ctx, filter.Call{Method: method, Resource: resource, Prompt: prompt, ProtocolVersion: server.RequestProtocolVersion(ctx)})
}

// callIn returns c with the session of ctx.
func callIn(ctx context.Context, c filter.Call) filter.Call {
	if s := server.ClientSessionFromContext(ctx); s != nil {
		c.SessionID = s.SessionID()
	}
	return c
}

func isTrue(b *bool) bool { return b != nil && *b }

// errorText returns the text of res, joined, if it is an error result.
func errorText(res *mcp.CallToolResult) (string, bool) {
	if res == nil || !res.IsError {
		return "", false
	}
	var texts []string
	for _, c := range res.Content {
		t, _ := c.(mcp.TextContent)
		if p, ok := c.(*mcp.TextContent); ok && p != nil {
			t = *p
		}
		if t.Text != "" {
			texts = append(texts, t.Text)
		}
	}
	return strings.Join(texts, "\n"), true
}

// cloneJSON copies v, arguments as mcp-go decodes them, down to depth 32.
func cloneJSON(v any, depth int) any {
	if m, ok := v.(map[string]any); ok && depth < 32 {
		c := make(map[string]any, len(m))
		for k, e := range m {
			c[k] = cloneJSON(e, depth+1)
		}
		return c
	} else if s, ok := v.([]any); ok && depth < 32 {
		c := make([]any, len(s))
		for i, e := range s {
			c[i] = cloneJSON(e, depth+1)
		}
		return c
	}
	return v
}
