package gosdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/bind"
	"github.com/mcperr/mcperr/internal/envelope"
	"github.com/mcperr/mcperr/internal/inputschema"
)

// servers lets AddTool refuse a server where Install was not called.
var servers bind.Table[mcp.Server, serverState]

type serverState struct {
	p       *filter.Pipeline
	started atomic.Bool // the first tool call was served
	tools   sync.Map    // name -> *toolEntry, added with AddTool or AddRawTool
	listed  sync.Map    // name -> *listedTool, from tools/list results
	schemas inputschema.Cache
	mu      sync.Mutex
	asked   map[string]bool // tools the server's own tools/list was asked for
}

type toolEntry struct {
	opts       []filter.ToolOption
	compiled   *inputschema.Schema // nil if the input schema does not compile
	repeatable bool                // annotated read-only or idempotent
}

// Install makes p the mcperr configuration of s, with a receiving
// middleware that runs every tools/call, resources/read, prompts/get and
// completion/complete of s, however its handler was added, through
// filter.Serve. Call it once per server, at start-up, before AddTool,
// AddRawTool and your own receiving middleware, which go-sdk then runs
// around mcperr's, never seeing a raw error; one added before Install,
// between mcperr and the handlers, is named in one ERROR record at the
// server's first tool call.
//
// A tool call fails on a handler's error (for a typed one,
// CallToolResult.GetError of the result the SDK built; for a raw one, what
// the SDK alone sends as a JSON-RPC error with code 0 and the raw text), an
// error result a raw handler marked with SetError, a panic (which the SDK
// alone lets kill the process), or arguments that do not fit the tool's
// input schema, when the SDK refused them or the handler failed, or, with
// filter.WithArgumentCheck, before the handler, which then does not run: a
// VALIDATION_ERROR naming each wrong field and what is wrong with it, never
// its value. The schema is the tool's as added here or as tools/list results
// sent to clients show it, or else as the server's own tools/list does,
// asked once a call has failed, at most once a tool for the life of the
// server. The failure is answered with an isError tool result: the text
// blocks the pipeline rendered and its envelope under _meta[filter.MetaKey],
// which EnvelopeOf reads back, never structuredContent, so that it passes
// clients' output-schema checks. A failed resources/read, prompts/get or
// completion/complete is answered with a JSON-RPC error: the pipeline's
// message, the code the MCP specification names (filter.Failure.JSONRPCCode)
// and the envelope as data. A *jsonrpc.Error returned as it is (a deliberate
// protocol error), an unknown tool, resource or prompt, every other method,
// a result a handler built with IsError set but without SetError (unless
// filter.WithHandBuilt says otherwise) and every success pass untouched.
//
// Install returns a *codes.DefinitionError if s or p is nil, or if s has
// mcperr with another pipeline (codes.ConflictingConfiguration); installing
// the same pipeline twice does nothing.
func Install(s *mcp.Server, p *filter.Pipeline) error {
	if s == nil {
		return &codes.DefinitionError{Mistake: codes.NilValue, Reason: "Install needs the *mcp.Server to install mcperr on"}
	}
	if p == nil {
		return bind.NilPipeline
	}
	st := &serverState{p: p, asked: make(map[string]bool)}
	if old, loaded := servers.LoadOrStore(s, st); loaded {
		if old.p == p {
			return nil
		}
		return bind.Conflict("gosdk")
	}
	s.AddReceivingMiddleware(st.middleware)
	return nil
}

func (st *serverState) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/call":
			if call, ok := req.(*mcp.CallToolRequest); ok {
				return st.callTool(ctx, next, call)
			}
		case "resources/read", "prompts/get", "completion/complete":
			if r, ok := req.(*mcp.CompleteRequest); ok && (r.Params == nil || r.Params.Ref == nil || r.Params.Argument.Name == "") {
				break // the SDK refuses it, before any handler
			}
			return st.serveRPC(ctx, next, method, req)
		case "tools/list":
			res, err := next(ctx, method, req)
			if err == nil {
				st.learn(res)
			}
			return res, err
		}
		return next(ctx, method, req)
	}
}

// callTool answers a failure with an error result, a copy of the SDK's own
// if it built one, so that its other fields stay.
func (st *serverState) callTool(ctx context.Context, next mcp.MethodHandler, req *mcp.CallToolRequest) (mcp.Result, error) {
	call := callOf(req)
	var opts []filter.ToolOption
	if e, ok := st.tools.Load(call.Tool); ok {
		opts = e.(*toolEntry).opts
	}
	var args json.RawMessage // the client's, kept when the call may be retried
	var meta mcp.Meta
	h := filter.Handler[mcp.Result]{
		Run: func(ctx context.Context) (mcp.Result, error) {
			res, err := next(ctx, "tools/call", req)
			if r, ok := res.(*mcp.CallToolResult); ok && r != nil && err == nil {
				err = r.GetError() // a typed handler's error, or one a raw handler set
			}
			return res, err
		},
		HandBuilt: func(res mcp.Result) (string, bool) {
			r, ok := res.(*mcp.CallToolResult)
			if !ok || r == nil || !r.IsError {
				return "", false
			}
			return textOf(r.Content), true
		},
		Fresh: func(first bool) {
			if first { // what the client sent, before a handler can change the request
				args, meta = req.Params.Arguments, req.Params.Meta
				return
			}
			params := *req.Params // without the progress token
			params.Arguments, params.Meta = slices.Clone(args), maps.Clone(meta)
			delete(params.Meta, "progressToken")
			req.Params = &params
		},
		Passes:     isProtocolError,
		Arguments:  func(err error) *domain.Validation { return st.arguments(ctx, next, req, err) },
		Repeatable: func() bool { return st.repeatable(ctx, next, req) },
	}
	h.Tools, h.Problems = st.firstCall(ctx, next, req)
	res, f, err := filter.Serve(ctx, st.p, call, opts, h)
	r, _ := res.(*mcp.CallToolResult)
	switch {
	case f == nil && r != nil && r.GetError() != nil:
		return res, nil // as the SDK built it
	case f == nil && r == nil && res != nil && err == nil:
		return &mcp.CallToolResult{Content: []mcp.Content{}}, nil // a nil *CallToolResult
	case f == nil:
		return res, encodable(err)
	case r != nil:
		return answered(*r, f), nil
	}
	return answered(complete(req), f), nil
}

// complete returns an empty result marked complete where go-sdk marks its
// own (protocol 2026-07-28 and later), through the one way it offers: JSON.
func complete(req *mcp.CallToolRequest) (r mcp.CallToolResult) {
	if init := req.Session.InitializeParams(); init != nil && init.ProtocolVersion >= "2026-07-28" {
		_ = json.Unmarshal([]byte(`{"content":[],"resultType":"complete"}`), &r)
	}
	return r
}

func (st *serverState) serveRPC(ctx context.Context, next mcp.MethodHandler, method string, req mcp.Request) (mcp.Result, error) {
	res, f, err := filter.Serve(ctx, st.p, rpcCallOf(method, req), nil, filter.Handler[mcp.Result]{
		Run:    func(ctx context.Context) (mcp.Result, error) { return next(ctx, method, req) },
		Passes: isProtocolError,
	})
	if f == nil {
		return res, encodable(err)
	}
	data, merr := json.Marshal(f.Envelope)
	if merr != nil {
		data = nil // never send half an envelope
	}
	return nil, &jsonrpc.Error{Code: f.JSONRPCCode, Message: f.Envelope.Message, Data: data}
}

// firstCall returns, for the server's first tool call only, what Serve
// needs to check how mcperr is put on the server.
func (st *serverState) firstCall(ctx context.Context, next mcp.MethodHandler, req *mcp.CallToolRequest) (func(string) bool, func() []string) {
	if st.started.Load() || !st.started.CompareAndSwap(false, true) {
		return nil, nil
	}
	problems := func() []string {
		fn, name := runtime.FuncForPC(reflect.ValueOf(next).Pointer()), "a middleware"
		if fn != nil {
			if file, _ := fn.FileLine(fn.Entry()); strings.Contains(file, "modelcontextprotocol/go-sdk") {
				return nil // the SDK's own handler, or a middleware of its own
			}
			name = fn.Name()
		}
		return []string{bind.Misplaced("gosdk", name, "add your receiving middleware after gosdk.Install, which go-sdk then runs first")}
	}
	var once sync.Once
	return func(name string) bool {
		once.Do(func() {
			if req.Session != nil {
				st.list(ctx, next, req.Session, "")
			}
		})
		_, added := st.tools.Load(name)
		_, listed := st.listed.Load(name)
		return name != "" && (added || listed)
	}, problems
}

// arguments says how the arguments of req do not fit the tool's input
// schema, or else, if the SDK refused them with err (a time.Time given
// "yesterday" fits a string schema), names the field it could not decode.
func (st *serverState) arguments(ctx context.Context, next mcp.MethodHandler, req *mcp.CallToolRequest, err error) *domain.Validation {
	var v *domain.Validation
	if req.Params != nil {
		s := st.schemaOf(req.Params.Name)
		if s == nil && st.listFor(ctx, next, req) {
			s = st.schemaOf(req.Params.Name)
		}
		v = s.CheckJSON(req.Params.Arguments)
	}
	if v != nil || !refused(req, err) {
		return v
	}
	field := ""
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) {
		field = ute.Field
	}
	return domain.NewValidation(field, nil, "cannot be read as the tool expects; check its form against the input schema")
}

// refused reports whether err is the SDK's refusal of the arguments of req:
// a wrap, one Unwrap deep, of a *jsonrpc.Error with the invalid-params code
// (go-sdk before v1.5.0, or a raw handler), or the decoder's
// *json.UnmarshalTypeError naming a field the arguments hold. A panicking
// Unwrap is the pipeline's to log.
func refused(req *mcp.CallToolRequest, err error) bool {
	if u, ok := err.(interface{ Unwrap() error }); ok {
		if rpc, ok := noPanic(u.Unwrap).(*jsonrpc.Error); ok && rpc != nil && rpc.Code == jsonrpc.CodeInvalidParams {
			return true
		}
	}
	ute, ok := err.(*json.UnmarshalTypeError)
	if !ok || ute == nil || ute.Field == "" || req.Params == nil || len(req.Params.Arguments) > 64<<10 {
		return false
	}
	var args map[string]json.RawMessage
	if json.Unmarshal(req.Params.Arguments, &args) != nil {
		return false
	}
	field, _, _ := strings.Cut(ute.Field, ".")
	_, ok = args[field]
	return ok
}

func (st *serverState) repeatable(ctx context.Context, next mcp.MethodHandler, req *mcp.CallToolRequest) bool {
	if req.Params == nil {
		return false
	}
	if e, ok := st.tools.Load(req.Params.Name); ok {
		return e.(*toolEntry).repeatable
	}
	v, ok := st.listed.Load(req.Params.Name)
	if !ok && st.listFor(ctx, next, req) {
		v, ok = st.listed.Load(req.Params.Name)
	}
	return ok && repeatable(v.(*listedTool).tool)
}

func repeatable(t *mcp.Tool) bool {
	return t.Annotations != nil && (t.Annotations.ReadOnlyHint || t.Annotations.IdempotentHint)
}

func (st *serverState) schemaOf(name string) *inputschema.Schema {
	if e, ok := st.tools.Load(name); ok {
		return e.(*toolEntry).compiled
	}
	if v, ok := st.listed.Load(name); ok {
		l := v.(*listedTool)
		l.once.Do(func() { l.schema = compileSchema(&st.schemas, l.tool.InputSchema) })
		return l.schema
	}
	return nil
}

// maxAsked bounds the names made up by clients that st.asked holds;
// maxListPages, the pages of tools/list read to find one tool.
const maxAsked, maxListPages = 4096, 64

// listFor asks the server's own tools/list for the tools of the session of
// req, and reports whether it did: once a tool for the life of the server,
// so that failures never cost more of the server's handlers.
func (st *serverState) listFor(ctx context.Context, next mcp.MethodHandler, req *mcp.CallToolRequest) bool {
	if next == nil || req.Session == nil {
		return false
	}
	st.mu.Lock()
	first := !st.asked[req.Params.Name] && len(st.asked) < maxAsked
	if first {
		st.asked[req.Params.Name] = true
	}
	st.mu.Unlock()
	if first {
		st.list(ctx, next, req.Session, req.Params.Name)
	}
	return first
}

// list reads the server's own tools/list until it has seen until, or all.
func (st *serverState) list(ctx context.Context, next mcp.MethodHandler, session *mcp.ServerSession, until string) {
	cursor := ""
	for range maxListPages {
		res, err := next(ctx, "tools/list", &mcp.ListToolsRequest{Session: session, Params: &mcp.ListToolsParams{Cursor: cursor}})
		if err != nil {
			return
		}
		st.learn(res)
		list, ok := res.(*mcp.ListToolsResult)
		if _, found := st.listed.Load(until); until != "" && found || !ok || list == nil || list.NextCursor == "" {
			return
		}
		cursor = list.NextCursor
	}
}

type listedTool struct {
	tool   *mcp.Tool
	once   sync.Once
	schema *inputschema.Schema // compiled on first use
}

// learn records the tools of a tools/list result. The SDK lists the same
// *mcp.Tool until a tool is replaced, so relearning allocates nothing.
func (st *serverState) learn(res mcp.Result) {
	if list, _ := res.(*mcp.ListToolsResult); list != nil {
		for _, t := range list.Tools {
			if t == nil {
				continue
			}
			if v, ok := st.listed.Load(t.Name); !ok || v.(*listedTool).tool != t {
				st.listed.Store(t.Name, &listedTool{tool: t})
			}
		}
	}
}

func compileSchema(cache *inputschema.Cache, schema any) *inputschema.Schema {
	doc, err := marshalSchema(schema)
	if schema == nil || err != nil {
		return nil
	}
	s, _ := cache.Get(doc)
	return s
}

// AddTool is the drop-in replacement for mcp.AddTool, on a server where
// Install was called: it adds the typed tool with its own options
// (filter.WithFilters, ...), which apply over those of filter.ForTool; the
// SDK infers the schemas from In and Out unless the tool sets them. It
// returns a *codes.DefinitionError, and adds nothing, if s or the tool is
// nil, Install was not called on s (codes.NotInstalled), the name is not a
// valid MCP tool name, a tool of that name was added to s through this
// package before (codes.DuplicateTool; one added with mcp.AddTool directly
// is not seen), h or an option is nil or misdefined, or the SDK cannot use
// the tool's input or output schema (codes.InvalidSchema), where mcp.AddTool
// would panic.
func AddTool[In, Out any](s *mcp.Server, tool *mcp.Tool, h mcp.ToolHandlerFor[In, Out], opts ...filter.ToolOption) error {
	return addTool("AddTool", s, tool, h == nil, opts, func() (*mcp.Tool, *inputschema.Schema, error) {
		tt, rt, err := *tool, reflect.TypeFor[In](), error(nil)
		switch { // the input schema as the SDK infers it
		case tt.InputSchema != nil:
		case rt == reflect.TypeFor[any]():
			tt.InputSchema = &jsonschema.Schema{Type: "object"}
		default:
			if rt.Kind() == reflect.Pointer {
				rt = rt.Elem()
			}
			if tt.InputSchema, err = jsonschema.ForType(rt, &jsonschema.ForOptions{}); err != nil {
				err = invalidSchema(tool.Name, "the input schema cannot be inferred from the argument type: "+err.Error())
			}
		}
		return &tt, nil, err
	}, func(tt *mcp.Tool) { mcp.AddTool(s, tt, h) })
}

// AddRawTool is AddTool for a raw tool, the drop-in replacement for
// (*mcp.Server).AddTool, which hands h its arguments unchecked. It returns
// a *codes.DefinitionError, and adds nothing, for the mistakes AddTool
// refuses, and if the input schema is missing, does not have type "object"
// or cannot be compiled (codes.InvalidSchema).
func AddRawTool(s *mcp.Server, tool *mcp.Tool, h mcp.ToolHandler, opts ...filter.ToolOption) error {
	return addTool("AddRawTool", s, tool, h == nil, opts, func() (*mcp.Tool, *inputschema.Schema, error) {
		compiled, err := compileInputSchema(tool)
		return tool, compiled, err
	}, func(t *mcp.Tool) { s.AddTool(t, h) })
}

// addTool refuses a tool's mistakes but its schema's, reserving its name,
// then has add register the tool prepare returns (a panic of prepare keeps
// the name). A typed tool's input schema is compiled once added.
func addTool(fn string, s *mcp.Server, tool *mcp.Tool, nilHandler bool, opts []filter.ToolOption,
	prepare func() (*mcp.Tool, *inputschema.Schema, error), add func(*mcp.Tool)) error {
	if s == nil {
		return &codes.DefinitionError{Mistake: codes.NilValue, Reason: fn + " needs the *mcp.Server to add the tool to"}
	}
	if tool == nil {
		return &codes.DefinitionError{Mistake: codes.InvalidToolName, Reason: "the tool is nil; pass a *mcp.Tool with a name"}
	}
	st := servers.Load(s)
	if st == nil {
		return bind.NotInstalled("gosdk", fn)
	}
	if err := bind.CheckTool("gosdk", fn, tool.Name, nilHandler, opts); err != nil {
		return err
	}
	if _, taken := st.tools.LoadOrStore(tool.Name, &toolEntry{}); taken {
		return &codes.DefinitionError{Mistake: codes.DuplicateTool, Subject: tool.Name, Reason: "a tool with this name is already registered on this server; give each tool its own name"}
	}
	tt, compiled, err := prepare()
	if err == nil {
		err = register(tool.Name, func() { add(tt) })
	}
	if err != nil {
		st.tools.Delete(tool.Name)
		return err
	}
	if compiled == nil {
		compiled = compileSchema(&st.schemas, tt.InputSchema)
	}
	st.tools.Store(tool.Name, &toolEntry{opts: opts, compiled: compiled, repeatable: repeatable(tool)})
	return nil
}

// register runs add, the SDK's registration of the tool named name, and
// returns the SDK's panic for a tool it cannot use, raised before it
// registers anything.
func register(name string, add func()) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = invalidSchema(name, fmt.Sprint(v))
		}
	}()
	add()
	return nil
}

// compileInputSchema refuses what the SDK would panic on.
func compileInputSchema(tool *mcp.Tool) (*inputschema.Schema, error) {
	if tool.InputSchema == nil {
		return nil, invalidSchema(tool.Name, `the tool has no input schema; for a tool that takes no arguments use {"type":"object"}`)
	}
	doc, err := marshalSchema(tool.InputSchema)
	if err != nil {
		return nil, invalidSchema(tool.Name, "the input schema does not marshal to JSON: "+err.Error())
	}
	var root struct {
		Type any `json:"type"`
	}
	if err := json.Unmarshal(doc, &root); err != nil || root.Type != "object" {
		return nil, invalidSchema(tool.Name, `the input schema must be a JSON object with "type": "object"`)
	}
	s, err := inputschema.Compile(doc)
	if err != nil {
		return nil, invalidSchema(tool.Name, err.Error())
	}
	return s, nil
}

func invalidSchema(name, reason string) error {
	return &codes.DefinitionError{Mistake: codes.InvalidSchema, Subject: name, Reason: reason}
}

// Wrap returns a typed tool handler that runs h, for a tool that something
// else registers, such as a framework's helper. On a server with mcperr it
// is h: Install's middleware handles every tool however it was added, and a
// tool's own options are given with filter.ForTool. On a server without
// mcperr, its first call writes one ERROR record to slog.Default saying so
// and what to do, and h's failures and panics reach the SDK as they came.
// Like regexp.MustCompile, Wrap panics with a *codes.DefinitionError, at
// start-up, if h is nil.
func Wrap[In, Out any](h mcp.ToolHandlerFor[In, Out]) mcp.ToolHandlerFor[In, Out] {
	w := mustWrap("Wrap", h == nil)
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		w.check(ctx, req)
		return h(ctx, req, in)
	}
}

// WrapRaw is Wrap for a raw tool handler.
func WrapRaw(h mcp.ToolHandler) mcp.ToolHandler {
	w := mustWrap("WrapRaw", h == nil)
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		w.check(ctx, req)
		return h(ctx, req)
	}
}

type wrapper struct {
	fn   string
	once sync.Once // the first call, which says whether mcperr serves the tool
}

func mustWrap(fn string, nilHandler bool) *wrapper {
	if nilHandler {
		panic(&codes.DefinitionError{Mistake: codes.NilValue, Reason: fn + " needs a handler; pass the function that implements the tool"})
	}
	return &wrapper{fn: fn}
}

func (w *wrapper) check(ctx context.Context, req *mcp.CallToolRequest) {
	w.once.Do(func() {
		if filter.RequestIDFromContext(ctx) != "" {
			return
		}
		defer func() { _ = recover() }() // a log handler that panics never takes the call down
		slog.Default().LogAttrs(ctx, slog.LevelError, "mcperr: gosdk."+w.fn+" runs on a server without mcperr installed",
			slog.String("tool", callOf(req).Tool),
			slog.String("consequence", "the tool's failures and panics reach the SDK unhandled, exactly as without mcperr: their text is sent to the client, a panic ends the process"),
			slog.String("fix", "call gosdk.Install(s, pipeline) at start-up, before the server runs"))
	})
}

// answered makes r, a copy, so that a handler's shared value is never
// written into, the error result of f, in one allocation for the usual
// text blocks, at most two as the default renderer makes.
func answered(r mcp.CallToolResult, f *filter.Failure) *mcp.CallToolResult {
	parts := &struct {
		res     mcp.CallToolResult
		text    [2]mcp.TextContent
		content [2]mcp.Content
		env     filter.Envelope
		err     mappedError
	}{res: r, env: f.Envelope, err: mappedError{f}}
	content := parts.content[:0]
	for i, t := range f.Texts {
		if i < len(parts.text) {
			parts.text[i].Text = t
			content = append(content, &parts.text[i])
		} else {
			content = append(content, &mcp.TextContent{Text: t})
		}
	}
	res := &parts.res
	meta := make(mcp.Meta, len(res.Meta)+1)
	maps.Copy(meta, res.Meta)
	meta[filter.MetaKey] = &parts.env
	res.Meta = meta
	res.StructuredContent = nil
	res.Content = content // first: SetError then keeps it, and allocates none of its own
	res.SetError(&parts.err)
	res.Content = content // again: before go-sdk v1.6.0, SetError replaces it
	return res
}

// mappedError is the error of the error result (GetError), for middleware
// further out: the client's message, unwrapping to the handler's error.
type mappedError struct{ f *filter.Failure }

func (e *mappedError) Error() string { return e.f.Envelope.Message }

func (e *mappedError) Unwrap() error { return e.f.Err }

// EnvelopeOf returns the mcperr envelope of a tool result, as a client
// received it or a server built it, and whether it has one: a result
// without one is a success, or a failure mcperr did not handle, such as an
// error result a handler built itself.
func EnvelopeOf(res *mcp.CallToolResult) (filter.Envelope, bool) {
	if res == nil {
		return filter.Envelope{}, false
	}
	return envelope.Read(res.Meta)
}

// rpcCallOf relies on the middleware: a completion has a reference.
func rpcCallOf(method string, req mcp.Request) filter.Call {
	c := filter.Call{Method: method}
	switch r := req.(type) {
	case *mcp.ReadResourceRequest:
		if r.Params != nil {
			c.Resource = r.Params.URI
		}
	case *mcp.GetPromptRequest:
		if r.Params != nil {
			c.Prompt = r.Params.Name
		}
	case *mcp.CompleteRequest:
		if r.Params.Ref.Type == "ref/prompt" {
			c.Prompt = r.Params.Ref.Name
		} else {
			c.Resource = r.Params.Ref.URI
		}
	}
	if s, ok := req.GetSession().(*mcp.ServerSession); ok && s != nil {
		c.SessionID = s.ID()
	}
	c.ProtocolVersion = noPanic(func() string { return protocolVersion(req) })
	return c
}

func protocolVersion(req mcp.Request) string {
	if r, ok := req.(interface{ ProtocolVersion() string }); ok {
		return r.ProtocolVersion()
	}
	// go-sdk before v1.7.0 has no ServerRequest.ProtocolVersion and speaks no
	// version after 2025-11-25: the session's is its client's, or that one.
	if s, ok := req.GetSession().(*mcp.ServerSession); ok && s != nil {
		if p := s.InitializeParams(); p != nil && p.ProtocolVersion != "" {
			return min(p.ProtocolVersion, "2025-11-25")
		}
	}
	return ""
}

// noPanic returns what fn returns, or the zero value if it panics.
func noPanic[T any](fn func() T) (v T) {
	defer func() { _ = recover() }()
	return fn()
}

func callOf(req *mcp.CallToolRequest) (c filter.Call) {
	if req != nil && req.Params != nil {
		c.Tool = req.Params.Name
	}
	if req != nil && req.Session != nil {
		c.SessionID = req.Session.ID()
	}
	return c
}

func textOf(content []mcp.Content) string {
	text := ""
	for _, c := range content {
		if t, ok := c.(*mcp.TextContent); ok && text == "" {
			text = t.Text
		} else if ok {
			text = text + "\n" + t.Text
		}
	}
	return text
}

// isProtocolError is true, as in the SDK, only for a *jsonrpc.Error
// returned as it is: the text of an error that wraps one stays unsent.
func isProtocolError(err error) bool {
	_, ok := err.(*jsonrpc.Error)
	return ok
}

// encodable drops invalid JSON data, which would break the connection.
func encodable(err error) error {
	e, ok := err.(*jsonrpc.Error)
	if !ok || e == nil || len(e.Data) == 0 || json.Valid(e.Data) {
		return err
	}
	return &jsonrpc.Error{Code: e.Code, Message: e.Message}
}

// marshalSchema returns the JSON form of a schema value of any type.
func marshalSchema(schema any) ([]byte, error) {
	if raw, ok := schema.(json.RawMessage); ok {
		return raw, nil
	}
	return json.Marshal(schema)
}
