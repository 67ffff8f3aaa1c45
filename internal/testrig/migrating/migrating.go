// Package migrating holds the before and after of each change that
// docs/migrating.md shows, so that every snippet there compiles. The
// "before" handlers are what servers write today; the "after" ones are the
// same handlers under mcperr.
package migrating

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/toolerr"
)

var db *sql.DB

// Order is a row of the orders table.
type Order struct{ ID, Status string }

func loadOrder(ctx context.Context, id string) (Order, error) {
	var o Order
	err := db.QueryRowContext(ctx, "SELECT id, status FROM orders WHERE id = $1", id).Scan(&o.ID, &o.Status)
	return o, err
}

// A hand-built result with the error's text: the model reads the SQL error.
func getOrderBefore(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	order, err := loadOrder(ctx, req.GetString("id", ""))
	if err != nil {
		return mcp.NewToolResultErrorFromErr("failed to load order", err), nil
	}
	return mcp.NewToolResultText(order.Status), nil
}

func getOrderAfter(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	order, err := loadOrder(ctx, req.GetString("id", ""))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, domain.NewNotFound("Order", req.GetString("id", ""))
	}
	if err != nil {
		return nil, toolerr.New("The order could not be loaded; try again shortly.").WithCause(err)
	}
	return mcp.NewToolResultText(order.Status), nil
}

// A message written for the model, returned as a plain error: mcperr masks
// it, as it masks every error it cannot tell is public.
func searchBefore(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if req.GetString("trace_id", "") == "" && req.GetString("service_name", "") == "" {
		return nil, errors.New("either trace_id or service_name must be provided")
	}
	return mcp.NewToolResultText("[]"), nil
}

func searchAfter(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if req.GetString("trace_id", "") == "" && req.GetString("service_name", "") == "" {
		return nil, toolerr.New("Either trace_id or service_name must be provided.").WithCode(codes.ValidationError)
	}
	return mcp.NewToolResultText("[]"), nil
}

// A hand-built result with a message meant for the model: it passes
// through mcperr untouched, without a code or an envelope.
func cancelBefore(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if req.GetString("reason", "") == "" {
		return mcp.NewToolResultError("a reason is required to cancel an order"), nil
	}
	return mcp.NewToolResultText("cancelled"), nil
}

func cancelAfter(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if req.GetString("reason", "") == "" {
		return nil, domain.NewValidation("reason", nil, "is required to cancel an order")
	}
	return mcp.NewToolResultText("cancelled"), nil
}

// A formatted hand-built result that holds the error.
func refundBefore(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if _, err := loadOrder(ctx, req.GetString("id", "")); err != nil {
		return mcp.NewToolResultErrorf("refund failed: %v", err), nil
	}
	return mcp.NewToolResultText("refunded"), nil
}

func refundAfter(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if _, err := loadOrder(ctx, req.GetString("id", "")); err != nil {
		return nil, toolerr.New(fmt.Sprintf("The refund of order %s failed; try again later.", req.GetString("id", ""))).WithCause(err)
	}
	return mcp.NewToolResultText("refunded"), nil
}

type forecastArgs struct {
	City string `json:"city"`
}

func forecast(_ context.Context, _ mcp.CallToolRequest, args forecastArgs) (string, error) {
	return "sunny in " + args.City, nil
}

// The SDK's structured helper turns every error into "tool execution
// failed: <err>" before any middleware sees it.
var forecastBefore = mcp.NewStructuredToolHandler(forecast)

var forecastAfter = mcpgo.Structured(forecast)

type lookupArgs struct {
	ID string `json:"id"`
}

// go-sdk: an error result marked with SetError is mapped by mcperr, so a
// deliberate message in it is masked; a hand-built IsError result passes
// through untouched.
func lookupBefore(ctx context.Context, _ *gomcp.CallToolRequest, args lookupArgs) (*gomcp.CallToolResult, any, error) {
	if args.ID == "" {
		res := &gomcp.CallToolResult{}
		res.SetError(errors.New("id is required"))
		return res, nil, nil
	}
	order, err := loadOrder(ctx, args.ID)
	if err != nil {
		return &gomcp.CallToolResult{IsError: true, Content: []gomcp.Content{&gomcp.TextContent{Text: "lookup failed: " + err.Error()}}}, nil, nil
	}
	return &gomcp.CallToolResult{Content: []gomcp.Content{&gomcp.TextContent{Text: order.Status}}}, nil, nil
}

func lookupAfter(ctx context.Context, _ *gomcp.CallToolRequest, args lookupArgs) (*gomcp.CallToolResult, any, error) {
	if args.ID == "" {
		return nil, nil, domain.NewValidation("id", nil, "is required")
	}
	order, err := loadOrder(ctx, args.ID)
	if err != nil {
		return nil, nil, toolerr.New("The order could not be looked up; try again shortly.").WithCause(err)
	}
	return &gomcp.CallToolResult{Content: []gomcp.Content{&gomcp.TextContent{Text: order.Status}}}, nil, nil
}

// The handlers are referenced so that vet and the compiler keep them
// honest.
var _ = []any{getOrderBefore, getOrderAfter, searchBefore, searchAfter, cancelBefore, cancelAfter,
	refundBefore, refundAfter, forecastBefore, forecastAfter, lookupBefore, lookupAfter}
