package dbservice

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
)

// memdb is a database/sql driver over a few in-memory tables that answers
// exactly the statements the service prepares. It stands in for Postgres in
// this program: the service code talks to *sql.DB as it would in production.

// Customer is a row of customers.
type Customer struct {
	ID, Name, Email string
}

// Order is a row of orders.
type Order struct {
	ID, CustomerID, Status string
	TotalCents             int64
}

// Store holds the tables. Down makes every statement fail as a lost
// connection does, with the text a driver really returns.
type Store struct {
	mu        sync.Mutex
	Customers map[string]Customer
	Orders    map[string]Order
	Notes     map[string][]string
	Down      bool
}

// NewStore returns a store with a few rows.
func NewStore() *Store {
	return &Store{
		Customers: map[string]Customer{
			"c_1": {ID: "c_1", Name: "Ada Lovelace", Email: "ada@example.com"},
			"c_2": {ID: "c_2", Name: "Alan Turing", Email: "alan@example.com"},
		},
		Orders: map[string]Order{
			"o_1": {ID: "o_1", CustomerID: "c_1", Status: "pending", TotalCents: 4200},
			"o_2": {ID: "o_2", CustomerID: "c_1", Status: "shipped", TotalCents: 1999},
		},
		Notes: map[string][]string{},
	}
}

// Open returns a *sql.DB over s.
func Open(s *Store) *sql.DB { return sql.OpenDB(connector{s}) }

var errConnRefused = errors.New(`dial tcp 10.0.4.12:5432: connect: connection refused (host=orders-db.internal user=svc_orders password=hunter2)`)

const (
	qCustomer     = "SELECT id, name, email FROM customers WHERE id = $1"
	qOrdersBy     = "SELECT id, customer_id, status, total_cents FROM orders WHERE customer_id = $1"
	qOrdersStatus = "SELECT id, customer_id, status, total_cents FROM orders WHERE status = $1"
	qOrder        = "SELECT id, customer_id, status, total_cents FROM orders WHERE id = $1"
	qSetStatus    = "UPDATE orders SET status = $1 WHERE id = $2"
	qAddNote      = "INSERT INTO order_notes (order_id, body) VALUES ($1, $2)"
)

type connector struct{ s *Store }

func (c connector) Connect(context.Context) (driver.Conn, error) { return conn(c), nil }
func (c connector) Driver() driver.Driver                        { return nil }

type conn struct{ s *Store }

func (c conn) Prepare(q string) (driver.Stmt, error) { return stmt{c.s, q}, nil }
func (c conn) Close() error                          { return nil }
func (c conn) Begin() (driver.Tx, error)             { return nil, errors.New("memdb: no transactions") }

type stmt struct {
	s *Store
	q string
}

func (st stmt) Close() error  { return nil }
func (st stmt) NumInput() int { return strings.Count(st.q, "$") }

func (st stmt) Exec(args []driver.Value) (driver.Result, error) {
	st.s.mu.Lock()
	defer st.s.mu.Unlock()
	if st.s.Down {
		return nil, errConnRefused
	}
	switch st.q {
	case qSetStatus:
		o, ok := st.s.Orders[args[1].(string)]
		if !ok {
			return driver.RowsAffected(0), nil
		}
		o.Status = args[0].(string)
		st.s.Orders[o.ID] = o
		return driver.RowsAffected(1), nil
	case qAddNote:
		id := args[0].(string)
		if _, ok := st.s.Orders[id]; !ok {
			return nil, fmt.Errorf(`pq: insert or update on table "order_notes" violates foreign key constraint "order_notes_order_id_fkey" (order_id=%s)`, id)
		}
		st.s.Notes[id] = append(st.s.Notes[id], args[1].(string))
		return driver.RowsAffected(1), nil
	}
	return nil, fmt.Errorf("memdb: unknown statement %q", st.q)
}

func (st stmt) Query(args []driver.Value) (driver.Rows, error) {
	st.s.mu.Lock()
	defer st.s.mu.Unlock()
	if st.s.Down {
		return nil, errConnRefused
	}
	r := &rows{}
	switch st.q {
	case qCustomer:
		r.cols = []string{"id", "name", "email"}
		if c, ok := st.s.Customers[args[0].(string)]; ok {
			r.data = append(r.data, []driver.Value{c.ID, c.Name, c.Email})
		}
		return r, nil
	case qOrdersBy, qOrdersStatus, qOrder:
		r.cols = []string{"id", "customer_id", "status", "total_cents"}
		for _, o := range st.s.Orders {
			if (st.q == qOrdersBy && o.CustomerID == args[0]) ||
				(st.q == qOrdersStatus && o.Status == args[0]) ||
				(st.q == qOrder && o.ID == args[0]) {
				r.data = append(r.data, []driver.Value{o.ID, o.CustomerID, o.Status, o.TotalCents})
			}
		}
		sort.Slice(r.data, func(i, j int) bool { return r.data[i][0].(string) < r.data[j][0].(string) })
		return r, nil
	}
	return nil, fmt.Errorf("memdb: unknown query %q", st.q)
}

type rows struct {
	cols []string
	data [][]driver.Value
}

func (r *rows) Columns() []string { return r.cols }
func (r *rows) Close() error      { return nil }
func (r *rows) Next(dest []driver.Value) error {
	if len(r.data) == 0 {
		return io.EOF
	}
	copy(dest, r.data[0])
	r.data = r.data[1:]
	return nil
}
