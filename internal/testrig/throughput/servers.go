package throughput

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"

	mcpgomcp "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/toolerr"
)

// orderIn is the input of every tool of the go-sdk server.
type orderIn struct {
	ID string `json:"id" jsonschema:"the order id"`
}

// goSDKServer builds the go-sdk server of cfg: the four workload tools,
// with mcperr installed when cfg.Mcperr is set, and with a minimal recover
// middleware and the shaped tools when it is not.
func goSDKServer(cfg Config, p *filter.Pipeline) (http.Handler, error) {
	s := mcp.NewServer(&mcp.Implementation{Name: "throughput", Version: "1.0.0"}, nil)
	if cfg.Mcperr {
		if err := gosdk.Install(s, p); err != nil {
			return nil, err
		}
	} else {
		s.AddReceivingMiddleware(recoverMiddleware)
		addShapedGoSDK(s, p)
	}
	mcp.AddTool(s, &mcp.Tool{Name: string(Success)}, func(context.Context, *mcp.CallToolRequest, orderIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: SuccessText}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: string(ToolError)}, func(context.Context, *mcp.CallToolRequest, orderIn) (*mcp.CallToolResult, any, error) {
		if cfg.Mcperr {
			return nil, nil, toolerr.New(ToolErrorText)
		}
		var res mcp.CallToolResult
		//lint:ignore ST1005 the text is the sentence the model reads, as toolerr.New's is.
		res.SetError(errors.New(ToolErrorText))
		return &res, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: string(Masked)}, func(context.Context, *mcp.CallToolRequest, orderIn) (*mcp.CallToolResult, any, error) {
		return nil, nil, errSecret
	})
	var n atomic.Int64
	mcp.AddTool(s, &mcp.Tool{Name: string(Panic10)}, func(context.Context, *mcp.CallToolRequest, orderIn) (*mcp.CallToolResult, any, error) {
		if n.Add(1)%10 == 0 {
			panic("index out of range")
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: SuccessText}}}, nil, nil
	})
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil), nil
}

// recoverMiddleware is the least a bare go-sdk server needs to survive a
// panicking handler: it answers the call with a JSON-RPC error.
func recoverMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		defer func() {
			if v := recover(); v != nil {
				res, err = nil, fmt.Errorf("panic in %s: %v", method, v)
			}
		}()
		return next(ctx, method, req)
	}
}

// mcpGoServer builds the mcp-go server of cfg: the four workload tools,
// with mcperr installed when cfg.Mcperr is set, and with
// server.WithRecovery and the shaped tools when it is not.
func mcpGoServer(cfg Config, p *filter.Pipeline) (http.Handler, error) {
	var opts []mcpgoserver.ServerOption
	if !cfg.Mcperr {
		opts = append(opts, mcpgoserver.WithRecovery())
	}
	s := mcpgoserver.NewMCPServer("throughput", "1.0.0", opts...)
	if cfg.Mcperr {
		if err := mcpgo.Install(s, p); err != nil {
			return nil, err
		}
	}
	tool := func(name Workload) mcpgomcp.Tool {
		return mcpgomcp.NewTool(string(name), mcpgomcp.WithString("id", mcpgomcp.Required(), mcpgomcp.Description("the order id")))
	}
	s.AddTool(tool(Success), func(context.Context, mcpgomcp.CallToolRequest) (*mcpgomcp.CallToolResult, error) {
		return mcpgomcp.NewToolResultText(SuccessText), nil
	})
	s.AddTool(tool(ToolError), func(context.Context, mcpgomcp.CallToolRequest) (*mcpgomcp.CallToolResult, error) {
		if cfg.Mcperr {
			return nil, toolerr.New(ToolErrorText)
		}
		return mcpgomcp.NewToolResultError(ToolErrorText), nil
	})
	s.AddTool(tool(Masked), func(context.Context, mcpgomcp.CallToolRequest) (*mcpgomcp.CallToolResult, error) {
		return nil, errSecret
	})
	var n atomic.Int64
	s.AddTool(tool(Panic10), func(context.Context, mcpgomcp.CallToolRequest) (*mcpgomcp.CallToolResult, error) {
		if n.Add(1)%10 == 0 {
			panic("index out of range")
		}
		return mcpgomcp.NewToolResultText(SuccessText), nil
	})
	if !cfg.Mcperr {
		addShapedMCPGo(s, p, tool)
	}
	return mcpgoserver.NewStreamableHTTPServer(s), nil
}

// goSDKText joins the text blocks of a go-sdk result.
func goSDKText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// mcpGoText joins the text blocks of an mcp-go result.
func mcpGoText(res *mcpgomcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(mcpgomcp.TextContent); ok {
			b.WriteString(t.Text)
			b.WriteByte('\n')
		}
	}
	return b.String()
}
