// Package server holds the messages of a small server, for the adoption
// report's test to load as a module's own words.
package server

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/toolerr"
)

type args struct {
	TraceID, ServiceName, Format string
	Order                        int
}

func validate(a args) error {
	if a.TraceID == "" && a.ServiceName == "" {
		return errors.New("either trace_id or service_name must be provided")
	}
	if a.Format != "full" && a.Format != "compact" {
		return fmt.Errorf("unknown format %q: must be full or compact", a.Format)
	}
	return nil
}

func getUser(ctx context.Context, fetch func(context.Context) error) error {
	if err := fetch(ctx); err != nil {
		return fmt.Errorf("get user: %w", err)
	}
	return nil
}

func closeOrder(a args) error {
	return toolerr.New(fmt.Sprintf("Order %d is closed.", a.Order))
}

func failed(err error) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "lookup failed: " + err.Error()}}}
}

var _ = []any{validate, getUser, closeOrder, failed}
