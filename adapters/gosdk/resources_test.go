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
	"github.com/mcperr/mcperr/internal/adaptertest"
	"github.com/mcperr/mcperr/toolerr"
)

// The ways a test server puts mcperr in front of its resources and prompts.
const (
	rpcInstall    = "Install"      // Install, added with the SDK's own methods
	rpcAdded      = "Install+AddX" // Install, added with AddResource, AddResourceTemplate, AddPrompt
	rpcAddedAlone = "AddX alone"   // AddResource... without Install: the default configuration
	rpcBare       = "bare"         // the SDK alone
	rpcFiltered   = "Install+AddX+WithFilters"
)

// rpcServer returns a server with the table's resources, templates, prompts
// and completion handler, put together the way way says.
func rpcServer(t testing.TB, way string, p *filter.Pipeline, filters ...filter.Filter) *mcp.Server {
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
	if way == rpcInstall || way == rpcAdded || way == rpcFiltered {
		must(t, gosdk.Install(s, p))
	}
	add := way == rpcAdded || way == rpcAddedAlone || way == rpcFiltered
	var opts []gosdk.Option
	if way == rpcFiltered {
		opts = append(opts, gosdk.WithFilters(filters...))
	}
	for _, r := range adaptertest.Resources() {
		h := resourceHandler(r)
		switch {
		case r.Template && add:
			must(t, gosdk.AddResourceTemplate(s, &mcp.ResourceTemplate{URITemplate: r.URI, Name: r.URI}, h, opts...))
		case r.Template:
			s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: r.URI, Name: r.URI}, h)
		case add:
			must(t, gosdk.AddResource(s, &mcp.Resource{URI: r.URI, Name: r.URI}, h, opts...))
		default:
			s.AddResource(&mcp.Resource{URI: r.URI, Name: r.URI}, h)
		}
	}
	for _, pr := range adaptertest.Prompts() {
		def := &mcp.Prompt{Name: pr.Name}
		for _, a := range pr.Arguments {
			def.Arguments = append(def.Arguments, &mcp.PromptArgument{Name: a})
		}
		if add {
			must(t, gosdk.AddPrompt(s, def, promptHandler(pr), opts...))
		} else {
			s.AddPrompt(def, promptHandler(pr))
		}
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
	case filter.KindResource:
		var r *mcp.ReadResourceResult
		if r, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: c.Target}); err == nil && len(r.Contents) > 0 {
			res, text = r, r.Contents[0].Text
		}
	case filter.KindPrompt:
		var r *mcp.GetPromptResult
		if r, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: c.Target, Arguments: c.Args}); err == nil && len(r.Messages) > 0 {
			res = r
			if tc, ok := r.Messages[0].Content.(*mcp.TextContent); ok {
				text = tc.Text
			}
		}
	case filter.KindCompletion:
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
// SDK's client, in memory and over streamable HTTP, for every way of
// putting mcperr on the server and both protocol revisions.
func TestRPCTable(t *testing.T) {
	transports := map[string]func(testing.TB, *mcp.Server, string) *mcp.ClientSession{
		"in-memory": connect, "streamable HTTP": connectHTTP,
	}
	for tname, dial := range transports {
		for _, way := range []string{rpcInstall, rpcAdded, rpcAddedAlone} {
			for _, proto := range protocols {
				t.Run(tname+"/"+way+"/"+proto.name, func(t *testing.T) {
					var log adaptertest.Log
					if way == rpcAddedAlone {
						old := slog.Default()
						slog.SetDefault(log.Logger())
						t.Cleanup(func() { slog.SetDefault(old) })
					}
					cs := dial(t, rpcServer(t, way, newPipeline(t, &log)), proto.version)
					runRPCTable(t, cs, negotiated(cs, proto.version), &log, way == rpcAddedAlone)
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
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	must(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestRPCBare shows what the SDK alone sends for a resource that fails: the
// raw text of the error, secret included. (A panic would end the test
// binary: the SDK alone does not recover.)
func TestRPCBare(t *testing.T) {
	cs := connect(t, rpcServer(t, rpcBare, nil), "")
	r := rpcRequest(context.Background(), cs, adaptertest.RPCCase{Kind: filter.KindResource, Target: "file:///internal.txt"})
	if r.Err == nil {
		t.Fatalf("want an error, got %s", r.Raw)
	}
	if want := "password=" + adaptertest.Canary; !strings.Contains(r.Err.Message, want) {
		t.Errorf("the SDK alone sent %q; expected it to leak %q (has the SDK changed?)", r.Err.Message, want)
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
	*f.seen = append(*f.seen, f.name+":"+call.Kind.String()+":"+call.Target())
	return nil, nil
}

// TestRPCFilterOrder checks that the filters given to AddResource,
// AddResourceTemplate and AddPrompt run first, in order, then the global
// ones, then the built-in mapping.
func TestRPCFilterOrder(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	rec := func(name string) filter.Filter { return recordingFilter{name: name, mu: &mu, seen: &seen} }
	var log adaptertest.Log
	p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithRegistry(adaptertest.Registry()), filter.WithFilters(rec("global")))
	must(t, err)
	cs := connect(t, rpcServer(t, rpcFiltered, p, rec("own-1"), rec("own-2")), "")
	ctx := context.Background()
	for _, c := range []adaptertest.RPCCase{
		{Kind: filter.KindResource, Target: "file:///internal.txt"},
		{Kind: filter.KindResource, Target: "orders://ord_panic"},
		{Kind: filter.KindPrompt, Target: "prompt_internal"},
		{Kind: filter.KindCompletion, Target: "greet", Args: map[string]string{"name": "fail"}},
	} {
		rpcRequest(ctx, cs, c)
	}
	want := []string{
		"own-1:resource:file:///internal.txt", "own-2:resource:file:///internal.txt", "global:resource:file:///internal.txt",
		"own-1:resource:orders://ord_panic", "own-2:resource:orders://ord_panic", "global:resource:orders://ord_panic",
		"own-1:prompt:prompt_internal", "own-2:prompt:prompt_internal", "global:prompt:prompt_internal",
		"global:completion:greet", // the completion handler is the server's own: global filters only
	}
	if !slices.Equal(seen, want) {
		t.Errorf("filters ran\n%q\nwant\n%q", seen, want)
	}
	if recs := log.Records(t); len(recs) != 4 {
		t.Errorf("%d records, want one per failure: %v", len(recs), recs)
	}
}

// TestRPCFilterAnswers checks that a resource's own filter can answer for
// its failures, with the JSON-RPC code that follows from its code.
func TestRPCFilterAnswers(t *testing.T) {
	var log adaptertest.Log
	s := mcp.NewServer(&mcp.Implementation{Name: "rpc", Version: "1.0.0"}, nil)
	must(t, gosdk.Install(s, newPipeline(t, &log)))
	offline := filter.Func(func(context.Context, filter.Call, error) (*filter.Response, error) {
		return &filter.Response{Code: codes.Unavailable, Message: "The archive is offline until 06:00 UTC."}, nil
	})
	must(t, gosdk.AddResource(s, &mcp.Resource{URI: "archive://2019", Name: "2019"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return nil, errors.New("tape drive 3: " + adaptertest.Canary)
		}, gosdk.WithFilters(offline)))
	cs := connect(t, s, "")
	r := rpcRequest(context.Background(), cs, adaptertest.RPCCase{Kind: filter.KindResource, Target: "archive://2019"})
	if r.Err == nil || r.Err.Code != filter.CodeInternalError || r.Err.Message != "The archive is offline until 06:00 UTC." {
		t.Fatalf("got %+v", r.Err)
	}
	if strings.Contains(string(r.Raw), adaptertest.Canary) {
		t.Errorf("canary reached the client: %s", r.Raw)
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
	must(t, gosdk.AddPrompt(s, &mcp.Prompt{Name: "quota"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return nil, rpcErr
	}))
	cs := connect(t, s, "")
	ctx := context.Background()
	r := rpcRequest(ctx, cs, adaptertest.RPCCase{Kind: filter.KindResource, Target: "file:///gone.txt"})
	want := mcp.ResourceNotFoundError("file:///gone.txt").(*jsonrpc.Error)
	if r.Err == nil || r.Err.Code != want.Code || r.Err.Message != want.Message {
		t.Errorf("resource: got %+v, want %+v", r.Err, want)
	}
	r = rpcRequest(ctx, cs, adaptertest.RPCCase{Kind: filter.KindPrompt, Target: "quota"})
	if r.Err == nil || r.Err.Code != rpcErr.Code || r.Err.Message != rpcErr.Message || string(r.Err.Data) != string(rpcErr.Data) {
		t.Errorf("prompt: got %+v, want %+v", r.Err, rpcErr)
	}
	if recs := log.Records(t); len(recs) != 0 {
		t.Errorf("deliberate protocol errors were logged: %v", recs)
	}
}

// TestAddRPCDefinitionErrors checks what AddResource, AddResourceTemplate
// and AddPrompt refuse.
func TestAddRPCDefinitionErrors(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "rpc", Version: "1.0.0"}, nil)
	rh := func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) { return nil, nil }
	ph := func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) { return nil, nil }
	for _, c := range []struct {
		name string
		err  error
		code codes.Code
	}{
		{"nil server", gosdk.AddResource(nil, &mcp.Resource{URI: "file:///a"}, rh), codes.InvalidOption},
		{"nil resource", gosdk.AddResource(s, nil, rh), codes.InvalidResource},
		{"no URI", gosdk.AddResource(s, &mcp.Resource{}, rh), codes.InvalidResource},
		{"bad URI", gosdk.AddResource(s, &mcp.Resource{URI: "file://%zz"}, rh), codes.InvalidResource},
		{"nil handler", gosdk.AddResource(s, &mcp.Resource{URI: "file:///a"}, nil), codes.NilHandler},
		{"nil filter", gosdk.AddResource(s, &mcp.Resource{URI: "file:///a"}, rh, gosdk.WithFilters(nil)), codes.NilFilter},
		{"argument check", gosdk.AddResource(s, &mcp.Resource{URI: "file:///a"}, rh, gosdk.WithoutArgumentCheck()), codes.InvalidOption},
		{"bad template", gosdk.AddResourceTemplate(s, &mcp.ResourceTemplate{URITemplate: "orders://{id"}, rh), codes.InvalidResource},
		{"nil template", gosdk.AddResourceTemplate(s, nil, rh), codes.InvalidResource},
		{"nil prompt", gosdk.AddPrompt(s, nil, ph), codes.InvalidPrompt},
		{"no name", gosdk.AddPrompt(s, &mcp.Prompt{}, ph), codes.InvalidPrompt},
		{"nil prompt handler", gosdk.AddPrompt(s, &mcp.Prompt{Name: "p"}, nil), codes.NilHandler},
	} {
		var de *toolerr.DefinitionError
		if !errors.As(c.err, &de) || de.Code != c.code {
			t.Errorf("%s: got %v, want a definition error %s", c.name, c.err, c.code)
		}
	}
	if err := gosdk.AddResourceTemplate(s, &mcp.ResourceTemplate{URITemplate: "orders://{id}"}, rh); err != nil {
		t.Errorf("a valid template: %v", err)
	}
}
