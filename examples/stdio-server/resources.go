package main

import (
	"context"
	"strings"

	mcpgomcp "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The resources and the prompt of the server: docs://readme reads, db://orders
// fails the way an outage does (Lookup), the template orders://{id} reads
// ord_1 and finds no other order (GetOrder), and the prompt summarize_order
// panics the way a bug does (Crash).
//
// They are added with each SDK's own methods: the middleware of Install
// serves every resources/read and prompts/get of the server, however the
// resource or prompt was added, so their handlers just return errors.
const (
	readmeURI  = "docs://readme"
	ordersURI  = "db://orders"
	orderURI   = "orders://{id}"
	promptName = "summarize_order"
	readmeText = "mcperr's stdio server: every kind of failure, on demand."
)

// addGoSDKResources adds the resources and the prompt to a go-sdk server.
func addGoSDKResources(s *mcp.Server) {
	s.AddResource(&mcp.Resource{URI: readmeURI, Name: "readme", MIMEType: "text/plain"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: readmeURI, Text: readmeText}}}, nil
		})
	s.AddResource(&mcp.Resource{URI: ordersURI, Name: "orders", MIMEType: "text/plain"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			text, err := Lookup()
			if err != nil {
				return nil, err
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: ordersURI, Text: text}}}, nil
		})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: orderURI, Name: "order", MIMEType: "text/plain"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			text, err := GetOrder(strings.TrimPrefix(req.Params.URI, "orders://"))
			if err != nil {
				return nil, err
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: text}}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: promptName, Description: "Summarizes an order; panics."},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			text, err := Crash()
			if err != nil {
				return nil, err
			}
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}}}, nil
		})
}

// addMCPGoResources adds the same resources and prompt to an mcp-go server.
func addMCPGoResources(s *server.MCPServer) {
	s.AddResource(mcpgomcp.NewResource(readmeURI, "readme", mcpgomcp.WithMIMEType("text/plain")),
		func(context.Context, mcpgomcp.ReadResourceRequest) ([]mcpgomcp.ResourceContents, error) {
			return []mcpgomcp.ResourceContents{mcpgomcp.TextResourceContents{URI: readmeURI, MIMEType: "text/plain", Text: readmeText}}, nil
		})
	s.AddResource(mcpgomcp.NewResource(ordersURI, "orders", mcpgomcp.WithMIMEType("text/plain")),
		func(context.Context, mcpgomcp.ReadResourceRequest) ([]mcpgomcp.ResourceContents, error) {
			text, err := Lookup()
			if err != nil {
				return nil, err
			}
			return []mcpgomcp.ResourceContents{mcpgomcp.TextResourceContents{URI: ordersURI, MIMEType: "text/plain", Text: text}}, nil
		})
	s.AddResourceTemplate(mcpgomcp.NewResourceTemplate(orderURI, "order", mcpgomcp.WithTemplateMIMEType("text/plain")),
		func(_ context.Context, req mcpgomcp.ReadResourceRequest) ([]mcpgomcp.ResourceContents, error) {
			text, err := GetOrder(strings.TrimPrefix(req.Params.URI, "orders://"))
			if err != nil {
				return nil, err
			}
			return []mcpgomcp.ResourceContents{mcpgomcp.TextResourceContents{URI: req.Params.URI, MIMEType: "text/plain", Text: text}}, nil
		})
	s.AddPrompt(mcpgomcp.NewPrompt(promptName, mcpgomcp.WithPromptDescription("Summarizes an order; panics.")),
		func(context.Context, mcpgomcp.GetPromptRequest) (*mcpgomcp.GetPromptResult, error) {
			text, err := Crash()
			if err != nil {
				return nil, err
			}
			return mcpgomcp.NewGetPromptResult("", []mcpgomcp.PromptMessage{
				mcpgomcp.NewPromptMessage(mcpgomcp.RoleUser, mcpgomcp.NewTextContent(text))}), nil
		})
}
