package gosdk_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/domain"
)

// printRPCError prints the JSON-RPC error a client received.
func printRPCError(err error) {
	var we *jsonrpc.Error
	if !errors.As(err, &we) {
		fmt.Println("client: not a JSON-RPC error:", err)
		return
	}
	fmt.Printf("client: %d %s\nclient: data %s\n", we.Code, we.Message, exampleStable(string(we.Data)))
}

// Install serves the resources a server adds with the SDK's own
// AddResource: a failed read is a JSON-RPC error with the envelope as its
// data, masked behind a ref for a plain error.
func ExampleInstall_resource() {
	s := mcp.NewServer(&mcp.Implementation{Name: "files", Version: "1.0.0"}, nil)
	if err := gosdk.Install(s, examplePipeline()); err != nil {
		panic(err)
	}
	s.AddResource(&mcp.Resource{URI: "db://orders", Name: "orders"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return nil, errors.New("connection refused by 10.0.0.12:5432")
		})
	_, err := exampleClient(s).ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "db://orders"})
	printRPCError(err)
	// Output:
	// level=ERROR msg="resource read failed" resource=db://orders code=INTERNAL_ERROR ref=5f0c2a9e81d34b67 request_id=UUID-v7 error="connection refused by 10.0.0.12:5432"
	// client: -32603 Internal error in resource "db://orders" (ref: 5f0c2a9e81d34b67).
	// client: data {"version":1,"error":true,"code":"INTERNAL_ERROR","category":"server","message":"Internal error in resource \"db://orders\" (ref: 5f0c2a9e81d34b67).","retryable":false,"timestamp":"RFC3339-UTC","requestId":"UUID-v7","ref":"5f0c2a9e81d34b67"}
}

// A resource template added with the SDK's own AddResourceTemplate: a
// NotFound is the client's error, with the URI in the envelope, where the
// MCP specification puts it.
func ExampleInstall_resourceTemplate() {
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1.0.0"}, nil)
	if err := gosdk.Install(s, examplePipeline()); err != nil {
		panic(err)
	}
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "orders://{id}", Name: "order"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return nil, domain.NewNotFound("Order", strings.TrimPrefix(req.Params.URI, "orders://"))
		})
	cs := exampleClient(s)
	_, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "orders://ord_404"})
	fmt.Println("protocol:", cs.InitializeResult().ProtocolVersion)
	printRPCError(err) // -32602 on protocol 2026-07-28; -32002 before
	// Output:
	// level=INFO msg="resource read failed" resource=orders://ord_404 code=NOT_FOUND request_id=UUID-v7 error="Order not found: ord_404"
	// protocol: 2026-07-28
	// client: -32602 Order not found: ord_404
	// client: data {"uri":"orders://ord_404","version":1,"error":true,"code":"NOT_FOUND","category":"client","message":"Order not found: ord_404","details":{"resourceId":"ord_404","resourceType":"Order"},"retryable":false,"timestamp":"RFC3339-UTC","requestId":"UUID-v7"}
}

// A prompt added with the SDK's own AddPrompt: its panic is recovered, the
// server goes on, and the client reads only a ref.
func ExampleInstall_prompt() {
	s := mcp.NewServer(&mcp.Implementation{Name: "prompts", Version: "1.0.0"}, nil)
	if err := gosdk.Install(s, examplePipeline()); err != nil {
		panic(err)
	}
	s.AddPrompt(&mcp.Prompt{Name: "summarize_order"},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			var cache map[string]string
			//lint:ignore SA5000 the bug is the point: the prompt panics
			cache["ord_1"] = "x" // a bug: the map is nil
			return nil, nil
		})
	cs := exampleClient(s)
	_, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "summarize_order"})
	printRPCError(err)
	// Output:
	// level=ERROR msg="prompt get failed" prompt=summarize_order code=INTERNAL_ERROR ref=5f0c2a9e81d34b67 request_id=UUID-v7 error="panic: assignment to entry in nil map"
	// client: -32603 Internal error in prompt "summarize_order" (ref: 5f0c2a9e81d34b67).
	// client: data {"version":1,"error":true,"code":"INTERNAL_ERROR","category":"server","message":"Internal error in prompt \"summarize_order\" (ref: 5f0c2a9e81d34b67).","retryable":false,"timestamp":"RFC3339-UTC","requestId":"UUID-v7","ref":"5f0c2a9e81d34b67"}
}

// The completion handler of the server's options is served too.
func ExampleInstall_completion() {
	s := mcp.NewServer(&mcp.Implementation{Name: "prompts", Version: "1.0.0"}, &mcp.ServerOptions{
		CompletionHandler: func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return nil, errors.New("search index offline: token=abc123")
		},
	})
	if err := gosdk.Install(s, examplePipeline()); err != nil {
		panic(err)
	}
	s.AddPrompt(&mcp.Prompt{Name: "greet", Arguments: []*mcp.PromptArgument{{Name: "name"}}},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{}, nil
		})
	_, err := exampleClient(s).Complete(context.Background(), &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "greet"},
		Argument: mcp.CompleteParamsArgument{Name: "name", Value: "an"},
	})
	printRPCError(err)
	// Output:
	// level=ERROR msg="completion failed" completion.prompt=greet code=INTERNAL_ERROR ref=5f0c2a9e81d34b67 request_id=UUID-v7 error="search index offline: token=abc123"
	// client: -32603 Internal error in completion for prompt "greet" (ref: 5f0c2a9e81d34b67).
	// client: data {"version":1,"error":true,"code":"INTERNAL_ERROR","category":"server","message":"Internal error in completion for prompt \"greet\" (ref: 5f0c2a9e81d34b67).","retryable":false,"timestamp":"RFC3339-UTC","requestId":"UUID-v7","ref":"5f0c2a9e81d34b67"}
}
