package mcpgo_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/domain"
)

func ExampleAddResource() {
	s := server.NewMCPServer("files", "1.0.0", server.WithResourceCapabilities(false, false))
	if err := mcpgo.Install(s, examplePipeline()); err != nil {
		panic(err)
	}
	err := mcpgo.AddResource(s, mcp.NewResource("db://orders", "orders"),
		func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return nil, errors.New("connection refused by 10.0.0.12:5432")
		})
	if err != nil {
		panic(err)
	}
	req := mcp.ReadResourceRequest{}
	req.Params.URI = "db://orders"
	_, err = exampleClient(s).ReadResource(context.Background(), req)
	fmt.Println("client:", err)
	// Output:
	// level=ERROR msg="resource read failed" resource=db://orders code=INTERNAL_ERROR ref=5e1f0c2a9b3d7e68 request_id=2 error="connection refused by 10.0.0.12:5432"
	// client: internal error: Internal error in resource "db://orders" (ref: 5e1f0c2a9b3d7e68).
}

func ExampleAddResourceTemplate() {
	s := server.NewMCPServer("orders", "1.0.0", server.WithResourceCapabilities(false, false))
	if err := mcpgo.Install(s, examplePipeline()); err != nil {
		panic(err)
	}
	err := mcpgo.AddResourceTemplate(s, mcp.NewResourceTemplate("orders://{id}", "order"),
		func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return nil, domain.NewNotFound("Order", strings.TrimPrefix(req.Params.URI, "orders://"))
		})
	if err != nil {
		panic(err)
	}
	req := mcp.ReadResourceRequest{}
	req.Params.URI = "orders://ord_404"
	_, err = exampleClient(s).ReadResource(context.Background(), req)
	fmt.Println("client:", err)
	// Output:
	// level=INFO msg="resource read failed" resource=orders://ord_404 code=NOT_FOUND request_id=2 error="Order not found: ord_404" fields.resource_type=Order fields.resource_id=ord_404
	// client: internal error: Order not found: ord_404
}

func ExampleAddPrompt() {
	s := server.NewMCPServer("prompts", "1.0.0", server.WithPromptCapabilities(false))
	if err := mcpgo.Install(s, examplePipeline()); err != nil {
		panic(err)
	}
	err := mcpgo.AddPrompt(s, mcp.NewPrompt("summarize_order"),
		func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			var cache map[string]string
			cache["ord_1"] = "x" // a bug: the panic is recovered, the server goes on
			return nil, nil
		})
	if err != nil {
		panic(err)
	}
	req := mcp.GetPromptRequest{}
	req.Params.Name = "summarize_order"
	_, err = exampleClient(s).GetPrompt(context.Background(), req)
	fmt.Println("client:", err)
	// Output:
	// level=ERROR msg="prompt get failed" prompt=summarize_order code=INTERNAL_ERROR ref=5e1f0c2a9b3d7e68 request_id=2 error="panic: assignment to entry in nil map"
	// client: internal error: Internal error in prompt "summarize_order" (ref: 5e1f0c2a9b3d7e68).
}

// cityCompletion completes city names from a store that is down.
type cityCompletion struct{}

func (cityCompletion) CompletePromptArgument(context.Context, string, mcp.CompleteArgument, mcp.CompleteContext) (*mcp.Completion, error) {
	return nil, errors.New("redis 10.0.0.7:6379: NOAUTH")
}

func (cityCompletion) CompleteResourceArgument(context.Context, string, mcp.CompleteArgument, mcp.CompleteContext) (*mcp.Completion, error) {
	return nil, domain.NewValidation("city", "", "Type at least two letters")
}

func ExampleWrapPromptCompletion() {
	s := server.NewMCPServer("weather", "1.0.0", server.WithCompletions(),
		server.WithPromptCompletionProvider(mcpgo.WrapPromptCompletion(cityCompletion{})))
	if err := mcpgo.Install(s, examplePipeline()); err != nil {
		panic(err)
	}
	req := mcp.CompleteRequest{}
	req.Params.Ref = mcp.PromptReference{Type: "ref/prompt", Name: "forecast"}
	req.Params.Argument = mcp.CompleteArgument{Name: "city", Value: "Pa"}
	_, err := exampleClient(s).Complete(context.Background(), req)
	fmt.Println("client:", err)
	// Output:
	// level=ERROR msg="completion failed" completion.prompt=forecast code=INTERNAL_ERROR ref=5e1f0c2a9b3d7e68 request_id=UUID-v7 error="redis 10.0.0.7:6379: NOAUTH"
	// client: internal error: Internal error in completion for prompt "forecast" (ref: 5e1f0c2a9b3d7e68).
}

func ExampleWrapResourceCompletion() {
	s := server.NewMCPServer("weather", "1.0.0", server.WithCompletions(),
		server.WithResourceCompletionProvider(mcpgo.WrapResourceCompletion(cityCompletion{})))
	if err := mcpgo.Install(s, examplePipeline()); err != nil {
		panic(err)
	}
	req := mcp.CompleteRequest{}
	req.Params.Ref = mcp.ResourceReference{Type: "ref/resource", URI: "weather://{city}"}
	req.Params.Argument = mcp.CompleteArgument{Name: "city", Value: "P"}
	_, err := exampleClient(s).Complete(context.Background(), req)
	fmt.Println("client:", err)
	// Output:
	// level=INFO msg="completion failed" completion.resource=weather://{city} code=VALIDATION_ERROR request_id=UUID-v7 error="Validation failed for city: Type at least two letters" fields.city.constraint="Type at least two letters" fields.city.value=""
	// client: internal error: Validation failed for city: Type at least two letters
}
