package httpfilter_test

import (
	"context"
	"strings"
	"testing"

	mcpgomcp "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/adapters/gosdk/gosdktest"
	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/adapters/mcpgo/mcpgotest"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/mcperrtest"
	"github.com/mcperr/mcperr/toolerr"
)

// TestGitHubToolErrorOverCause runs the tool a migrated server has: its own
// words, "failed to get issue", as a ToolError over go-github's error. On
// both SDKs the model reads those words, the code of the upstream's answer
// and its sentence as a hint, never the upstream's message; a 429 keeps its
// Retry-After.
func TestGitHubToolErrorOverCause(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer githubAnswer
		code   codes.Code
		hint   string
		after  float64
	}{
		{"404", githubAnswer{status: 404}, codes.NotFound, notFound("HTTP 404 Not Found"), 0},
		{"429", githubAnswer{status: 429, headers: map[string]string{"Retry-After": "30"}}, codes.RateLimited, rateLimited("HTTP 429 Too Many Requests"), 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := githubUpstream(t, tc.answer)
			getIssue := func(ctx context.Context) error {
				if _, _, err := c.Issues.Get(ctx, "acme", "app", 7); err != nil {
					return toolerr.New("failed to get issue").WithCause(err)
				}
				return nil
			}
			log := mcperrtest.NewLog(t)
			for _, sdk := range githubServers(t, log, getIssue) {
				t.Run(sdk.name, func(t *testing.T) {
					res := sdk.call(fetchArgs{})
					mcperrtest.AssertNoCanary(t, res, githubCanary)
					if !mcperrtest.AssertToolError(t, res, tc.code, "failed to get issue") {
						return
					}
					env := res.Envelope
					if len(env.Hints) == 0 || env.Hints[0] != tc.hint || !strings.Contains(res.Content[1].Text, "Hint: "+tc.hint) {
						t.Errorf("hints %q, content %q: want the filter's sentence first", env.Hints, res.Content)
					}
					if env.RetryAfterSeconds != tc.after || env.Retryable != (tc.after > 0) {
						t.Errorf("retry %v after %v, want after %v", env.Retryable, env.RetryAfterSeconds, tc.after)
					}
				})
			}
		})
	}
}

// githubServers returns a client of a go-sdk and of a mcp-go server, each
// with the tool get_issue, which fails with what work returns, and the
// go-github filters of the README.
func githubServers(t *testing.T, log *mcperrtest.Log, work func(context.Context) error) []sdkClient {
	t.Helper()
	pipeline := func() *filter.Pipeline {
		p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithFilters(githubFilters()...))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	gs := mcp.NewServer(&mcp.Implementation{Name: "issues", Version: "1.0.0"}, nil)
	if err := gosdk.Install(gs, pipeline()); err != nil {
		t.Fatal(err)
	}
	mcp.AddTool(gs, &mcp.Tool{Name: "get_issue"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		return nil, nil, work(ctx)
	})
	gc := gosdktest.Connect(t, gs)

	ms := server.NewMCPServer("issues", "1.0.0")
	if err := mcpgo.Install(ms, pipeline()); err != nil {
		t.Fatal(err)
	}
	ms.AddTool(mcpgomcp.NewTool("get_issue"), func(ctx context.Context, _ mcpgomcp.CallToolRequest) (*mcpgomcp.CallToolResult, error) {
		return nil, work(ctx)
	})
	mc := mcpgotest.Connect(t, ms)
	return []sdkClient{
		{"go-sdk", func(fetchArgs) *mcperrtest.Result { return gc.Call("get_issue", map[string]any{}) }},
		{"mcp-go", func(fetchArgs) *mcperrtest.Result { return mc.Call("get_issue", map[string]any{}) }},
	}
}
