package gosdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

// The ways a test server puts mcperr in front of its resources, prompts and
// completions, all added with the SDK's own methods.
const (
	rpcInstall  = "Install"         // Install with the test's pipeline
	rpcDefaults = "Install(s, nil)" // Install with the default configuration, which logs to slog.Default
	rpcBare     = "bare"            // the SDK alone
)

// rpcServer returns a server with the table's resources, templates, prompts
// and completion handler, added with the SDK's own methods, and mcperr put
// in front of them the way way says.
func rpcServer(t testing.TB, way string, p *filter.Pipeline) *mcp.Server {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "rpc", Version: "1.0.0"}, &mcp.ServerOptions{
		CompletionHandler: func(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			values, err := adaptertest.Complete(ctx, req.Params.Argument.Value)
			if err != nil {
				return nil, err
			}
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values}}, nil
		},
	})
	switch way {
	case rpcInstall:
		must(t, gosdk.Install(s, p))
	case rpcDefaults:
		must(t, gosdk.Install(s, defaults()))
	}
	for _, r := range adaptertest.Resources() {
		if r.Template {
			s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: r.URI, Name: r.URI}, resourceHandler(r))
		} else {
			s.AddResource(&mcp.Resource{URI: r.URI, Name: r.URI}, resourceHandler(r))
		}
	}
	for _, pr := range adaptertest.Prompts() {
		def := &mcp.Prompt{Name: pr.Name}
		for _, a := range pr.Arguments {
			def.Arguments = append(def.Arguments, &mcp.PromptArgument{Name: a})
		}
		s.AddPrompt(def, promptHandler(pr))
	}
	return s
}

// resourceHandler runs a table resource as a go-sdk resource handler.
func resourceHandler(r adaptertest.Resource) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		text, err := r.Do(ctx, req.Params.URI)
		if err != nil {
			return nil, err
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: text}}}, nil
	}
}

// promptHandler runs a table prompt as a go-sdk prompt handler.
func promptHandler(p adaptertest.Prompt) mcp.PromptHandler {
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		text, err := p.Do(ctx, req.Params.Arguments)
		if err != nil {
			return nil, err
		}
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}}}, nil
	}
}

// rpcRequest sends c through cs and returns what the client received.
func rpcRequest(ctx context.Context, cs *mcp.ClientSession, c adaptertest.RPCCase) adaptertest.RPCResult {
	var (
		res  any
		text string
		err  error
	)
	switch c.Kind {
	case adaptertest.KindResource:
		var r *mcp.ReadResourceResult
		if r, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: c.Target}); err == nil && len(r.Contents) > 0 {
			res, text = r, r.Contents[0].Text
		}
	case adaptertest.KindPrompt:
		var r *mcp.GetPromptResult
		if r, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: c.Target, Arguments: c.Args}); err == nil && len(r.Messages) > 0 {
			res = r
			if tc, ok := r.Messages[0].Content.(*mcp.TextContent); ok {
				text = tc.Text
			}
		}
	case adaptertest.KindCompletion:
		var r *mcp.CompleteResult
		if r, err = cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: c.Target},
			Argument: mcp.CompleteParamsArgument{Name: "name", Value: c.Args["name"]}}); err == nil && len(r.Completion.Values) > 0 {
			res, text = r, r.Completion.Values[0]
		}
	}
	if err != nil {
		var we *jsonrpc.Error
		if !errors.As(err, &we) {
			return adaptertest.RPCResult{Err: &adaptertest.WireError{Message: err.Error()}, Raw: []byte(err.Error())}
		}
		raw, _ := json.Marshal(we)
		return adaptertest.RPCResult{Err: &adaptertest.WireError{Code: we.Code, Message: we.Message, Data: we.Data}, Raw: append(raw, err.Error()...)}
	}
	raw, _ := json.Marshal(res)
	return adaptertest.RPCResult{Text: text, Raw: raw}
}

// negotiated returns the protocol version cs negotiated, or asked for.
func negotiated(cs *mcp.ClientSession, asked string) string {
	if r := cs.InitializeResult(); r != nil && r.ProtocolVersion != "" {
		return r.ProtocolVersion
	}
	return asked
}

// runRPCTable sends every case of the table through cs and checks what the
// client and the log received.
func runRPCTable(t *testing.T, cs *mcp.ClientSession, proto string, log recorder, defaults bool) {
	t.Helper()
	for _, c := range adaptertest.RPCCases() {
		t.Run(c.Name, func(t *testing.T) {
			if _, builtin := (*codes.Registry)(nil).Lookup(c.Want.EnvCode); defaults && c.Want.EnvCode != "" && !builtin {
				t.Skip("the default configuration does not know the table's own codes")
			}
			log.Records(t)
			r := rpcRequest(context.Background(), cs, c)
			adaptertest.CheckRPC(t, c, proto, r, log.Records(t))
		})
	}
}

// TestRPCTable runs the resource, prompt and completion table through the
// SDK's client, in memory and over streamable HTTP, with the test's
// pipeline and with the default configuration, on both protocol revisions.
func TestRPCTable(t *testing.T) {
	transports := map[string]func(testing.TB, *mcp.Server, string) *mcp.ClientSession{
		"in-memory": connect, "streamable HTTP": connectHTTP,
	}
	for tname, dial := range transports {
		for _, way := range []string{rpcInstall, rpcDefaults} {
			for _, proto := range protocols {
				t.Run(tname+"/"+way+"/"+proto.name, func(t *testing.T) {
					var log adaptertest.Log
					if way == rpcDefaults {
						old := slog.Default()
						slog.SetDefault(log.Logger())
						t.Cleanup(func() { slog.SetDefault(old) })
					}
					cs := dial(t, rpcServer(t, way, newPipeline(t, &log)), proto.version)
					runRPCTable(t, cs, negotiated(cs, proto.version), &log, way == rpcDefaults)
				})
			}
		}
	}
}

// connectHTTP connects a new client to s over streamable HTTP on loopback.
func connectHTTP(t testing.TB, s *mcp.Server, version string) *mcp.ClientSession {
	t.Helper()
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(srv.Close)
	c := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0.0"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL}, sessionOptions(t, version))
	must(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestRPCBare shows what the SDK alone sends for a resource that fails: the
// raw text of the error, secret included. (A panic would end the test
// binary: the SDK alone does not recover.)
func TestRPCBare(t *testing.T) {
	cs := connect(t, rpcServer(t, rpcBare, nil), "")
	r := rpcRequest(context.Background(), cs, adaptertest.RPCCase{Kind: adaptertest.KindResource, Target: "file:///internal.txt"})
	if r.Err == nil {
		t.Fatalf("want an error, got %s", r.Raw)
	}
	if want := "password=" + adaptertest.Canary; !strings.Contains(r.Err.Message, want) {
		t.Errorf("the SDK alone sent %q; expected it to leak %q (has the SDK changed?)", r.Err.Message, want)
	}
}

// recordingFilter records its name, the method and the target each time it
// sees an error, and passes the error on.
type recordingFilter struct {
	name string
	mu   *sync.Mutex
	seen *[]string
}

func (f recordingFilter) Catch(_ context.Context, call filter.Call, _ error) (*filter.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	target := call.Resource
	if call.Prompt != "" {
		target = call.Prompt
	}
	*f.seen = append(*f.seen, f.name+":"+call.Method+":"+target)
	return nil, nil
}

// TestRPCFilterOrder checks that the global filters run for every failure
// of a resource, a resource template, a prompt and a completion, in order,
// before the built-in mapping, and see the method and the target.
func TestRPCFilterOrder(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	rec := func(name string) filter.Filter { return recordingFilter{name: name, mu: &mu, seen: &seen} }
	var log adaptertest.Log
	p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithRegistry(adaptertest.Registry()),
		filter.WithFilters(rec("global-1"), rec("global-2")))
	must(t, err)
	cs := connect(t, rpcServer(t, rpcInstall, p), "")
	ctx := context.Background()
	for _, c := range []adaptertest.RPCCase{
		{Kind: adaptertest.KindResource, Target: "file:///internal.txt"},
		{Kind: adaptertest.KindResource, Target: "orders://ord_panic"},
		{Kind: adaptertest.KindPrompt, Target: "prompt_internal"},
		{Kind: adaptertest.KindCompletion, Target: "greet", Args: map[string]string{"name": "fail"}},
	} {
		rpcRequest(ctx, cs, c)
	}
	want := []string{
		"global-1:resources/read:file:///internal.txt", "global-2:resources/read:file:///internal.txt",
		"global-1:resources/read:orders://ord_panic", "global-2:resources/read:orders://ord_panic",
		"global-1:prompts/get:prompt_internal", "global-2:prompts/get:prompt_internal",
		"global-1:completion/complete:greet", "global-2:completion/complete:greet",
	}
	if !slices.Equal(seen, want) {
		t.Errorf("filters ran\n%q\nwant\n%q", seen, want)
	}
	if recs := log.Records(t); len(recs) != 4 {
		t.Errorf("%d records, want one per failure: %v", len(recs), recs)
	}
}

// TestRPCFilterAnswers checks that a global filter can answer for the
// failures of a resource, with the JSON-RPC code that follows from its
// code's category: -32603 for a server error.
func TestRPCFilterAnswers(t *testing.T) {
	var log adaptertest.Log
	offline := filter.Catch(func(_ context.Context, call filter.Call, _ error) (*filter.Response, error) {
		if call.Method != "resources/read" || call.Resource != "archive://2019" {
			return nil, nil
		}
		return &filter.Response{Code: codes.Unavailable, Message: "The archive is offline until 06:00 UTC."}, nil
	})
	p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithFilters(offline))
	must(t, err)
	s := mcp.NewServer(&mcp.Implementation{Name: "rpc", Version: "1.0.0"}, nil)
	must(t, gosdk.Install(s, p))
	s.AddResource(&mcp.Resource{URI: "archive://2019", Name: "2019"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return nil, errors.New("tape drive 3: " + adaptertest.Canary)
		})
	cs := connect(t, s, "")
	r := rpcRequest(context.Background(), cs, adaptertest.RPCCase{Kind: adaptertest.KindResource, Target: "archive://2019"})
	if r.Err == nil || r.Err.Code != adaptertest.CodeInternalError || r.Err.Message != "The archive is offline until 06:00 UTC." {
		t.Fatalf("got %+v", r.Err)
	}
	if strings.Contains(string(r.Raw), adaptertest.Canary) {
		t.Errorf("canary reached the client: %s", r.Raw)
	}
	var data map[string]any
	if err := json.Unmarshal(r.Err.Data, &data); err != nil || data["code"] != string(codes.Unavailable) {
		t.Errorf("data %s, want the envelope of %s", r.Err.Data, codes.Unavailable)
	}
	if recs := log.Records(t); len(recs) != 1 || recs[0]["level"] != "ERROR" {
		t.Errorf("records %v, want one ERROR record", recs)
	}
}

// TestRPCProtocolErrorPassesThrough checks that a *jsonrpc.Error a resource
// or prompt handler returns as it is reaches the client as it is.
func TestRPCProtocolErrorPassesThrough(t *testing.T) {
	var log adaptertest.Log
	s := mcp.NewServer(&mcp.Implementation{Name: "rpc", Version: "1.0.0"}, nil)
	must(t, gosdk.Install(s, newPipeline(t, &log)))
	s.AddResource(&mcp.Resource{URI: "file:///gone.txt", Name: "gone"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	})
	s.AddPrompt(&mcp.Prompt{Name: "quota"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return nil, rpcErr
	})
	cs := connect(t, s, "")
	ctx := context.Background()
	r := rpcRequest(ctx, cs, adaptertest.RPCCase{Kind: adaptertest.KindResource, Target: "file:///gone.txt"})
	want := mcp.ResourceNotFoundError("file:///gone.txt").(*jsonrpc.Error)
	if r.Err == nil || r.Err.Code != want.Code || r.Err.Message != want.Message {
		t.Errorf("resource: got %+v, want %+v", r.Err, want)
	}
	r = rpcRequest(ctx, cs, adaptertest.RPCCase{Kind: adaptertest.KindPrompt, Target: "quota"})
	if r.Err == nil || r.Err.Code != rpcErr.Code || r.Err.Message != rpcErr.Message || string(r.Err.Data) != string(rpcErr.Data) {
		t.Errorf("prompt: got %+v, want %+v", r.Err, rpcErr)
	}
	if recs := log.Records(t); len(recs) != 0 {
		t.Errorf("deliberate protocol errors were logged: %v", recs)
	}
}
