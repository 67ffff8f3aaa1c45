package main

import (
	"context"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/contrib/sqlfilter"
	"github.com/mcperr/mcperr/filter"
)

type createCustomerArgs struct {
	ID   string `json:"id" jsonschema:"the customer's id, such as cus_1"`
	Name string `json:"name"`
}

type placeOrderArgs struct {
	Ref        string `json:"ref" jsonschema:"the order's reference, unique, such as A-1"`
	CustomerID string `json:"customerId"`
	Qty        int    `json:"qty"`
}

type getOrderArgs struct {
	Ref string `json:"ref"`
}

type updateStatusArgs struct {
	Ref    string `json:"ref"`
	Status string `json:"status" jsonschema:"pending, shipped or delivered"`
}

// newServer returns the order service's MCP server on the database d.
//
// Every tool has the packs for database/sql (sqlfilter) and for the
// database (sqlitefilter or pgxfilter) as global filters, each told that
// get_order and update_order_status read orders, so that either names a
// missing row the same: "Order not found.", and "Record not found." in
// another tool. place_order answers its constraints in the application's
// words.
func newServer(d *database, logger *slog.Logger) (*mcp.Server, error) {
	rows, err := sqlfilter.New(
		sqlfilter.Resource("get_order", "Order"),
		sqlfilter.Resource("update_order_status", "Order"),
	)
	if err != nil {
		return nil, err
	}
	pipeline, err := filter.New(
		filter.WithLogger(logger),
		filter.WithFilters(rows, d.pack),
	)
	if err != nil {
		return nil, err
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "orders-sql", Version: "1.0.0"}, nil)
	if err := gosdk.Install(server, pipeline); err != nil {
		return nil, err
	}
	store := d.store

	err = gosdk.AddTool(server, &mcp.Tool{Name: "create_customer", Description: "Adds a customer."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in createCustomerArgs) (*mcp.CallToolResult, Customer, error) {
			c, err := store.CreateCustomer(ctx, Customer(in))
			return nil, c, err
		})
	if err != nil {
		return nil, err
	}
	err = gosdk.AddTool(server, &mcp.Tool{Name: "place_order", Description: "Places an order for a customer."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in placeOrderArgs) (*mcp.CallToolResult, Order, error) {
			o, err := store.PlaceOrder(ctx, Order{Ref: in.Ref, CustomerID: in.CustomerID, Qty: in.Qty})
			return nil, o, err
		},
		filter.WithFilters(d.placeOrder...))
	if err != nil {
		return nil, err
	}
	err = gosdk.AddTool(server, &mcp.Tool{Name: "get_order", Description: "Returns an order by its reference."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in getOrderArgs) (*mcp.CallToolResult, Order, error) {
			o, err := store.GetOrder(ctx, in.Ref)
			return nil, o, err
		})
	if err != nil {
		return nil, err
	}
	err = gosdk.AddTool(server, &mcp.Tool{Name: "update_order_status", Description: "Changes an order's status."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in updateStatusArgs) (*mcp.CallToolResult, Order, error) {
			o, err := store.UpdateStatus(ctx, in.Ref, in.Status)
			return nil, o, err
		})
	if err != nil {
		return nil, err
	}
	return server, nil
}
