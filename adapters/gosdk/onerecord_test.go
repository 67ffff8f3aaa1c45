package gosdk_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/testrig/adaptertest"
)

// TestOneRecordPerFailure checks that one failing call writes exactly one
// record, in report-only mode and enforcing, whatever combination of entry
// points serves it (the middleware alone, AddTool, Wrap) and however the
// failure fights back: an error whose Error method panics, which the SDK
// calls once mcperr has passed the error on, and a hand-built error result
// without content.
func TestOneRecordPerFailure(t *testing.T) {
	var typedNil *adaptertest.DerefError
	failures := map[string]mcp.ToolHandlerFor[map[string]any, any]{
		"error whose Error panics": func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
			return nil, nil, typedNil
		},
		"hand-built result without content": func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{IsError: true}, nil, nil
		},
	}
	for name, h := range failures {
		for _, reportOnly := range []bool{true, false} {
			for _, way := range []string{viaMiddleware, viaAddTool, viaWrap} {
				t.Run(name+"/"+way+"/"+map[bool]string{true: "report-only", false: "enforcing"}[reportOnly], func(t *testing.T) {
					if reportOnly && name == "error whose Error panics" && way == viaMiddleware {
						t.Skip("as without mcperr: the SDK itself calls Error and panics, and nothing of mcperr ran before")
					}
					var log adaptertest.Log
					p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithReportOnly(reportOnly), filter.WithHandBuilt(filter.ReportHandBuilt))
					must(t, err)
					s := mcp.NewServer(&mcp.Implementation{Name: "one", Version: "1.0.0"}, nil)
					must(t, gosdk.Install(s, p))
					// The server's own recovery, outermost, as a server in
					// report-only mode keeps it.
					s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
						return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
							defer func() {
								if v := recover(); v != nil {
									res, err = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "recovered"}}}, nil
								}
							}()
							return next(ctx, method, req)
						}
					})
					switch way {
					case viaMiddleware:
						mcp.AddTool(s, &mcp.Tool{Name: "x"}, h)
					case viaAddTool:
						must(t, gosdk.AddTool(s, &mcp.Tool{Name: "x"}, h))
					case viaWrap:
						mcp.AddTool(s, &mcp.Tool{Name: "x"}, gosdk.Wrap(h))
					}
					r, _ := call(context.Background(), connect(t, s, ""), adaptertest.Case{Tool: "x"})
					if !r.IsError && r.ProtocolErr == nil {
						t.Errorf("got %s, want a failure", r.Raw)
					}
					if recs := log.Records(t); len(recs) != 1 {
						t.Errorf("records %v, want exactly one", recs)
					}
				})
			}
		}
	}
}
