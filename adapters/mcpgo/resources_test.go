package mcpgo_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

// tableCompletion is the table's completion provider, written as a user of
// the SDK writes one.
type tableCompletion struct{}

func (tableCompletion) CompletePromptArgument(ctx context.Context, _ string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	values, err := adaptertest.Complete(ctx, arg.Value)
	if err != nil {
		return nil, err
	}
	return &mcp.Completion{Values: values}, nil
}

// rpcServer returns a server with mcperr installed with p and the table's
// resources, templates and prompts, added with the SDK's own methods, and
// its completion provider, wrapped with the given filters: mcp-go has no
// middleware for completions.
func rpcServer(t testing.TB, p *filter.Pipeline, filters ...filter.Filter) *server.MCPServer {
	t.Helper()
	s := server.NewMCPServer("rpc", "1.0.0", server.WithResourceCapabilities(false, false), server.WithPromptCapabilities(false),
		server.WithCompletions())
	if err := mcpgo.Install(s, p); err != nil {
		t.Fatal(err)
	}
	server.WithPromptCompletionProvider(mcpgo.WrapPromptCompletion(tableCompletion{}, filters...))(s)
	for _, r := range adaptertest.Resources() {
		h := resourceHandler(r)
		if r.Template {
			s.AddResourceTemplate(mcp.NewResourceTemplate(r.URI, r.URI), server.ResourceTemplateHandlerFunc(h))
		} else {
			s.AddResource(mcp.NewResource(r.URI, r.URI), h)
		}
	}
	for _, pr := range adaptertest.Prompts() {
		var popts []mcp.PromptOption
		for _, a := range pr.Arguments {
			popts = append(popts, mcp.WithArgument(a))
		}
		s.AddPrompt(mcp.NewPrompt(pr.Name, popts...), promptHandler(pr))
	}
	return s
}

func resourceHandler(r adaptertest.Resource) server.ResourceHandlerFunc {
	return func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		text, err := r.Do(ctx, req.Params.URI)
		if err != nil {
			return nil, err
		}
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, Text: text}}, nil
	}
}

func promptHandler(p adaptertest.Prompt) server.PromptHandlerFunc {
	return func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		text, err := p.Do(ctx, req.Params.Arguments)
		if err != nil {
			return nil, err
		}
		return mcp.NewGetPromptResult("", []mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(text))}), nil
	}
}

// recording is the SDK's own client transport, recording the last response
// it received: the SDK's client turns a JSON-RPC error into a Go error
// without its data, which the table checks.
type recording struct {
	transport.Interface
	mu   sync.Mutex
	last *transport.JSONRPCResponse
}

func (r *recording) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	resp, err := r.Interface.SendRequest(ctx, req)
	r.mu.Lock()
	r.last = resp
	r.mu.Unlock()
	return resp, err
}

// SetProtocolVersion passes the negotiated version on to an HTTP transport.
func (r *recording) SetProtocolVersion(v string) {
	if h, ok := r.Interface.(transport.HTTPConnection); ok {
		h.SetProtocolVersion(v)
	}
}

func (r *recording) lastResponse() *transport.JSONRPCResponse {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// rpcInProcess and rpcOverHTTP return a client of s speaking proto, and its
// recording transport.
func rpcInProcess(t testing.TB, s *server.MCPServer, proto string) (*client.Client, *recording) {
	rec := &recording{Interface: transport.NewInProcessTransport(s)}
	c := client.NewClient(rec)
	connect(t, c, proto)
	return c, rec
}

func rpcOverHTTP(t testing.TB, s *server.MCPServer, proto string) (*client.Client, *recording) {
	ts := httptest.NewServer(server.NewStreamableHTTPServer(s))
	t.Cleanup(ts.Close)
	tr, err := transport.NewStreamableHTTP(ts.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	rec := &recording{Interface: tr}
	c := client.NewClient(rec)
	connect(t, c, proto)
	return c, rec
}

// rpcRequest sends rc through c and returns what the client received.
func rpcRequest(t testing.TB, c *client.Client, rec *recording, rc adaptertest.RPCCase) adaptertest.RPCResult {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var (
		res  any
		text string
		err  error
	)
	switch rc.Kind {
	case adaptertest.KindResource:
		req := mcp.ReadResourceRequest{}
		req.Params.URI = rc.Target
		var r *mcp.ReadResourceResult
		if r, err = c.ReadResource(ctx, req); err == nil && len(r.Contents) > 0 {
			res = r
			if tc, ok := r.Contents[0].(mcp.TextResourceContents); ok {
				text = tc.Text
			}
		}
	case adaptertest.KindPrompt:
		req := mcp.GetPromptRequest{}
		req.Params.Name, req.Params.Arguments = rc.Target, rc.Args
		var r *mcp.GetPromptResult
		if r, err = c.GetPrompt(ctx, req); err == nil && len(r.Messages) > 0 {
			res = r
			if tc, ok := r.Messages[0].Content.(mcp.TextContent); ok {
				text = tc.Text
			}
		}
	case adaptertest.KindCompletion:
		req := mcp.CompleteRequest{}
		req.Params.Ref = mcp.PromptReference{Type: "ref/prompt", Name: rc.Target}
		req.Params.Argument = mcp.CompleteArgument{Name: "name", Value: rc.Args["name"]}
		var r *mcp.CompleteResult
		if r, err = c.Complete(ctx, req); err == nil && len(r.Completion.Values) > 0 {
			res, text = r, r.Completion.Values[0]
		}
	}
	if err != nil {
		resp := rec.lastResponse()
		if resp == nil || resp.Error == nil {
			t.Fatalf("%s: error %v without a JSON-RPC error response", rc.Name, err)
		}
		data, _ := json.Marshal(resp.Error.Data)
		if resp.Error.Data == nil {
			data = nil
		}
		raw, _ := json.Marshal(resp)
		return adaptertest.RPCResult{Err: &adaptertest.WireError{Code: int64(resp.Error.Code), Message: resp.Error.Message, Data: data},
			Raw: append(raw, err.Error()...)}
	}
	raw, _ := json.Marshal(res)
	return adaptertest.RPCResult{Text: text, Raw: raw}
}

// TestRPCTable runs the resource, prompt and completion table through the
// SDK's client, in process and over streamable HTTP, for both protocol
// eras: resources and prompts added with the SDK's own methods, served by
// Install's middleware, and the completion provider wrapped.
func TestRPCTable(t *testing.T) {
	dials := map[string]func(testing.TB, *server.MCPServer, string) (*client.Client, *recording){
		"in-process": rpcInProcess, "streamable HTTP": rpcOverHTTP,
	}
	for dname, dial := range dials {
		for _, proto := range protocols {
			t.Run(dname+"/"+proto, func(t *testing.T) {
				var log adaptertest.Log
				c, rec := dial(t, rpcServer(t, testPipeline(log.Logger())), proto)
				for _, rc := range adaptertest.RPCCases() {
					t.Run(rc.Name, func(t *testing.T) {
						log.Records(t)
						r := rpcRequest(t, c, rec, rc)
						adaptertest.CheckRPCWithoutData(t, rc, proto, r, log.Records(t))
					})
				}
			})
		}
	}
}

// recordingFilter records its name each time it sees an error, and passes
// the error on.
type recordingFilter struct {
	name string
	mu   *sync.Mutex
	seen *[]string
}

func (f recordingFilter) Catch(_ context.Context, call filter.Call, _ error) (*filter.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	*f.seen = append(*f.seen, f.name+":"+call.Method+":"+call.Resource+call.Prompt)
	return nil, nil
}

// TestRPCFilterOrder checks that the global filters see every failure of a
// resources/read and a prompts/get, with the request's method and target,
// and that a wrapped completion provider's own filters run first, in
// order, then the global ones; each failure is logged once.
func TestRPCFilterOrder(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	rec := func(name string) filter.Filter { return recordingFilter{name: name, mu: &mu, seen: &seen} }
	var log adaptertest.Log
	s := rpcServer(t, testPipeline(log.Logger(), filter.WithFilters(rec("global"))), rec("own-1"), rec("own-2"))
	c, tr := rpcInProcess(t, s, mcp.LATEST_PROTOCOL_VERSION)
	log.Records(t)
	for _, rc := range []adaptertest.RPCCase{
		{Kind: adaptertest.KindResource, Target: "file:///internal.txt"},
		{Kind: adaptertest.KindResource, Target: "orders://ord_panic"},
		{Kind: adaptertest.KindPrompt, Target: "prompt_internal"},
		{Kind: adaptertest.KindCompletion, Target: "greet", Args: map[string]string{"name": "fail"}},
	} {
		rpcRequest(t, c, tr, rc)
	}
	want := []string{
		"global:resources/read:file:///internal.txt",
		"global:resources/read:orders://ord_panic",
		"global:prompts/get:prompt_internal",
		"own-1:completion/complete:greet", "own-2:completion/complete:greet", "global:completion/complete:greet",
	}
	if !slices.Equal(seen, want) {
		t.Errorf("filters ran\n%q\nwant\n%q", seen, want)
	}
	if recs := log.Records(t); len(recs) != 4 {
		t.Errorf("%d records, want one per failure: %v", len(recs), recs)
	}
}

// TestRPCBare shows what the SDK alone sends for a resource that fails: the
// raw text of the error, secret included.
func TestRPCBare(t *testing.T) {
	s := server.NewMCPServer("bare", "1.0.0", server.WithResourceCapabilities(false, false))
	s.AddResource(mcp.NewResource("file:///internal.txt", "internal"), resourceHandler(adaptertest.Resources()[1]))
	c, rec := rpcInProcess(t, s, mcp.LATEST_PROTOCOL_VERSION)
	r := rpcRequest(t, c, rec, adaptertest.RPCCase{Kind: adaptertest.KindResource, Target: "file:///internal.txt"})
	if r.Err == nil || !strings.Contains(r.Err.Message, "password="+adaptertest.Canary) {
		t.Errorf("the SDK alone sent %+v; expected it to leak the canary (has the SDK changed?)", r.Err)
	}
}

// TestCompletionWithoutInstall checks that a completion provider wrapped on
// a server without mcperr changes nothing: the client receives what the
// bare SDK sends, and the first completion writes one ERROR record to
// slog.Default saying that mcperr is not installed.
func TestCompletionWithoutInstall(t *testing.T) {
	var log adaptertest.Log
	useDefaultLogger(t, log.Logger())
	wrapped := server.NewMCPServer("rpc", "1.0.0", server.WithCompletions(),
		server.WithPromptCompletionProvider(mcpgo.WrapPromptCompletion(tableCompletion{})))
	bare := server.NewMCPServer("rpc", "1.0.0", server.WithCompletions(),
		server.WithPromptCompletionProvider(tableCompletion{}))
	c, rec := rpcInProcess(t, wrapped, mcp.LATEST_PROTOCOL_VERSION)
	b, brec := rpcInProcess(t, bare, mcp.LATEST_PROTOCOL_VERSION)
	first := true
	for _, rc := range adaptertest.RPCCases() {
		if rc.Kind != adaptertest.KindCompletion || strings.HasSuffix(rc.Name, ": panic") {
			continue // a panic reaches the caller in process, with or without the wrapper
		}
		t.Run(rc.Name, func(t *testing.T) {
			log.Records(t)
			if got, want := rpcRequest(t, c, rec, rc), rpcRequest(t, b, brec, rc); string(got.Raw) != string(want.Raw) {
				t.Errorf("sent %s, the bare SDK sends %s", got.Raw, want.Raw)
			}
			recs, wantRecs := log.Records(t), 0
			if first {
				first, wantRecs = false, 1
			}
			if len(recs) != wantRecs || wantRecs == 1 && !strings.Contains(fmt.Sprint(recs[0]["msg"]), "without mcperr installed") {
				t.Errorf("records %v, want %d saying that mcperr is not installed", recs, wantRecs)
			}
		})
	}
}

// TestCompletionDefinitionErrors checks what the completion wrappers
// refuse, at start-up, with a panic, as regexp.MustCompile does.
func TestCompletionDefinitionErrors(t *testing.T) {
	for name, f := range map[string]func(){
		"nil prompt provider":   func() { mcpgo.WrapPromptCompletion(nil) },
		"nil resource provider": func() { mcpgo.WrapResourceCompletion(nil) },
		"nil filter":            func() { mcpgo.WrapPromptCompletion(tableCompletion{}, nil) },
		"nil resource filter":   func() { mcpgo.WrapResourceCompletion(cityCompletion{}, filter.Catch[error](nil)) },
	} {
		func() {
			defer func() {
				var de *codes.DefinitionError
				if err, _ := recover().(error); !errors.As(err, &de) || de.Mistake != codes.NilValue {
					t.Errorf("%s: recovered %v, want a NIL_VALUE definition error", name, err)
				}
			}()
			f()
		}()
	}
}
