package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/contrib/pgxfilter"
	"github.com/mcperr/mcperr/contrib/sqlitefilter"
	"github.com/mcperr/mcperr/filter"
)

// lockWaitMillis is how long, in milliseconds, a write waits for a lock
// another transaction holds before the database gives up: SQLite's busy
// timeout, PostgreSQL's lock_timeout.
const lockWaitMillis = "200"

// database is an open database and what differs between SQLite and
// PostgreSQL: the pack that answers its errors, and how a write waits for
// a lock.
type database struct {
	name  string
	store *Store
	// pack answers the database's own errors for every tool, a missing
	// row among them, told what the tools read as sqlfilter is in
	// newServer.
	pack filter.Filter
	// placeOrder answers place_order's constraint violations in the
	// application's words.
	placeOrder []filter.Filter
	// holdLock takes, on a connection of its own, the lock that a change to
	// the order ref needs, as another process would, until release.
	holdLock func(ctx context.Context, ref string) (release func() error, err error)
	close    func() error
}

// The application's own answers to place_order's constraint violations:
// the same words on SQLite and PostgreSQL.
var (
	duplicateOrder = filter.Response{Code: codes.Conflict, Message: "An order with this reference already exists.",
		Hints: []string{"Read it with get_order, or place the order under another ref."}}
	noSuchCustomer = filter.Response{Code: codes.NotFound, Message: "No such customer.",
		Hints: []string{"Create the customer with create_customer first, or check customerId."}}
	qtyRule = filter.Response{Code: codes.ValidationError, Message: "Validation failed for qty: must be 1 or more",
		Details: map[string]any{"violations": []any{
			map[string]any{"field": "qty", "pointer": "/qty", "reason": "minimum", "constraint": "must be 1 or more"},
		}}}
)

// openSQLite opens the SQLite database file at path, creating a temporary
// one when path is empty, and creates the tables anew.
func openSQLite(ctx context.Context, path string) (*database, error) {
	pack, err := sqlitefilter.New(
		sqlitefilter.Resource("get_order", "Order"),
		sqlitefilter.Resource("update_order_status", "Order"),
	)
	if err != nil {
		return nil, err
	}
	orders, err := sqlitefilter.New(
		sqlitefilter.Constraint("orders.ref", duplicateOrder),
		sqlitefilter.Constraint("orders_qty_positive", qtyRule),
	)
	if err != nil {
		return nil, err
	}
	dir := ""
	if path == "" {
		if dir, err = os.MkdirTemp("", "orders-sql"); err != nil {
			return nil, err
		}
		path = filepath.Join(dir, "orders.db")
	}
	removeDir := func() error {
		if dir == "" {
			return nil
		}
		return os.RemoveAll(dir)
	}
	dsn := "file:" + path + "?_pragma=foreign_keys(1)&_pragma=busy_timeout(" + lockWaitMillis + ")"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, errors.Join(err, removeDir())
	}
	for _, q := range []string{`DROP TABLE IF EXISTS orders`, `DROP TABLE IF EXISTS customers`} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return nil, errors.Join(err, db.Close(), removeDir())
		}
	}
	if err := createSchema(ctx, db); err != nil {
		return nil, errors.Join(err, db.Close(), removeDir())
	}
	d := &database{
		name:  "SQLite " + path,
		store: &Store{db: db, beginWrite: func(context.Context, *sql.Tx) error { return nil }},
		pack:  pack,
		placeOrder: []filter.Filter{
			// SQLite names no foreign key in its error; place_order's one
			// foreign key is the customer's.
			filter.Catch(func(_ context.Context, _ filter.Call, e *sqlite.Error) (*filter.Response, error) {
				if e.Code() != sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY {
					return nil, nil
				}
				r := noSuchCustomer
				return &r, nil
			}),
			orders,
		},
		close: func() error { return errors.Join(db.Close(), removeDir()) },
	}
	d.holdLock = func(ctx context.Context, _ string) (func() error, error) {
		// SQLite locks the whole file for writing.
		return holdInTransaction(ctx, db, func(ctx context.Context, conn *sql.Conn) error {
			_, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE")
			return err
		})
	}
	return d, nil
}

// openPostgres connects to the PostgreSQL server at dsn and creates the
// tables in a new schema of the program's own, dropped by close.
func openPostgres(ctx context.Context, dsn string) (*database, error) {
	pack, err := pgxfilter.New(
		pgxfilter.Resource("get_order", "Order"),
		pgxfilter.Resource("update_order_status", "Order"),
	)
	if err != nil {
		return nil, err
	}
	orders, err := pgxfilter.New(
		pgxfilter.Constraint("orders_pkey", duplicateOrder),
		pgxfilter.Constraint("orders_customer_id_fkey", noSuchCustomer),
		pgxfilter.Constraint("orders_qty_positive", qtyRule),
	)
	if err != nil {
		return nil, err
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("-dsn: %w", err)
	}
	var b [6]byte
	rand.Read(b[:])
	schemaName := "orders_demo_" + hex.EncodeToString(b[:])
	admin := stdlib.OpenDB(*cfg.Copy())
	if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+schemaName); err != nil {
		return nil, errors.Join(fmt.Errorf("create schema %s: %w", schemaName, err), admin.Close())
	}
	dropSchema := func() error {
		_, err := admin.ExecContext(context.Background(), "DROP SCHEMA "+schemaName+" CASCADE")
		return errors.Join(err, admin.Close())
	}
	cfg.RuntimeParams["search_path"] = schemaName
	db := stdlib.OpenDB(*cfg)
	if err := createSchema(ctx, db); err != nil {
		return nil, errors.Join(err, db.Close(), dropSchema())
	}
	d := &database{
		name: "PostgreSQL, schema " + schemaName,
		store: &Store{db: db, beginWrite: func(ctx context.Context, tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, "SET LOCAL lock_timeout = "+lockWaitMillis)
			return err
		}},
		pack:       pack,
		placeOrder: []filter.Filter{orders},
		close:      func() error { return errors.Join(db.Close(), dropSchema()) },
	}
	d.holdLock = func(ctx context.Context, ref string) (func() error, error) {
		// PostgreSQL locks the row.
		return holdInTransaction(ctx, db, func(ctx context.Context, conn *sql.Conn) error {
			if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
				return err
			}
			_, err := conn.ExecContext(ctx, "SELECT 1 FROM orders WHERE ref = $1 FOR UPDATE", ref)
			return err
		})
	}
	return d, nil
}

// holdInTransaction runs begin on a connection of its own and keeps the
// transaction it begins open until release, which rolls it back.
func holdInTransaction(ctx context.Context, db *sql.DB, begin func(context.Context, *sql.Conn) error) (release func() error, err error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	if err := begin(ctx, conn); err != nil {
		return nil, errors.Join(err, conn.Close())
	}
	return func() error {
		_, err := conn.ExecContext(context.Background(), "ROLLBACK")
		return errors.Join(err, conn.Close())
	}, nil
}
