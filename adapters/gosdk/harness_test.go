package gosdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/gosdkcompat"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

// protocols are the protocol versions a client of the SDK may negotiate that
// change what a result looks like (with go-sdk v1.8.0 the newest adds
// serverInfo to every result's _meta): the client's newest, then the newest
// with the initialize handshake, where the SDK in the build speaks both.
var protocols = func() []struct{ name, version string } {
	out := []struct{ name, version string }{{"latest", ""}}
	for _, v := range gosdkcompat.ProtocolVersions()[min(1, len(gosdkcompat.ProtocolVersions())):] {
		out = append(out, struct{ name, version string }{v, v})
	}
	return out
}()

// sessionOptions returns the options of a client session that asks for
// protocol version v ("" for the newest), skipping the test where the SDK
// in the build cannot ask for one.
func sessionOptions(t testing.TB, v string) *mcp.ClientSessionOptions {
	t.Helper()
	opts, err := gosdkcompat.ClientOptions(v)
	if err != nil {
		t.Skipf("protocol version %s: %v", v, err)
	}
	return opts
}

// textOut is the structured output of the tool that declares an output
// schema.
type textOut struct {
	Text string `json:"text"`
}

// handlerKind says how the table's behaviours become SDK handlers.
type handlerKind int

const (
	typedHandlers       handlerKind = iota // mcp.ToolHandlerFor, errors returned
	typedSetErrHandlers                    // mcp.ToolHandlerFor, errors set with SetError
	rawHandlers                            // mcp.ToolHandler, errors returned
	rawSetErrHandlers                      // mcp.ToolHandler, errors set with SetError
)

// registrar adds tools to a server in one way.
type registrar struct {
	typed    func(*mcp.Tool, mcp.ToolHandlerFor[map[string]any, any])
	typedOut func(*mcp.Tool, mcp.ToolHandlerFor[map[string]any, textOut])
	raw      func(*mcp.Tool, mcp.ToolHandler)
}

// style is one way of putting mcperr on a server.
type style struct {
	name    string
	kind    handlerKind
	install func(s *mcp.Server, p *filter.Pipeline) registrar
	// defaults says that the style gives the server no configuration, so
	// that it runs with the default one, which logs to slog.Default.
	defaults bool
}

// sdkRefusesArgs reports whether the SDK refuses arguments that do not fit
// the input schema before the handler runs: it does for typed handlers,
// and hands raw handlers their arguments unchecked.
func (st style) sdkRefusesArgs() bool {
	return st.kind == typedHandlers || st.kind == typedSetErrHandlers
}

// bare adds tools with the SDK alone.
func bare(s *mcp.Server) registrar {
	return registrar{
		typed:    func(tool *mcp.Tool, h mcp.ToolHandlerFor[map[string]any, any]) { mcp.AddTool(s, tool, h) },
		typedOut: func(tool *mcp.Tool, h mcp.ToolHandlerFor[map[string]any, textOut]) { mcp.AddTool(s, tool, h) },
		raw:      s.AddTool,
	}
}

func install(s *mcp.Server, p *filter.Pipeline) {
	orPanic(gosdk.Install(s, p))
}

// installed puts mcperr on s with p and adds tools with the SDK alone.
func installed(s *mcp.Server, p *filter.Pipeline) registrar {
	install(s, p)
	return bare(s)
}

// wrapped puts mcperr on s with p and adds tools with the SDK, wrapped.
func wrapped(s *mcp.Server, p *filter.Pipeline) registrar {
	install(s, p)
	return registrar{
		typed: func(tool *mcp.Tool, h mcp.ToolHandlerFor[map[string]any, any]) {
			mcp.AddTool(s, tool, gosdk.Wrap(h))
		},
		typedOut: func(tool *mcp.Tool, h mcp.ToolHandlerFor[map[string]any, textOut]) {
			mcp.AddTool(s, tool, gosdk.Wrap(h))
		},
		raw: func(tool *mcp.Tool, h mcp.ToolHandler) { s.AddTool(tool, gosdk.WrapRaw(h)) },
	}
}

// added puts mcperr on s with p and adds tools with AddTool and AddRawTool.
func added(s *mcp.Server, p *filter.Pipeline) registrar {
	install(s, p)
	return registrar{
		typed: func(tool *mcp.Tool, h mcp.ToolHandlerFor[map[string]any, any]) {
			orPanic(gosdk.AddTool(s, tool, h))
		},
		typedOut: func(tool *mcp.Tool, h mcp.ToolHandlerFor[map[string]any, textOut]) {
			orPanic(gosdk.AddTool(s, tool, h))
		},
		raw: func(tool *mcp.Tool, h mcp.ToolHandler) { orPanic(gosdk.AddRawTool(s, tool, h)) },
	}
}

// addedDefaults installs the default configuration on s, filter.New(),
// and adds tools with AddTool and AddRawTool.
func addedDefaults(s *mcp.Server, _ *filter.Pipeline) registrar {
	return added(s, defaults())
}

// styles are the ways of putting mcperr on a server that must all answer the
// table the same way.
var styles = []style{
	{"Install/typed", typedHandlers, installed, false},
	{"Install/typed-SetError", typedSetErrHandlers, installed, false},
	{"Install/raw", rawHandlers, installed, false},
	{"Install/raw-SetError", rawSetErrHandlers, installed, false},
	{"Install+Wrap/typed", typedHandlers, wrapped, false},
	{"Install+Wrap/typed-SetError", typedSetErrHandlers, wrapped, false},
	{"Install+WrapRaw/raw", rawHandlers, wrapped, false},
	{"Install+WrapRaw/raw-SetError", rawSetErrHandlers, wrapped, false},
	{"Install+AddTool/typed", typedHandlers, added, false},
	{"Install+AddTool/typed-SetError", typedSetErrHandlers, added, false},
	{"Install+AddRawTool/raw", rawHandlers, added, false},
	{"Install+AddRawTool/raw-SetError", rawSetErrHandlers, added, false},
	{"Install(defaults)+AddTool/typed", typedHandlers, addedDefaults, true},
	{"Install(defaults)+AddRawTool/raw", rawHandlers, addedDefaults, true},
}

func styleNamed(name string) (style, bool) {
	for _, st := range styles {
		if st.name == name {
			return st, true
		}
	}
	return style{}, false
}

// orPanic panics with err, a mistake in setting up a server, if it is not
// nil.
// defaults returns a new pipeline with the default configuration, which
// logs to slog.Default.
func defaults() *filter.Pipeline {
	p, err := filter.New()
	orPanic(err)
	return p
}

func orPanic(err error) {
	if err != nil {
		panic(err)
	}
}

func must(t testing.TB, err error) {
	if err != nil {
		t.Helper()
		t.Fatal(err)
	}
}

// rpcErr is the deliberate protocol error of the protocol_error tool.
var rpcErr = &jsonrpc.Error{Code: -32042, Message: "quota exhausted", Data: json.RawMessage(`{"x":1}`)}

// tableTools are the shared table's tools and two of the SDK's own cases.
func tableTools() []adaptertest.Tool {
	fail := func(err error) adaptertest.Behaviour {
		return func(context.Context, map[string]any) (string, error) { return "", err }
	}
	return append(adaptertest.Tools(),
		adaptertest.Tool{Name: "protocol_error", InputSchema: adaptertest.EmptySchema, Do: fail(rpcErr)},
		adaptertest.Tool{Name: "wrapped_protocol_error", InputSchema: adaptertest.EmptySchema,
			Do: fail(fmt.Errorf("upstream %s: %w", adaptertest.Canary, rpcErr))},
	)
}

// tableCases are the shared table's cases and the SDK's own.
func tableCases() []adaptertest.Case {
	return append(adaptertest.Cases(),
		adaptertest.Case{Name: "deliberate protocol error", Tool: "protocol_error", Want: adaptertest.Expect{ProtocolError: true}},
		adaptertest.Case{Name: "wrapped protocol error", Tool: "wrapped_protocol_error", Want: adaptertest.Expect{IsError: true,
			Code: codes.InternalError, Text: `Internal error in tool "wrapped_protocol_error" (ref: {ref}).`, Masked: true, Logged: 1,
			LogContains: []string{"upstream " + adaptertest.Canary}}},
	)
}

// register adds every tool of the table to reg, as handlers of kind.
func register(reg registrar, kind handlerKind) {
	for _, tl := range tableTools() {
		tool := &mcp.Tool{Name: tl.Name, Description: tl.Description, InputSchema: tl.InputSchema}
		if tl.OutputSchema != nil {
			tool.OutputSchema = tl.OutputSchema
		}
		setError := kind == typedSetErrHandlers || kind == rawSetErrHandlers
		switch {
		case kind == rawHandlers || kind == rawSetErrHandlers:
			reg.raw(tool, rawHandler(tl, setError))
		case tl.OutputSchema != nil:
			reg.typedOut(tool, typedHandler(tl, setError, func(s string) textOut { return textOut{Text: s} }))
		default:
			reg.typed(tool, typedHandler(tl, setError, func(string) any { return nil }))
		}
	}
}

// typedHandler runs a behaviour as a typed handler that returns its errors,
// or reports them with SetError when setError is true. out makes the
// structured output of a successful call; when it is the zero Out the text
// is sent as content.
func typedHandler[Out comparable](tl adaptertest.Tool, setError bool, out func(string) Out) mcp.ToolHandlerFor[map[string]any, Out] {
	return func(ctx context.Context, _ *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, Out, error) {
		var zero Out
		text, err := tl.Do(ctx, args)
		var sb *adaptertest.SelfBuilt
		switch {
		case errors.As(err, &sb):
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: sb.Text}}}, zero, nil
		case err != nil && setError && !isRPC(err):
			res := &mcp.CallToolResult{}
			res.SetError(err)
			return res, zero, nil
		case err != nil:
			return nil, zero, err
		}
		if o := out(text); o != zero {
			return nil, o, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, zero, nil
	}
}

// rawHandler runs a behaviour as a raw handler that returns its errors, or
// reports them with SetError when setError is true.
func rawHandler(tl adaptertest.Tool, setError bool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args map[string]any
		if len(req.Params.Arguments) > 0 {
			if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
				return nil, err
			}
		}
		text, err := tl.Do(ctx, args)
		var sb *adaptertest.SelfBuilt
		switch {
		case errors.As(err, &sb):
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: sb.Text}}}, nil
		case err != nil && setError && !isRPC(err):
			res := &mcp.CallToolResult{}
			res.SetError(err)
			return res, nil
		case err != nil:
			return nil, err
		}
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
		if tl.OutputSchema != nil {
			b, _ := json.Marshal(textOut{Text: text})
			res.Content = []mcp.Content{&mcp.TextContent{Text: string(b)}}
			res.StructuredContent = textOut{Text: text}
		}
		return res, nil
	}
}

func isRPC(err error) bool {
	_, ok := err.(*jsonrpc.Error)
	return ok
}

// newServer returns a server with the table's tools, put together in style
// st, mapping errors with p; nil p means the SDK alone.
func newServer(st style, p *filter.Pipeline) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "table", Version: "1.0.0"}, nil)
	reg := bare(s)
	if p != nil {
		reg = st.install(s, p)
	}
	register(reg, st.kind)
	return s
}

// connect connects a new client to s over in-memory transports, asking for
// protocol version (the newest when empty).
func connect(t testing.TB, s *mcp.Server, version string) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	must(t, err)
	c := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0.0"}, nil)
	cs, err := c.Connect(ctx, ct, sessionOptions(t, version))
	must(t, err)
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	listTools(t, cs)
	return cs
}

// listTools lists every page of the tools of the server cs is connected
// to, as every MCP client does before it calls a tool.
func listTools(t testing.TB, cs *mcp.ClientSession) {
	t.Helper()
	for _, err := range cs.Tools(context.Background(), nil) {
		must(t, err)
	}
}

// newPipeline returns a pipeline that logs into log.
func newPipeline(t testing.TB, log *adaptertest.Log) *filter.Pipeline {
	p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithRegistry(adaptertest.Registry()))
	must(t, err)
	return p
}

// call calls c's tool through cs and returns what the client received.
func call(ctx context.Context, cs *mcp.ClientSession, c adaptertest.Case) (adaptertest.Result, *mcp.CallToolResult) {
	params := &mcp.CallToolParams{Name: c.Tool}
	if c.Args != nil {
		params.Arguments = c.Args
	}
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		return adaptertest.Result{ProtocolErr: err}, nil
	}
	return resultOf(res), res
}

// resultOf converts what the SDK's client received.
func resultOf(res *mcp.CallToolResult) adaptertest.Result {
	raw, _ := json.Marshal(res)
	r := adaptertest.Result{IsError: res.IsError, Meta: res.Meta, StructuredContent: res.StructuredContent, Raw: raw}
	r.Typed, _ = gosdk.EnvelopeOf(res)
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			r.Texts = append(r.Texts, tc.Text)
		}
	}
	return r
}

// recorder returns the log records written since it was last asked.
type recorder interface {
	Records(t testing.TB) []map[string]any
}

// runTable calls every case of the table through cs and checks what the
// client and the log received. handlerCalls counts the calls that reached
// the divide and order_items handlers; nil when the server runs in another
// process.
func runTable(t *testing.T, st style, cs *mcp.ClientSession, log recorder, handlerCalls func() int64) {
	ctx := context.Background()
	for _, c := range tableCases() {
		t.Run(c.Name, func(t *testing.T) {
			if _, builtin := (*codes.Registry)(nil).Lookup(c.Want.Code); st.defaults && c.Want.Code != "" && !builtin {
				t.Skip("the default configuration does not know the table's own codes")
			}
			log.Records(t) // forget what earlier cases left
			var before int64
			if handlerCalls != nil {
				before = handlerCalls()
			}
			r, _ := call(ctx, cs, c)
			records := log.Records(t)
			// The SDK refuses a typed tool's arguments that do not fit its
			// schema before the handler runs; a raw handler runs and fails
			// on them. divide and order_items are the counted handlers.
			refused := st.sdkRefusesArgs() && c.Want.Code == codes.ValidationError && (c.Tool == "divide" || c.Tool == "order_items")
			if (c.Want.HandlerSkipped || refused) && handlerCalls != nil && handlerCalls() != before {
				t.Errorf("the handler ran for arguments the SDK refuses")
			}
			adaptertest.Check(t, c, r, records)
			if c.Want.ProtocolError {
				checkProtocolError(t, c, r, records)
			}
		})
	}
}

// checkProtocolError checks what Check leaves out for a protocol error: that
// it passed through as the SDK sends it, and that nothing was logged.
func checkProtocolError(t *testing.T, c adaptertest.Case, r adaptertest.Result, records []map[string]any) {
	t.Helper()
	if len(records) != 0 {
		t.Errorf("a protocol error wrote %d log records, want none: %v", len(records), records)
	}
	var we *jsonrpc.Error
	if !errors.As(r.ProtocolErr, &we) {
		t.Fatalf("protocol error %v is not a *jsonrpc.Error", r.ProtocolErr)
	}
	switch c.Tool {
	case "protocol_error":
		if we.Code != rpcErr.Code || we.Message != rpcErr.Message || string(we.Data) != string(rpcErr.Data) {
			t.Errorf("client got %d %q %s, want the handler's %d %q %s", we.Code, we.Message, we.Data, rpcErr.Code, rpcErr.Message, rpcErr.Data)
		}
	default:
		if we.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("unknown tool: code %d, want %d", we.Code, jsonrpc.CodeInvalidParams)
		}
	}
}
