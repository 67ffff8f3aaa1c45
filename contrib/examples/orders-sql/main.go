// Command orders-sql is an order service on a real SQL database, served
// with the official Go MCP SDK and mcperr's filter packs for databases.
//
//	go run ./contrib/examples/orders-sql                    # SQLite in a temporary file
//	go run ./contrib/examples/orders-sql -db orders.db      # SQLite in orders.db
//	go run ./contrib/examples/orders-sql -dsn postgres://user:password@localhost:5432/shop
//
// SQLite is modernc.org/sqlite, in pure Go: the program needs nothing but
// Go. With -db, its tables (customers, orders) are dropped and created anew
// in that file. With -dsn, it uses PostgreSQL through pgx's database/sql
// driver, in a schema of its own that it creates and drops when it ends.
//
// Its store speaks database/sql and returns the database's errors wrapped
// with %w, knowing nothing of MCP. The server answers them with the packs,
// given once for every tool: sqlfilter for database/sql's own errors, and
// sqlitefilter or pgxfilter for the database's. Each is told which kind of
// record each tool reads, so that a missing row in get_order reads "Order
// not found." whichever pack answers it. Where the application has words
// of its own, a tool gets its own filters: place_order answers a duplicate
// reference, a missing customer and a quantity below one in the same words
// on both databases. The program calls each tool with the SDK's in-memory client,
// once while it holds a lock itself, and prints what the model receives:
// nothing of the database's own text, which stays in the log on stderr.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
)

// config is what the command line chooses.
type config struct {
	dbPath string // SQLite file; "" for a temporary one
	dsn    string // PostgreSQL URL; "" for SQLite
}

func main() {
	var cfg config
	flag.StringVar(&cfg.dbPath, "db", "", "the SQLite database `file` to use; its customers and orders tables are created anew (default: a temporary file)")
	flag.StringVar(&cfg.dsn, "dsn", "", "a PostgreSQL `URL`, such as postgres://user:password@localhost:5432/shop, to use instead of SQLite")
	flag.Parse()
	if cfg.dbPath != "" && cfg.dsn != "" {
		fmt.Fprintln(os.Stderr, "orders-sql: give -db or -dsn, not both")
		os.Exit(2)
	}
	if err := run(context.Background(), os.Stdout, os.Stderr, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "orders-sql:", err)
		os.Exit(1)
	}
}

// openDatabase opens the database cfg chooses.
func openDatabase(ctx context.Context, cfg config) (*database, error) {
	if cfg.dsn != "" {
		return openPostgres(ctx, cfg.dsn)
	}
	return openSQLite(ctx, cfg.dbPath)
}

// call is one call of the demonstration.
type call struct {
	what string
	tool string
	args map[string]any
	// locked: the program holds the lock the call needs while it runs.
	locked bool
}

// calls are the calls the program makes, in order.
var calls = []call{
	{"a new customer", "create_customer", map[string]any{"id": "cus_1", "name": "Ann Lee"}, false},
	{"the same customer again", "create_customer", map[string]any{"id": "cus_1", "name": "Ann Lee"}, false},
	{"a new order", "place_order", map[string]any{"ref": "A-1", "customerId": "cus_1", "qty": 2}, false},
	{"a duplicate order", "place_order", map[string]any{"ref": "A-1", "customerId": "cus_1", "qty": 5}, false},
	{"a missing customer", "place_order", map[string]any{"ref": "A-2", "customerId": "cus_9", "qty": 1}, false},
	{"a quantity of zero", "place_order", map[string]any{"ref": "A-3", "customerId": "cus_1", "qty": 0}, false},
	{"an order that exists", "get_order", map[string]any{"ref": "A-1"}, false},
	{"a missing order", "get_order", map[string]any{"ref": "A-404"}, false},
	{"an order another transaction has locked", "update_order_status", map[string]any{"ref": "A-1", "status": "shipped"}, true},
	{"the same call once the lock is gone", "update_order_status", map[string]any{"ref": "A-1", "status": "shipped"}, false},
}

// run opens the database, calls every tool the ways it can fail, and
// prints what the client receives. The server's log goes to stderr.
func run(ctx context.Context, stdout, stderr io.Writer, cfg config) (err error) {
	d, err := openDatabase(ctx, cfg)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := d.close(); err == nil {
			err = cerr
		}
	}()
	server, err := newServer(d, slog.New(slog.NewTextHandler(stderr, nil)))
	if err != nil {
		return err
	}
	serverTransport, clientTransport := mcp.NewInMemoryTransports()
	serverSession, err := server.Connect(ctx, serverTransport, nil)
	if err != nil {
		return err
	}
	defer serverSession.Close()
	session, err := mcp.NewClient(&mcp.Implementation{Name: "orders-sql-demo", Version: "1.0.0"}, nil).Connect(ctx, clientTransport, nil)
	if err != nil {
		return err
	}
	defer session.Close()

	fmt.Fprintf(stdout, "database: %s\n", d.name)
	for _, c := range calls {
		res, err := callTool(ctx, session, d, c)
		if err != nil {
			return err
		}
		printResult(stdout, c, res)
	}
	return nil
}

// callTool makes one call, holding the lock it needs while it runs if the
// call says so.
func callTool(ctx context.Context, session *mcp.ClientSession, d *database, c call) (res *mcp.CallToolResult, err error) {
	if c.locked {
		release, err := d.holdLock(ctx, c.args["ref"].(string))
		if err != nil {
			return nil, fmt.Errorf("hold the lock: %w", err)
		}
		defer func() {
			if rerr := release(); err == nil && rerr != nil {
				err = fmt.Errorf("release the lock: %w", rerr)
			}
		}()
	}
	return session.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
}

// printResult writes what the model reads, the content block by block, and what
// a program reads, the envelope in _meta.
func printResult(w io.Writer, c call, res *mcp.CallToolResult) {
	fmt.Fprintf(w, "%s: %s\n", c.tool, c.what)
	for i, content := range res.Content {
		label := fmt.Sprintf("content[%d]:", i)
		for _, line := range strings.Split(content.(*mcp.TextContent).Text, "\n") {
			fmt.Fprintf(w, "  %-12s %s\n", label, line)
			label = ""
		}
	}
	env, ok := gosdk.EnvelopeOf(res)
	if !ok {
		return
	}
	fmt.Fprintf(w, "  %-12s code=%s category=%s retryable=%t", "envelope:", env.Code, env.Category, env.Retryable)
	if env.RetryAfterSeconds > 0 {
		fmt.Fprintf(w, " retryAfter=%gs", env.RetryAfterSeconds)
	}
	if env.Ref != "" {
		fmt.Fprintf(w, " ref=%s", env.Ref)
	}
	fmt.Fprintln(w)
}
