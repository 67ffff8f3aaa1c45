package sqlfilter_test

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	_ "modernc.org/sqlite"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/contrib/sqlfilter"
	"github.com/mcperr/mcperr/filter"
)

// exampleDB opens a new SQLite database file with an empty table of
// orders; cleanup removes it.
func exampleDB() (db *sql.DB, cleanup func()) {
	dir, err := os.MkdirTemp("", "sqlfilter-example")
	if err != nil {
		panic(err)
	}
	db, err = sql.Open("sqlite", "file:"+filepath.Join(dir, "shop.db"))
	if err != nil {
		panic(err)
	}
	if _, err := db.Exec(`CREATE TABLE orders (id TEXT PRIMARY KEY, status TEXT NOT NULL)`); err != nil {
		panic(err)
	}
	return db, func() { db.Close(); os.RemoveAll(dir) }
}

// exampleServer returns a go-sdk server whose pipeline has
// sqlfilter.New(opts...) as a global filter, a fixed ref and no log
// output.
func exampleServer(opts ...sqlfilter.Option) *mcp.Server {
	pack, err := sqlfilter.New(opts...)
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

type orderArgs struct {
	ID string `json:"id"`
}

// New answers database/sql's own errors for every tool: a query that
// found no row, and a connection that is gone.
func ExampleNew() {
	db, cleanup := exampleDB()
	defer cleanup()
	s := exampleServer()
	mcp.AddTool(s, &mcp.Tool{Name: "order_status"},
		func(ctx context.Context, _ *mcp.CallToolRequest, in orderArgs) (*mcp.CallToolResult, any, error) {
			var status string
			if err := db.QueryRowContext(ctx, `SELECT status FROM orders WHERE id = ?`, in.ID).Scan(&status); err != nil {
				return nil, nil, fmt.Errorf("order %s: %w", in.ID, err)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: status}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "order_count"},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			conn, err := db.Conn(ctx)
			if err != nil {
				return nil, nil, err
			}
			conn.Close() // used after Close: sql.ErrConnDone
			var n int
			if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM orders`).Scan(&n); err != nil {
				return nil, nil, fmt.Errorf("count orders: %w", err)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(n)}}}, nil, nil
		})

	printCall(s, "order_status", map[string]any{"id": "ord_404"})
	printCall(s, "order_count", nil)
	// Output:
	// content[0]: Record not found.
	// content[1]: Code: NOT_FOUND
	// Retry: no, not with the same arguments.
	// content[0]: The database is unavailable right now; retry the call in a moment.
	// content[1]: Code: UNAVAILABLE
	// Retry: yes, after 2 seconds.
	// Ref: 5f0c2a9e81d34b67
}

// Resource names the kind of record a tool reads, so that a missing row
// in get_order reads as a missing order; a tool no Resource names keeps
// the generic sentence. The filter goes by the tool called: given to the
// pipeline for every tool, as here, or bound to one, it answers the same.
func ExampleResource() {
	db, cleanup := exampleDB()
	defer cleanup()
	s := exampleServer(sqlfilter.Resource("get_order", "Order"))
	status := func(ctx context.Context, _ *mcp.CallToolRequest, in orderArgs) (*mcp.CallToolResult, any, error) {
		var status string
		if err := db.QueryRowContext(ctx, `SELECT status FROM orders WHERE id = ?`, in.ID).Scan(&status); err != nil {
			return nil, nil, fmt.Errorf("order %s: %w", in.ID, err)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: status}}}, nil, nil
	}
	mcp.AddTool(s, &mcp.Tool{Name: "get_order"}, status)
	mcp.AddTool(s, &mcp.Tool{Name: "order_status"}, status)

	printCall(s, "get_order", map[string]any{"id": "ord_404"})
	printCall(s, "order_status", map[string]any{"id": "ord_404"})
	// Output:
	// content[0]: Order not found.
	// content[1]: Code: NOT_FOUND
	// Details: {"resourceType":"Order"}
	// Retry: no, not with the same arguments.
	// content[0]: Record not found.
	// content[1]: Code: NOT_FOUND
	// Retry: no, not with the same arguments.
}
