package mcpgo_test

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

// TestRetriedAttemptsKeepTheProtocol: a call retried on the server is one
// request for the client. The progress it receives for the request never
// goes back (a later attempt runs without the progress token, so the
// handler's own count, which starts again, is not sent), and each attempt
// reads the arguments the client sent, although mcp-go hands every attempt
// the same map and the first changed it.
func TestRetriedAttemptsKeepTheProtocol(t *testing.T) {
	var log adaptertest.Log
	p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithRetries(2),
		filter.WithFilters(filter.Is(errBusy, filter.Response{Code: codes.Unavailable, Message: "The replica is busy."})))
	if err != nil {
		t.Fatal(err)
	}
	s := server.NewMCPServer("attempts", "1.0.0")
	if err := mcpgo.Install(s, p); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []string // the arguments each attempt read
	s.AddTool(mcp.NewTool("scan", mcp.WithReadOnlyHintAnnotation(true)), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args := req.GetArguments()
		b, _ := json.Marshal(args)
		mu.Lock()
		seen = append(seen, string(b))
		n := len(seen)
		mu.Unlock()
		if meta := req.Params.Meta; meta != nil && meta.ProgressToken != nil {
			for _, x := range []float64{1, 2} {
				if err := server.ServerFromContext(ctx).SendNotificationToClient(ctx, "notifications/progress",
					map[string]any{"progressToken": meta.ProgressToken, "progress": x, "total": 2}); err != nil {
					t.Error(err)
				}
			}
		}
		if n == 1 { // what the attempt did to the request
			delete(args, "id")
			args["poison"] = true
			return nil, errBusy
		}
		return mcp.NewToolResultText(string(b)), nil
	})
	c := inProcess(t, s, mcp.LATEST_PROTOCOL_VERSION)
	var got []float64
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if f := n.Params.AdditionalFields; n.Method == "notifications/progress" && f["progressToken"] == "tok" {
			x, _ := f["progress"].(float64)
			mu.Lock()
			got = append(got, x)
			mu.Unlock()
		}
	})

	var req mcp.CallToolRequest
	req.Params.Name, req.Params.Arguments = "scan", map[string]any{"id": "u1"}
	req.Params.Meta = &mcp.Meta{ProgressToken: "tok"}
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if text, _ := res.Content[0].(mcp.TextContent); res.IsError || text.Text != `{"id":"u1"}` {
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
	if !slices.Equal(seen, []string{`{"id":"u1"}`, `{"id":"u1"}`}) {
		t.Errorf("the attempts read %q, want two reading the client's arguments", seen)
	}
	if !slices.Equal(got, []float64{1, 2}) {
		t.Errorf("the client received progress %v for the request, want [1 2]: never decreasing", got)
	}
}
