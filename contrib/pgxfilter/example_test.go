package pgxfilter_test

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/contrib/pgxfilter"
	"github.com/mcperr/mcperr/filter"
)

// The errors a PostgreSQL server sends, as pgx reports them: an example
// needs no server to show what the model reads of them.
var (
	// duplicateRef is what an INSERT of an order whose ref exists gets.
	duplicateRef = &pgconn.PgError{
		Severity: "ERROR", Code: "23505",
		Message:        `duplicate key value violates unique constraint "orders_ref_key"`,
		Detail:         "Key (ref)=(ord_42) already exists.",
		TableName:      "orders",
		ConstraintName: "orders_ref_key",
	}
	// deadlock is what one of two transactions that lock the same rows in
	// opposite orders gets.
	deadlock = &pgconn.PgError{
		Severity: "ERROR", Code: "40P01",
		Message: "deadlock detected",
		Detail:  "Process 4242 waits for ShareLock on transaction 771; blocked by process 4243.",
	}
	// missingCustomer is what an INSERT of an order for a customer that
	// does not exist gets.
	missingCustomer = &pgconn.PgError{
		Severity: "ERROR", Code: "23503",
		Message:        `insert or update on table "orders" violates foreign key constraint "orders_customer_id_fkey"`,
		Detail:         `Key (customer_id)=(7) is not present in table "customers".`,
		TableName:      "orders",
		ConstraintName: "orders_customer_id_fkey",
	}
)

type orderArgs struct {
	Ref string `json:"ref"`
}

// packServer returns a go-sdk server whose pipeline has
// pgxfilter.New(opts...) as a global filter, a fixed ref and no log
// output.
func packServer(opts ...pgxfilter.Option) *mcp.Server {
	pack, err := pgxfilter.New(opts...)
	if err != nil {
		panic(err) // a mistake in the server's definition, such as an empty name
	}
	p, err := filter.New(
		filter.WithLogger(slog.New(slog.DiscardHandler)),
		filter.WithRefGenerator(func() string { return "5f0c2a9e81d34b67" }),
		filter.WithFilters(pack),
	)
	if err != nil {
		panic(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "1.0.0"}, nil)
	if err := gosdk.Install(s, p); err != nil {
		panic(err)
	}
	return s
}

// exampleServer returns a go-sdk server whose pipeline has pgxfilter.New()
// as a global filter, a fixed ref and no log output, with a tool
// create_order that fails with err, wrapped as a service layer wraps it,
// and takes opts.
func exampleServer(err error, opts ...filter.ToolOption) *mcp.Server {
	s := packServer()
	aerr := gosdk.AddTool(s, &mcp.Tool{Name: "create_order"},
		func(ctx context.Context, _ *mcp.CallToolRequest, in orderArgs) (*mcp.CallToolResult, any, error) {
			return nil, nil, fmt.Errorf("insert order %s: %w", in.Ref, err)
		}, opts...)
	if aerr != nil {
		panic(aerr)
	}
	return s
}

// printCall calls create_order with the SDK's in-memory client and prints
// what the model reads: the text blocks.
func printCall(s *mcp.Server) { printCallTool(s, "create_order") }

// printCallTool calls tool with the SDK's in-memory client and prints what
// the model reads: the text blocks.
func printCallTool(s *mcp.Server, tool string) {
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		panic(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0.0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"ref": "ord_42"}})
	if err != nil {
		panic(err)
	}
	for i, c := range res.Content {
		fmt.Printf("content[%d]: %s\n", i, c.(*mcp.TextContent).Text)
	}
}

// New answers PostgreSQL's errors for every tool: a unique violation
// names the constraint and never the value, and a deadlock is a conflict
// worth retrying.
func ExampleNew() {
	printCall(exampleServer(duplicateRef))
	printCall(exampleServer(deadlock))
	// Output:
	// content[0]: A record with this value already exists (constraint orders_ref_key); choose another value.
	// content[1]: Code: CONFLICT
	// Details: {"constraint":"orders_ref_key","sqlState":"23505","table":"orders"}
	// Retry: no, not with the same arguments.
	// content[0]: The operation conflicted with a concurrent change (SQLSTATE 40P01); retry the call.
	// content[1]: Code: CONFLICT
	// Details: {"sqlState":"40P01"}
	// Retry: yes.
}

// Constraint answers one named constraint the application's way: here a
// foreign key that, for the tool that creates orders, means the customer
// does not exist. Bound to the tool, it answers before the global filters.
func ExampleConstraint() {
	customers, err := pgxfilter.New(pgxfilter.Constraint("orders_customer_id_fkey", filter.Response{
		Code:    codes.NotFound,
		Message: "No such customer; list the customers to find the right id.",
	}))
	if err != nil {
		panic(err) // a mistake in the server's definition, such as an empty name
	}
	printCall(exampleServer(missingCustomer))
	printCall(exampleServer(missingCustomer, filter.WithFilters(customers)))
	// Output:
	// content[0]: A referenced record does not exist, or other records still refer to this one (constraint orders_customer_id_fkey); check the identifiers in the arguments, or remove the referring records first.
	// content[1]: Code: BUSINESS_RULE_VIOLATION
	// Details: {"constraint":"orders_customer_id_fkey","sqlState":"23503","table":"orders"}
	// Retry: no, not with the same arguments.
	// content[0]: No such customer; list the customers to find the right id.
	// content[1]: Code: NOT_FOUND
	// Retry: no, not with the same arguments.
}

// Resource names the kind of record a tool reads, so that a missing row
// (pgx.ErrNoRows, or sql.ErrNoRows through database/sql) in get_order
// reads as a missing order; a tool no Resource names keeps the generic
// sentence. The filter goes by the tool called: given to the pipeline for
// every tool, as here, or bound to one, it answers the same.
func ExampleResource() {
	s := packServer(pgxfilter.Resource("get_order", "Order"))
	read := func(ctx context.Context, _ *mcp.CallToolRequest, in orderArgs) (*mcp.CallToolResult, any, error) {
		// What pgx's QueryRow(...).Scan returns for a row that is not there.
		return nil, nil, fmt.Errorf("select order %s: %w", in.Ref, pgx.ErrNoRows)
	}
	mcp.AddTool(s, &mcp.Tool{Name: "get_order"}, read)
	mcp.AddTool(s, &mcp.Tool{Name: "order_status"}, read)

	printCallTool(s, "get_order")
	printCallTool(s, "order_status")
	// Output:
	// content[0]: Order not found.
	// content[1]: Code: NOT_FOUND
	// Details: {"resourceType":"Order"}
	// Retry: no, not with the same arguments.
	// content[0]: Record not found.
	// content[1]: Code: NOT_FOUND
	// Retry: no, not with the same arguments.
}
