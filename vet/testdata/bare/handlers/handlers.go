// Package handlers holds the tool handlers of a module that does not
// require mcperr: the SDK sends every error they return as written.
package handlers

import (
	"context"
	"errors"
	"fmt"
	"os"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"example.com/bare/provider"
)

type args struct{ ID string }

var errClosed = errors.New("the store is closed")

var p = &provider.Provider{}

// --- positives ---

func readFile(ctx context.Context, req *mcp.CallToolRequest, in args) (*mcp.CallToolResult, any, error) {
	b, err := os.ReadFile(in.ID)
	if err != nil {
		return nil, nil, err // want `a tool handler returns an error whose text may be another's`
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil, nil
}

func wrapped(ctx context.Context, req *mcp.CallToolRequest, in args) (*mcp.CallToolResult, any, error) {
	if err := p.Fetch(in.ID); err != nil {
		return nil, nil, fmt.Errorf("failed to fetch %s: %w", in.ID, err) // want `a tool handler returns an error whose text may be another's`
	}
	return nil, nil, nil
}

func setError(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var res mcp.CallToolResult
	if _, err := os.Stat("orders.db"); err != nil {
		res.SetError(err) // want `CallToolResult.SetError is given an error whose text may be another's`
	}
	return &res, nil
}

func mcpgoHandler(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	id, err := req.RequireString("id")
	if err != nil {
		return nil, err // the SDK's accessor names the argument: not reported
	}
	if err := p.Fetch(id); err != nil {
		return nil, err // want `a tool handler returns an error whose text may be another's`
	}
	return mcpgo.NewToolResultText("ok"), nil
}

// --- negatives: text the module wrote ---

func deliberate(ctx context.Context, req *mcp.CallToolRequest, in args) (*mcp.CallToolResult, any, error) {
	switch {
	case in.ID == "":
		return nil, nil, errors.New("id is required")
	case in.ID == "x":
		return nil, nil, fmt.Errorf("no order %q", in.ID)
	case in.ID == "closed":
		return nil, nil, errClosed
	}
	if ok, err := p.IsReady(); !ok {
		return nil, nil, err // a sentinel of another package
	}
	if err := provider.Check(in.ID); err != nil {
		return nil, nil, err // messages of another package, made of constants and its arguments
	}
	if err := validate(in); err != nil {
		return nil, nil, err
	}
	return nil, nil, ctx.Err()
}

func validate(in args) error {
	if len(in.ID) > 64 {
		return fmt.Errorf("id is %d characters long, more than 64", len(in.ID))
	}
	return nil
}

func setFixed(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var res mcp.CallToolResult
	res.SetError(errors.New("the order is locked"))
	return &res, nil
}

// A middleware hands on the next handler's answer, whose errors are
// reported where they are made.
func middleware(next func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error)) func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		return next(ctx, req)
	}
}

// A helper of the shape of a handler is checked as one.
func toText(b []byte, err error) (*mcp.CallToolResult, error) {
	if err != nil {
		return nil, err // want `a tool handler returns an error whose text may be another's`
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil
}

func usesHelper(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return toText(os.ReadFile("orders.csv")) // the helper's return is reported
}
