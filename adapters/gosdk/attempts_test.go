package gosdk_test

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/gosdkcompat"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

// TestRetriedAttemptsKeepTheProtocol: a call retried on the server is one
// request for the client. The progress it receives for the request never
// goes back (a later attempt runs without the progress token, so the
// handler's own count, which starts again, is not sent), and each attempt
// reads the arguments the client sent, whatever an earlier one did to the
// request.
func TestRetriedAttemptsKeepTheProtocol(t *testing.T) {
	var log adaptertest.Log
	p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithRetries(2),
		filter.WithFilters(filter.Is(errBusy, filter.Response{Code: codes.Unavailable, Message: "The replica is busy."})))
	must(t, err)
	s := mcp.NewServer(&mcp.Implementation{Name: "attempts", Version: "1.0.0"}, nil)
	must(t, gosdk.Install(s, p))
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true}
	var mu sync.Mutex
	attempts := map[string]int{}
	var seen []string // the arguments each attempt read
	attempt := func(req *mcp.CallToolRequest) int {
		mu.Lock()
		defer mu.Unlock()
		attempts[req.Params.Name]++
		seen = append(seen, string(req.Params.Arguments))
		return attempts[req.Params.Name]
	}
	progress := func(ctx context.Context, req *mcp.CallToolRequest) {
		if tok := req.Params.GetProgressToken(); tok != nil {
			for _, n := range []float64{1, 2} {
				must(t, req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: n, Total: 2}))
			}
		}
	}
	s.AddTool(&mcp.Tool{Name: "scan", Annotations: readOnly, InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			n := attempt(req)
			progress(ctx, req)
			if n == 1 {
				req.Params.Arguments = json.RawMessage(`{"poison":true}`) // what the attempt did to the request
				return nil, errBusy
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
		})

	var got []float64
	c := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0.0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			if req.Params.ProgressToken == "tok" {
				mu.Lock()
				got = append(got, req.Params.Progress)
				mu.Unlock()
			}
		}})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	must(t, err)
	cs, err := c.Connect(context.Background(), ct, nil)
	must(t, err)
	t.Cleanup(func() { cs.Close(); ss.Wait() })

	params := &mcp.CallToolParams{Name: "scan", Arguments: map[string]any{"id": "u1"}}
	params.SetProgressToken("tok")
	res, err := cs.CallTool(context.Background(), params)
	must(t, err)
	if res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != `{"id":"u1"}` {
		t.Fatalf("the retried call answered %+v, want the client's arguments as the second attempt read them", res.Content)
	}
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n >= 2 {
			break
		}
	}
	time.Sleep(100 * time.Millisecond) // a notification sent late would come now
	mu.Lock()
	defer mu.Unlock()
	if attempts["scan"] != 2 || !slices.Equal(seen, []string{`{"id":"u1"}`, `{"id":"u1"}`}) {
		t.Errorf("%d attempts read %q, want 2 reading the client's arguments", attempts["scan"], seen)
	}
	if !gosdkcompat.CanChooseVersion() {
		return // go-sdk before v1.8.0: its in-memory client receives no progress here, bare or not
	}
	if !slices.Equal(got, []float64{1, 2}) {
		t.Errorf("the client received progress %v for the request, want [1 2]: never decreasing", got)
	}
}
