package gosdk_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/domain"
)

// uuidV7 finds a request id minted as a UUID of version 7.
var uuidV7 = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}`)

// printRPCError prints the JSON-RPC error a client received.
func printRPCError(err error) {
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		data := string(we.Data)
		if m := uuidV7.FindString(data); m != "" {
			data = strings.ReplaceAll(data, m, exampleID(m))
		}
		fmt.Printf("client: %d %s\nclient: data %s\n", we.Code, we.Message, data)
	}
}

func ExampleAddResource() {
	s := mcp.NewServer(&mcp.Implementation{Name: "files", Version: "1.0.0"}, nil)
	if err := gosdk.Install(s, examplePipeline()); err != nil {
		panic(err)
	}
	err := gosdk.AddResource(s, &mcp.Resource{URI: "db://orders", Name: "orders"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return nil, errors.New("connection refused by 10.0.0.12:5432")
		})
	if err != nil {
		panic(err)
	}
	_, err = exampleClient(s).ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "db://orders"})
	printRPCError(err)
	// Output:
	// level=ERROR msg="resource read failed" resource=db://orders code=INTERNAL_ERROR ref=5f0c2a9e81d34b67 request_id=UUID-v7 error="connection refused by 10.0.0.12:5432"
	// client: -32603 Internal error in resource "db://orders" (ref: 5f0c2a9e81d34b67).
	// client: data {"version":1,"error":true,"code":"INTERNAL_ERROR","category":"server","message":"Internal error in resource \"db://orders\" (ref: 5f0c2a9e81d34b67).","retryable":false,"timestamp":"2025-11-25T12:00:00Z","requestId":"UUID-v7","ref":"5f0c2a9e81d34b67"}
}

func ExampleAddResourceTemplate() {
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1.0.0"}, nil)
	if err := gosdk.Install(s, examplePipeline()); err != nil {
		panic(err)
	}
	err := gosdk.AddResourceTemplate(s, &mcp.ResourceTemplate{URITemplate: "orders://{id}", Name: "order"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return nil, domain.NewNotFound("Order", strings.TrimPrefix(req.Params.URI, "orders://"))
		})
	if err != nil {
		panic(err)
	}
	_, err = exampleClient(s).ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "orders://ord_404"})
	printRPCError(err) // -32602 on protocol 2026-07-28, which this client speaks; -32002 before
	// Output:
	// level=INFO msg="resource read failed" resource=orders://ord_404 code=NOT_FOUND request_id=UUID-v7 error="Order not found: ord_404" fields.resource_type=Order fields.resource_id=ord_404
	// client: -32602 Order not found: ord_404
	// client: data {"uri":"orders://ord_404","version":1,"error":true,"code":"NOT_FOUND","category":"client","message":"Order not found: ord_404","details":{"resourceId":"ord_404","resourceType":"Order"},"retryable":false,"timestamp":"2025-11-25T12:00:00Z","requestId":"UUID-v7"}
}

func ExampleAddPrompt() {
	s := mcp.NewServer(&mcp.Implementation{Name: "prompts", Version: "1.0.0"}, nil)
	if err := gosdk.Install(s, examplePipeline()); err != nil {
		panic(err)
	}
	err := gosdk.AddPrompt(s, &mcp.Prompt{Name: "summarize_order"},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			var cache map[string]string
			cache["ord_1"] = "x" // a bug: the panic is recovered, the server goes on
			return nil, nil
		})
	if err != nil {
		panic(err)
	}
	cs := exampleClient(s)
	_, err = cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "summarize_order"})
	printRPCError(err)
	// Output:
	// level=ERROR msg="prompt get failed" prompt=summarize_order code=INTERNAL_ERROR ref=5f0c2a9e81d34b67 request_id=UUID-v7 error="panic: assignment to entry in nil map"
	// client: -32603 Internal error in prompt "summarize_order" (ref: 5f0c2a9e81d34b67).
	// client: data {"version":1,"error":true,"code":"INTERNAL_ERROR","category":"server","message":"Internal error in prompt \"summarize_order\" (ref: 5f0c2a9e81d34b67).","retryable":false,"timestamp":"2025-11-25T12:00:00Z","requestId":"UUID-v7","ref":"5f0c2a9e81d34b67"}
}
