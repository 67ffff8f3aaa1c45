package main

import (
	"context"
	"database/sql"
	"fmt"
)

// schema creates the service's tables. It is the same SQL for SQLite and
// PostgreSQL; the constraints have names where both report them.
var schema = []string{
	`CREATE TABLE customers (
		id TEXT PRIMARY KEY,
		name TEXT NOT NULL
	)`,
	`CREATE TABLE orders (
		ref TEXT PRIMARY KEY,
		customer_id TEXT NOT NULL CONSTRAINT orders_customer_id_fkey REFERENCES customers (id),
		qty INTEGER NOT NULL CONSTRAINT orders_qty_positive CHECK (qty > 0),
		status TEXT NOT NULL DEFAULT 'pending'
	)`,
}

// Customer is a customer of the shop.
type Customer struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// Order is an order of one customer.
type Order struct {
	Ref        string `json:"ref"`
	CustomerID string `json:"customerId"`
	Qty        int    `json:"qty"`
	Status     string `json:"status"`
}

// Store is the service layer: plain database/sql. It knows nothing of MCP
// and returns the database's errors wrapped with %w, as real code does.
type Store struct {
	db *sql.DB
	// beginWrite prepares a write transaction; PostgreSQL's sets a lock
	// timeout there, SQLite's is the busy timeout of its connections.
	beginWrite func(ctx context.Context, tx *sql.Tx) error
}

// CreateCustomer adds a customer.
func (s *Store) CreateCustomer(ctx context.Context, c Customer) (Customer, error) {
	if _, err := s.db.ExecContext(ctx, `INSERT INTO customers (id, name) VALUES ($1, $2)`, c.ID, c.Name); err != nil {
		return Customer{}, fmt.Errorf("insert customer %s (%s): %w", c.ID, c.Name, err)
	}
	return c, nil
}

// PlaceOrder adds a pending order.
func (s *Store) PlaceOrder(ctx context.Context, o Order) (Order, error) {
	o.Status = "pending"
	_, err := s.db.ExecContext(ctx, `INSERT INTO orders (ref, customer_id, qty, status) VALUES ($1, $2, $3, $4)`,
		o.Ref, o.CustomerID, o.Qty, o.Status)
	if err != nil {
		return Order{}, fmt.Errorf("insert order %s for customer %s: %w", o.Ref, o.CustomerID, err)
	}
	return o, nil
}

// GetOrder returns an order.
func (s *Store) GetOrder(ctx context.Context, ref string) (Order, error) {
	o := Order{Ref: ref}
	err := s.db.QueryRowContext(ctx, `SELECT customer_id, qty, status FROM orders WHERE ref = $1`, ref).
		Scan(&o.CustomerID, &o.Qty, &o.Status)
	if err != nil {
		return Order{}, fmt.Errorf("select order %s: %w", ref, err)
	}
	return o, nil
}

// UpdateStatus changes an order's status and returns the order.
func (s *Store) UpdateStatus(ctx context.Context, ref, status string) (o Order, err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Order{}, fmt.Errorf("update order %s: %w", ref, err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	if err := s.beginWrite(ctx, tx); err != nil {
		return Order{}, fmt.Errorf("update order %s: %w", ref, err)
	}
	o = Order{Ref: ref}
	err = tx.QueryRowContext(ctx, `UPDATE orders SET status = $1 WHERE ref = $2 RETURNING customer_id, qty, status`, status, ref).
		Scan(&o.CustomerID, &o.Qty, &o.Status)
	if err != nil {
		return Order{}, fmt.Errorf("update order %s to %s: %w", ref, status, err)
	}
	if err := tx.Commit(); err != nil {
		return Order{}, fmt.Errorf("update order %s: commit: %w", ref, err)
	}
	return o, nil
}

// createSchema creates the service's tables in db.
func createSchema(ctx context.Context, db *sql.DB) error {
	for _, q := range schema {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("create the schema: %w", err)
		}
	}
	return nil
}
