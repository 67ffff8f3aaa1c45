package mcpgo_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/domain"
)

// cityCompletion completes city names from a store that is down.
type cityCompletion struct{}

func (cityCompletion) CompletePromptArgument(context.Context, string, mcp.CompleteArgument, mcp.CompleteContext) (*mcp.Completion, error) {
	return nil, errors.New("redis 10.0.0.7:6379: NOAUTH")
}

func (cityCompletion) CompleteResourceArgument(context.Context, string, mcp.CompleteArgument, mcp.CompleteContext) (*mcp.Completion, error) {
	return nil, domain.NewValidation("city", "", "Type at least two letters")
}

// mcp-go has no middleware for completion/complete: the provider is
// wrapped, and runs with the configuration Install gave the server.
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
