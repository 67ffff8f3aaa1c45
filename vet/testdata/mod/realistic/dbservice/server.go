// Package dbservice is an order-desk MCP server on mcp-go, backed by
// database/sql, written the way such servers are written: loose arguments
// read with the SDK's accessors, some error results built by hand, some
// errors returned for mcperr to map.
//
// Lines that should be reported by mcperrvet end with "// want: leak"; lines
// that look alike but are safe carry a "// safe:" comment saying why.
package dbservice

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/toolerr"
)

// Service holds the database and the logger of the server.
type Service struct {
	db  *sql.DB
	log *slog.Logger
}

var validStatuses = []string{"pending", "processing", "shipped", "delivered", "cancelled"}

// NewServer returns the order desk's MCP server over db.
func NewServer(db *sql.DB, logger *slog.Logger) (*server.MCPServer, error) {
	p, err := filter.New(filter.WithLogger(logger))
	if err != nil {
		return nil, err
	}
	s := server.NewMCPServer("order-desk", "1.4.2", server.WithRecovery())
	if err := mcpgo.Install(s, p); err != nil {
		return nil, err
	}
	svc := &Service{db: db, log: logger}

	s.AddTool(mcp.NewTool("get_customer",
		mcp.WithDescription("Look up a customer by id."),
		mcp.WithString("id", mcp.Required()),
	), svc.getCustomer)

	s.AddTool(mcp.NewTool("search_orders",
		mcp.WithDescription("List orders by customer or by status."),
		mcp.WithString("customer_id"),
		mcp.WithString("status"),
		mcp.WithNumber("limit"),
	), svc.searchOrders)

	s.AddTool(mcp.NewTool("update_order_status",
		mcp.WithDescription("Move an order to another status."),
		mcp.WithString("order_id", mcp.Required()),
		mcp.WithString("status", mcp.Required()),
	), svc.updateOrderStatus)

	s.AddTool(mcp.NewTool("add_order_note",
		mcp.WithDescription("Attach a note to an order."),
		mcp.WithString("order_id", mcp.Required()),
		mcp.WithString("body", mcp.Required()),
	), svc.addOrderNote)

	s.AddTool(mcp.NewTool("cancel_order",
		mcp.WithDescription("Cancel an order that has not shipped."),
		mcp.WithString("order_id", mcp.Required()),
	), svc.cancelOrder)

	s.AddTool(mcp.NewTool("bulk_cancel",
		mcp.WithDescription("Cancel several orders at once."),
		mcp.WithArray("order_ids", mcp.Required(), mcp.WithStringItems()),
	), svc.bulkCancel)

	s.AddTool(mcp.NewTool("order_total",
		mcp.WithDescription("The total of an order, in cents and formatted."),
		mcp.WithString("order_id", mcp.Required()),
		mcp.WithOutputSchema[orderTotal](),
	), mcp.NewStructuredToolHandler(svc.orderTotal)) // want: leak

	s.AddTool(mcp.NewTool("customer_orders",
		mcp.WithDescription("Every order of a customer, structured."),
		mcp.WithString("customer_id", mcp.Required()),
		mcp.WithOutputSchema[customerOrders](),
	), mcpgo.Structured(svc.customerOrders)) // safe: mcperr's Structured returns the handler's errors to the middleware

	return s, nil
}

func (svc *Service) getCustomer(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	id, err := req.RequireString("id")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil // safe: the SDK's accessor error names the argument only
	}
	var c Customer
	err = svc.db.QueryRowContext(ctx, qCustomer, id).Scan(&c.ID, &c.Name, &c.Email)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, domain.NewNotFound("customer", id) // safe: a domain error, mapped by mcperr
	}
	if err != nil {
		return nil, fmt.Errorf("get customer %s: %w", id, err) // safe: returned, masked by mcperr
	}
	return mcp.NewToolResultText(fmt.Sprintf("%s <%s> (%s)", c.Name, c.Email, c.ID)), nil
}

func (svc *Service) searchOrders(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	customerID := req.GetString("customer_id", "")
	status := req.GetString("status", "")
	limit := req.GetInt("limit", 20)
	if customerID == "" && status == "" {
		return mcp.NewToolResultError("Give a customer_id or a status."), nil // safe: a constant message
	}
	if limit < 1 || limit > 100 {
		return mcp.NewToolResultError(fmt.Sprintf("limit must be between 1 and 100, got %d", limit)), nil // safe: only the caller's own value
	}
	q, arg := qOrdersBy, customerID
	if customerID == "" {
		q, arg = qOrdersStatus, status
	}
	rows, err := svc.db.QueryContext(ctx, q, arg)
	if err != nil {
		svc.log.ErrorContext(ctx, "search orders", "err", err) // safe: the log
		return mcp.NewToolResultError(err.Error()), nil        // want: leak
	}
	defer rows.Close()
	var lines []string
	for rows.Next() && len(lines) < limit {
		var o Order
		if err := rows.Scan(&o.ID, &o.CustomerID, &o.Status, &o.TotalCents); err != nil {
			return mcp.NewToolResultError("failed to read orders: " + err.Error()), nil // want: leak
		}
		lines = append(lines, fmt.Sprintf("%s %s %s %d", o.ID, o.CustomerID, o.Status, o.TotalCents))
	}
	if err := rows.Err(); err != nil {
		return nil, err // safe: returned, masked by mcperr
	}
	if len(lines) == 0 {
		return mcp.NewToolResultText("No orders."), nil
	}
	return mcp.NewToolResultText(strings.Join(lines, "\n")), nil
}

func (svc *Service) updateOrderStatus(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	args := req.GetArguments()
	orderID, _ := args["order_id"].(string)
	status, _ := args["status"].(string)
	if !contains(validStatuses, status) {
		return nil, toolerr.New("status must be one of " + strings.Join(validStatuses, ", ")) // safe: a ToolError's message is written for the model
	}
	res, err := svc.db.ExecContext(ctx, qSetStatus, status, orderID)
	if err != nil {
		return mcp.NewToolResultErrorFromErr("could not update the order", err), nil // want: leak
	}
	n, err := res.RowsAffected()
	if err != nil {
		return dbFailure("update", err), nil // want: leak (through dbFailure)
	}
	if n == 0 {
		return nil, domain.NewNotFound("order", orderID) // safe: a domain error
	}
	return mcp.NewToolResultText("Order " + orderID + " is now " + status + "."), nil
}

func (svc *Service) addOrderNote(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	orderID := req.GetString("order_id", "")
	body := strings.TrimSpace(req.GetString("body", ""))
	if body == "" {
		return mcp.NewToolResultError("The note is empty."), nil // safe: a constant message
	}
	if len(body) > 2000 {
		return nil, domain.NewValidation("body", len(body), "at most 2000 characters") // safe: a domain error
	}
	if _, err := svc.db.ExecContext(ctx, qAddNote, orderID, body); err != nil {
		if strings.Contains(err.Error(), "foreign key") { // safe: the text is only compared
			return mcp.NewToolResultErrorf("There is no order %s.", orderID), nil // safe: only the caller's own value
		}
		return mcp.NewToolResultErrorf("could not save the note: %v", err), nil // want: leak
	}
	return mcp.NewToolResultText("Note added."), nil
}

func (svc *Service) cancelOrder(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	orderID, err := req.RequireString("order_id")
	if err != nil {
		return nil, err // safe: returned; mcperr checks the arguments against the schema
	}
	o, err := svc.order(ctx, orderID)
	if err != nil {
		return nil, err // safe: returned, masked or mapped by mcperr
	}
	if o.Status == "shipped" || o.Status == "delivered" {
		// The team meant the model to read this; mcperr masks it as an
		// internal error, which loses the advice: mcperrmasked reports it.
		return nil, fmt.Errorf("order %s has already shipped and cannot be cancelled", orderID) // want: masked
	}
	if _, err := svc.db.ExecContext(ctx, qSetStatus, "cancelled", orderID); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return mcp.NewToolResultError("The database is slow right now; try again in a minute."), nil // safe: a constant message
		}
		msg := fmt.Sprintf("cancel failed: %s", err)
		return mcp.NewToolResultError(msg), nil // want: leak
	}
	return mcp.NewToolResultText("Order " + orderID + " cancelled."), nil
}

func (svc *Service) bulkCancel(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	ids, err := req.RequireStringSlice("order_ids")
	if err != nil {
		return nil, err // safe: returned; mcperr checks the arguments against the schema
	}
	var failed []string
	for _, id := range ids {
		if _, err := svc.db.ExecContext(ctx, qSetStatus, "cancelled", id); err != nil {
			svc.log.WarnContext(ctx, "bulk cancel", "order", id, "err", err) // safe: the log
			failed = append(failed, id+": "+err.Error())
		}
	}
	if len(failed) > 0 {
		return mcp.NewToolResultError(fmt.Sprintf("%d of %d orders were not cancelled:\n%s", len(failed), len(ids), strings.Join(failed, "\n"))), nil // want: leak
	}
	return mcp.NewToolResultText(fmt.Sprintf("%d orders cancelled.", len(ids))), nil // safe: a success
}

// dbFailure is the result of a statement that failed.
func dbFailure(op string, err error) *mcp.CallToolResult {
	return mcp.NewToolResultError(op + " failed: " + err.Error()) // want: leak
}

type orderTotalArgs struct {
	OrderID string `json:"order_id"`
}

type orderTotal struct {
	OrderID    string `json:"order_id"`
	TotalCents int64  `json:"total_cents"`
	Formatted  string `json:"formatted"`
}

func (svc *Service) orderTotal(ctx context.Context, _ mcp.CallToolRequest, args orderTotalArgs) (orderTotal, error) {
	o, err := svc.order(ctx, args.OrderID)
	if err != nil {
		return orderTotal{}, err
	}
	return orderTotal{OrderID: o.ID, TotalCents: o.TotalCents, Formatted: fmt.Sprintf("$%d.%02d", o.TotalCents/100, o.TotalCents%100)}, nil
}

type customerOrdersArgs struct {
	CustomerID string `json:"customer_id"`
}

type customerOrders struct {
	Orders []Order `json:"orders"`
}

func (svc *Service) customerOrders(ctx context.Context, _ mcp.CallToolRequest, args customerOrdersArgs) (customerOrders, error) {
	rows, err := svc.db.QueryContext(ctx, qOrdersBy, args.CustomerID)
	if errors.Is(err, context.DeadlineExceeded) {
		return customerOrders{}, toolerr.New("The database is slow right now; try again in a minute.").WithCause(err).WithRetryable(true) // safe: a message written for the model, the error as its cause
	}
	if err != nil {
		return customerOrders{}, toolerr.New("Could not list the orders: " + err.Error()) // want: leak
	}
	defer rows.Close()
	var out customerOrders
	for rows.Next() {
		var o Order
		if err := rows.Scan(&o.ID, &o.CustomerID, &o.Status, &o.TotalCents); err != nil {
			return customerOrders{}, err
		}
		out.Orders = append(out.Orders, o)
	}
	return out, rows.Err()
}

// order loads one order; a missing one is a domain.NotFound.
func (svc *Service) order(ctx context.Context, id string) (Order, error) {
	var o Order
	err := svc.db.QueryRowContext(ctx, qOrder, id).Scan(&o.ID, &o.CustomerID, &o.Status, &o.TotalCents)
	if errors.Is(err, sql.ErrNoRows) {
		return Order{}, domain.NewNotFound("order", id)
	}
	if err != nil {
		return Order{}, fmt.Errorf("load order %s: %w", id, err)
	}
	return o, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
