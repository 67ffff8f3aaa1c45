package sqlitefilter_test

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/contrib/sqlitefilter"
	"github.com/mcperr/mcperr/filter"
)

// exampleDSN creates a SQLite database file with customers and orders,
// and returns its data source name; cleanup removes it.
func exampleDSN() (dsn string, cleanup func()) {
	dir, err := os.MkdirTemp("", "sqlitefilter-example")
	if err != nil {
		panic(err)
	}
	dsn = "file:" + filepath.Join(dir, "shop.db") + "?_pragma=foreign_keys(1)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		panic(err)
	}
	defer db.Close()
	for _, q := range []string{
		`CREATE TABLE customers (id TEXT PRIMARY KEY)`,
		`CREATE TABLE orders (
			ref TEXT NOT NULL UNIQUE,
			customer_id TEXT NOT NULL REFERENCES customers (id),
			qty INTEGER NOT NULL CONSTRAINT qty_positive CHECK (qty > 0))`,
		`INSERT INTO customers VALUES ('cus_1')`,
		`INSERT INTO orders VALUES ('A-1', 'cus_1', 1)`,
	} {
		if _, err := db.Exec(q); err != nil {
			panic(err)
		}
	}
	return dsn, func() { os.RemoveAll(dir) }
}

type placeOrderArgs struct {
	Ref        string `json:"ref"`
	CustomerID string `json:"customerId"`
	Qty        int    `json:"qty"`
}

// exampleServer returns a go-sdk server whose pipeline has
// sqlitefilter.New(opts...) as a global filter, a fixed ref and no log
// output.
func exampleServer(opts ...sqlitefilter.Option) *mcp.Server {
	pack, err := sqlitefilter.New(opts...)
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

// orderServer returns a go-sdk server with one tool, place_order, on the
// database at dsn, and opts as the tool's filters; its pipeline has
// sqlitefilter.New() as a global filter, a fixed ref and no log output.
func orderServer(dsn string, opts ...filter.ToolOption) (*mcp.Server, *sql.DB) {
	s := exampleServer()
	db, err := sql.Open("sqlite", dsn+"&_pragma=busy_timeout(50)")
	if err != nil {
		panic(err)
	}
	err = gosdk.AddTool(s, &mcp.Tool{Name: "place_order"},
		func(ctx context.Context, _ *mcp.CallToolRequest, in placeOrderArgs) (*mcp.CallToolResult, any, error) {
			_, err := db.ExecContext(ctx, `INSERT INTO orders VALUES (?, ?, ?)`, in.Ref, in.CustomerID, in.Qty)
			if err != nil {
				return nil, nil, fmt.Errorf("place order %s: %w", in.Ref, err)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "placed"}}}, nil, nil
		}, opts...)
	if err != nil {
		panic(err)
	}
	return s, db
}

// printCall calls a tool with the SDK's in-memory client and prints what
// the model reads: the text blocks.
func printCall(s *mcp.Server, tool string, args map[string]any) {
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
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		panic(err)
	}
	for i, c := range res.Content {
		fmt.Printf("content[%d]: %s\n", i, c.(*mcp.TextContent).Text)
	}
}

// New answers SQLite's constraint violations and locks for every tool,
// naming only the identifiers SQLite reports, never a value.
func ExampleNew() {
	dsn, cleanup := exampleDSN()
	defer cleanup()
	s, db := orderServer(dsn)
	defer db.Close()

	printCall(s, "place_order", map[string]any{"ref": "A-1", "customerId": "cus_1", "qty": 1})
	printCall(s, "place_order", map[string]any{"ref": "A-2", "customerId": "cus_9", "qty": 1})
	printCall(s, "place_order", map[string]any{"ref": "A-3", "customerId": "cus_1", "qty": 0})

	// Another connection holds the write lock.
	other, err := sql.Open("sqlite", dsn)
	if err != nil {
		panic(err)
	}
	defer other.Close()
	conn, err := other.Conn(context.Background())
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		panic(err)
	}
	printCall(s, "place_order", map[string]any{"ref": "A-4", "customerId": "cus_1", "qty": 1})
	// Output:
	// content[0]: A record with this value already exists (orders.ref); choose another value.
	// content[1]: Code: CONFLICT
	// Details: {"columns":["ref"],"table":"orders"}
	// Retry: no, not with the same arguments.
	// content[0]: A referenced record does not exist, or other records still refer to this one; check the identifiers in the arguments, or remove the referring records first.
	// content[1]: Code: BUSINESS_RULE_VIOLATION
	// Retry: no, not with the same arguments.
	// content[0]: A value is not allowed by a rule of the database (constraint qty_positive); check the arguments.
	// content[1]: Code: VALIDATION_ERROR
	// Details: {"constraint":"qty_positive"}
	// Retry: no, not with the same arguments.
	// content[0]: The database is locked by another operation; retry the call in a moment.
	// content[1]: Code: TIMEOUT
	// Retry: yes.
	// Ref: 5f0c2a9e81d34b67
}

// Constraint answers one constraint in the application's words. Bound to
// a tool, the tool's pack answers before the global one.
func ExampleConstraint() {
	dsn, cleanup := exampleDSN()
	defer cleanup()
	orders, err := sqlitefilter.New(sqlitefilter.Constraint("orders.ref", filter.Response{
		Code:    codes.Conflict,
		Message: "An order with this reference already exists.",
		Hints:   []string{"Use get_order to read it, or choose another reference."},
	}))
	if err != nil {
		panic(err) // a mistake in the server's definition, such as an empty name
	}
	s, db := orderServer(dsn, filter.WithFilters(orders))
	defer db.Close()

	printCall(s, "place_order", map[string]any{"ref": "A-1", "customerId": "cus_1", "qty": 1})
	// Output:
	// content[0]: An order with this reference already exists.
	// content[1]: Code: CONFLICT
	// Retry: no, not with the same arguments.
	// Hint: Use get_order to read it, or choose another reference.
}

type getOrderArgs struct {
	Ref string `json:"ref"`
}

// Resource names the kind of record a tool reads, so that a missing row
// (sql.ErrNoRows) in get_order reads as a missing order; a tool no
// Resource names keeps the generic sentence. The filter goes by the tool
// called: given to the pipeline for every tool, as here, or bound to one,
// it answers the same.
func ExampleResource() {
	dsn, cleanup := exampleDSN()
	defer cleanup()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		panic(err)
	}
	defer db.Close()
	s := exampleServer(sqlitefilter.Resource("get_order", "Order"))
	qty := func(ctx context.Context, _ *mcp.CallToolRequest, in getOrderArgs) (*mcp.CallToolResult, any, error) {
		var qty int
		if err := db.QueryRowContext(ctx, `SELECT qty FROM orders WHERE ref = ?`, in.Ref).Scan(&qty); err != nil {
			return nil, nil, fmt.Errorf("order %s: %w", in.Ref, err)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(qty)}}}, nil, nil
	}
	mcp.AddTool(s, &mcp.Tool{Name: "get_order"}, qty)
	mcp.AddTool(s, &mcp.Tool{Name: "order_qty"}, qty)

	printCall(s, "get_order", map[string]any{"ref": "A-404"})
	printCall(s, "order_qty", map[string]any{"ref": "A-404"})
	// Output:
	// content[0]: Order not found.
	// content[1]: Code: NOT_FOUND
	// Details: {"resourceType":"Order"}
	// Retry: no, not with the same arguments.
	// content[0]: Record not found.
	// content[1]: Code: NOT_FOUND
	// Retry: no, not with the same arguments.
}
