package pgxfilter_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/contrib/pgxfilter"
	"github.com/mcperr/mcperr/filter"
)

// shop is the schema of the real-server tests. Every row holds the canary.
var shop = []string{
	`CREATE TABLE customers (id int PRIMARY KEY, email text NOT NULL)`,
	`CREATE TABLE orders (
		id serial PRIMARY KEY,
		ref text NOT NULL CONSTRAINT orders_ref_key UNIQUE,
		customer_id int NOT NULL CONSTRAINT orders_customer_id_fkey REFERENCES customers (id),
		quantity int NOT NULL CONSTRAINT orders_quantity_check CHECK (quantity > 0),
		note varchar(8)
	)`,
	`CREATE TABLE bookings (id serial PRIMARY KEY, during int4range NOT NULL,
		CONSTRAINT bookings_during_excl EXCLUDE USING gist (during WITH &&))`,
	`CREATE TABLE counters (id int PRIMARY KEY, n int NOT NULL, owner text NOT NULL)`,
	`INSERT INTO customers VALUES (1, '` + canary + `@example.com')`,
	`INSERT INTO orders (ref, customer_id, quantity, note) VALUES ('` + canary + `', 1, 1, 'first')`,
	`INSERT INTO bookings (during) VALUES ('[1,10)')`,
	`INSERT INTO counters SELECT i, 0, '` + canary + `' FROM generate_series(1, 8) AS i`,
}

// withConns opens n connections, runs f with them, and closes them.
func (p *postgres) withConns(ctx context.Context, n int, f func(cs ...*pgx.Conn) error) error {
	cs := make([]*pgx.Conn, 0, n)
	defer func() {
		for _, c := range cs {
			c.Close(context.Background())
		}
	}()
	for range n {
		c, err := p.connect(ctx)
		if err != nil {
			return fmt.Errorf("set-up: %w", err)
		}
		cs = append(cs, c)
	}
	return f(cs...)
}

// exec1 runs one statement on a new connection.
func (p *postgres) exec1(q string, args ...any) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		return p.withConns(ctx, 1, func(cs ...*pgx.Conn) error {
			_, err := cs[0].Exec(ctx, q, args...)
			return err
		})
	}
}

// TestRealServer provokes each error the server reports on demand, on a
// real PostgreSQL server, and checks what the client reads of it on both
// SDKs, that the canary in the rows and in the error's text never reaches
// the client, and that the log keeps the original error.
func TestRealServer(t *testing.T) {
	t.Parallel()
	p := openPostgres(t, shop...)
	fkey := "A referenced record does not exist, or other records still refer to this one (constraint orders_customer_id_fkey); check the identifiers in the arguments, or remove the referring records first."
	cases := []tcase{
		{name: "duplicate_ref",
			run: p.exec1(`INSERT INTO orders (ref, customer_id, quantity) VALUES ($1, 1, 2)`, canary),
			want: want{code: codes.Conflict, message: "A record with this value already exists (constraint orders_ref_key); choose another value.",
				details: `{"constraint":"orders_ref_key","sqlState":"23505","table":"orders"}`, logged: []string{"SQLSTATE 23505"}}},
		{name: "missing_customer",
			run: func(ctx context.Context) error {
				return p.exec1(`INSERT INTO orders (ref, customer_id, quantity) VALUES ($1, 999, 2)`, canary+"-"+randomHex(4))(ctx)
			},
			want: want{code: codes.BusinessRuleViolation, message: fkey,
				details: `{"constraint":"orders_customer_id_fkey","sqlState":"23503","table":"orders"}`, logged: []string{"SQLSTATE 23503"}}},
		{name: "customer_with_orders",
			run: p.exec1(`DELETE FROM customers WHERE email = $1`, canary+"@example.com"),
			want: want{code: codes.BusinessRuleViolation, message: fkey,
				details: `{"constraint":"orders_customer_id_fkey","sqlState":"23503","table":"orders"}`, logged: []string{"SQLSTATE 23503"}}},
		{name: "missing_customer_named",
			filters: []filter.Filter{mustNew(pgxfilter.Constraint("orders_customer_id_fkey",
				filter.Response{Code: codes.NotFound, Message: "No such customer.", Details: map[string]any{"resourceType": "Customer"}}))},
			run: func(ctx context.Context) error {
				return p.exec1(`INSERT INTO orders (ref, customer_id, quantity) VALUES ($1, 999, 2)`, canary+"-"+randomHex(4))(ctx)
			},
			want: want{code: codes.NotFound, message: "No such customer.", details: `{"resourceType":"Customer"}`, logged: []string{"SQLSTATE 23503"}}},
		{name: "zero_quantity",
			run: func(ctx context.Context) error {
				return p.exec1(`INSERT INTO orders (ref, customer_id, quantity) VALUES ($1, 1, 0)`, canary+"-"+randomHex(4))(ctx)
			},
			want: want{code: codes.ValidationError, message: "A value is not allowed by a rule of the database (constraint orders_quantity_check); check the arguments.",
				details: `{"constraint":"orders_quantity_check","sqlState":"23514","table":"orders"}`, logged: []string{"SQLSTATE 23514"}}},
		{name: "no_quantity",
			run: func(ctx context.Context) error {
				return p.exec1(`INSERT INTO orders (ref, customer_id, quantity) VALUES ($1, 1, NULL)`, canary+"-"+randomHex(4))(ctx)
			},
			want: want{code: codes.ValidationError, message: "A value is required for quantity; provide it.",
				details: `{"column":"quantity","sqlState":"23502","table":"orders","violations":[{"constraint":"is required","field":"quantity","reason":"required"}]}`,
				logged:  []string{"SQLSTATE 23502"}}},
		{name: "overlapping_booking",
			run: p.exec1(`INSERT INTO bookings (during) VALUES ('[5,15)')`),
			want: want{code: codes.Conflict, message: "The record conflicts with an existing one (constraint bookings_during_excl); choose other values.",
				details: `{"constraint":"bookings_during_excl","sqlState":"23P01","table":"bookings"}`, logged: []string{"SQLSTATE 23P01"}}},
		{name: "note_too_long",
			run: p.exec1(`UPDATE orders SET note = $1 WHERE ref = $2`, canary, canary),
			want: want{code: codes.ValidationError, message: "A value is too long for the database (SQLSTATE 22001); check the values in the arguments.",
				details: `{"sqlState":"22001"}`, logged: []string{"SQLSTATE 22001"}}},
		{name: "not_a_number",
			run: p.exec1(`SELECT quantity FROM orders WHERE id = $1::text::int`, canary),
			want: want{code: codes.ValidationError, message: "A value is not in the form its database type needs (SQLSTATE 22P02); check the values in the arguments.",
				details: `{"sqlState":"22P02"}`, logged: []string{"SQLSTATE 22P02", "invalid input syntax for type integer: \"" + canary}}},
		{name: "deadlock", run: p.deadlock,
			want: want{code: codes.Conflict, retry: true, message: "The operation conflicted with a concurrent change (SQLSTATE 40P01); retry the call.",
				details: `{"sqlState":"40P01"}`, logged: []string{"SQLSTATE 40P01"}}},
		{name: "concurrent_update", run: p.serializationFailure,
			want: want{code: codes.Conflict, retry: true, message: "The operation conflicted with a concurrent change (SQLSTATE 40001); retry the call.",
				details: `{"sqlState":"40001"}`, logged: []string{"SQLSTATE 40001"}}},
		{name: "statement_timeout", run: p.statementTimeout,
			want: want{code: codes.Timeout, retry: true,
				message: "The database stopped the statement before it finished, usually because it took too long (SQLSTATE 57014); retry the call, or ask for less at once.",
				details: `{"sqlState":"57014"}`, logged: []string{"SQLSTATE 57014"}}},
		{name: "lock_timeout", run: p.lockTimeout,
			want: want{code: codes.Timeout, retry: true, message: "A record the tool needs is locked by another operation (SQLSTATE 55P03); retry the call in a moment.",
				details: `{"sqlState":"55P03"}`, logged: []string{"SQLSTATE 55P03"}}},
		{name: "own_deadline", run: p.ownDeadline,
			want: want{code: codes.Timeout, unknown: true, message: "The database did not answer in time.",
				logged: []string{"timeout"}}},
		{name: "own_deadline_reading", readOnly: true, run: p.ownDeadline,
			want: want{code: codes.Timeout, retry: true, message: "The database did not answer in time.",
				logged: []string{"timeout"}}},
		{name: "terminated", run: p.exec1(`SELECT pg_terminate_backend(pg_backend_pid())`),
			want: want{code: codes.Unavailable, retry: true, after: 2 * time.Second,
				message: "The database is unavailable right now (SQLSTATE 57P01); retry the call in a moment.",
				details: `{"sqlState":"57P01"}`, logged: []string{"SQLSTATE 57P01"}}},
		{name: "closed_conn", run: p.closedConn,
			want: want{code: codes.Unavailable, retry: true, after: 2 * time.Second,
				message: "The database is unavailable right now; retry the call in a moment.", logged: []string{"conn closed"}}},
		// Passed on, and masked by the pipeline.
		{name: "undefined_table", run: p.exec1(`SELECT * FROM no_such_table WHERE ref = $1`, canary),
			want: want{masked: true, logged: []string{"SQLSTATE 42P01"}}},
		{name: "raised", run: p.exec1(`DO $$ BEGIN RAISE EXCEPTION 'credit limit of ` + canary + ` exceeded'; END $$`),
			want: want{masked: true, logged: []string{"SQLSTATE P0001"}}},
		// Answered by the pack alone, with no Resource for the tool.
		{name: "no_rows", run: p.noRows,
			want: want{code: codes.NotFound, message: "Record not found.", logged: []string{"no rows in result set"}}},
	}
	onBothSDKs(t, cases)
}

// TestNoRows reads rows that do not exist on a real PostgreSQL server,
// through pgx and through database/sql with pgx's stdlib driver, with the
// pack alone: a missing row is NOT_FOUND on both SDKs, named by the kind
// of record a Resource gives for the tool called, whether the pack is the
// pipeline's global filter or bound to the tool, and "Record not found."
// in a tool it was not told about.
func TestNoRows(t *testing.T) {
	t.Parallel()
	p := openPostgres(t, shop...)
	db := stdlib.OpenDB(*p.cfg.Copy())
	t.Cleanup(func() { db.Close() })
	viaSQL := func(ctx context.Context) error {
		var n int
		err := db.QueryRowContext(ctx, `SELECT n FROM counters WHERE owner = $1 AND id = 404`, canary).Scan(&n)
		if !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("set-up: the error %v is not sql.ErrNoRows", err)
		}
		return err
	}
	global := mustNew(pgxfilter.Resource("get_order", "Order"), pgxfilter.Resource("get_customer", "Customer"))
	invoices := []filter.Filter{mustNew(pgxfilter.Resource("get_invoice", "Invoice"))}
	named := func(kind string) want {
		return want{code: codes.NotFound, message: kind + " not found.", details: `{"resourceType":"` + kind + `"}`,
			logged: []string{"no rows in result set"}}
	}
	generic := want{code: codes.NotFound, message: "Record not found.", logged: []string{"no rows in result set"}}
	onBothSDKsWith(t, global, []tcase{
		{name: "get_order", run: p.noRows, want: named("Order")},
		{name: "get_customer", run: viaSQL, want: named("Customer")},
		{name: "find_record", run: p.noRows, want: generic},
		{name: "find_record_sql", run: viaSQL, want: generic},
		{name: "get_invoice", filters: invoices, run: p.noRows, want: named("Invoice")},
		// The same filter bound to a tool it was not told about.
		{name: "get_refund", filters: invoices, run: p.noRows, want: generic},
	})
}

// raise returns a tool body that raises an error in PL/pgSQL with the
// SQLSTATE errcode and the USING options using, as a function of the
// application's can: its message holds the canary.
func (p *postgres) raise(errcode, using string) func(ctx context.Context) error {
	q := `DO $$ BEGIN RAISE EXCEPTION 'raised for ` + canary + `' USING ERRCODE = '` + errcode + `'`
	if using != "" {
		q += ", " + using
	}
	return p.exec1(q + `; END $$`)
}

// TestRaisedNames raises, on a real PostgreSQL server, integrity and data
// errors whose constraint, table and column names are any text a function
// chose (RAISE ... USING CONSTRAINT, TABLE, COLUMN): a name that is not a
// plain identifier, such as one that holds the canary, is sent neither in
// the text nor in the details, on both SDKs; an identifier still is, and a
// Constraint of the application still answers it.
func TestRaisedNames(t *testing.T) {
	t.Parallel()
	p := openPostgres(t, shop...)
	fkey := "A referenced record does not exist, or other records still refer to this one; check the identifiers in the arguments, or remove the referring records first."
	cases := []tcase{
		{name: "unique_canary", run: p.raise("unique_violation", "CONSTRAINT = '"+canary+"', TABLE = '"+canary+"'"),
			want: want{code: codes.Conflict, message: "A record with this value already exists; choose another value.",
				details: `{"sqlState":"23505"}`, logged: []string{"SQLSTATE 23505"}}},
		{name: "unique_identifier_then_canary", run: p.raise("unique_violation", "CONSTRAINT = 'orders_ref_key "+canary+"', TABLE = 'orders ("+canary+")'"),
			want: want{code: codes.Conflict, message: "A record with this value already exists; choose another value.",
				details: `{"sqlState":"23505"}`, logged: []string{"SQLSTATE 23505"}}},
		{name: "unique_key_value", run: p.raise("unique_violation", "CONSTRAINT = 'Key (ref)=("+canary+") already exists.'"),
			want: want{code: codes.Conflict, message: "A record with this value already exists; choose another value.",
				details: `{"sqlState":"23505"}`, logged: []string{"SQLSTATE 23505"}}},
		{name: "exclusion_canary", run: p.raise("exclusion_violation", "CONSTRAINT = '"+canary+"'"),
			want: want{code: codes.Conflict, message: "The record conflicts with an existing one; choose other values.",
				details: `{"sqlState":"23P01"}`, logged: []string{"SQLSTATE 23P01"}}},
		{name: "foreign_key_canary", run: p.raise("foreign_key_violation", "CONSTRAINT = '"+canary+"', TABLE = '"+canary+"'"),
			want: want{code: codes.BusinessRuleViolation, message: fkey, details: `{"sqlState":"23503"}`, logged: []string{"SQLSTATE 23503"}}},
		{name: "check_canary", run: p.raise("check_violation", "CONSTRAINT = '"+canary+"', TABLE = 'orders'"),
			want: want{code: codes.ValidationError, message: "A value is not allowed by a rule of the database; check the arguments.",
				details: `{"sqlState":"23514","table":"orders"}`, logged: []string{"SQLSTATE 23514"}}},
		{name: "not_null_canary", run: p.raise("not_null_violation", "COLUMN = '"+canary+"', TABLE = '"+canary+"'"),
			want: want{code: codes.ValidationError, message: "A required value is missing; provide it.",
				details: `{"sqlState":"23502"}`, logged: []string{"SQLSTATE 23502"}}},
		{name: "data_exception_canary", run: p.raise("string_data_right_truncation", "COLUMN = '"+canary+"', TABLE = '"+canary+"'"),
			want: want{code: codes.ValidationError, message: "A value is too long for the database (SQLSTATE 22001); check the values in the arguments.",
				details: `{"sqlState":"22001"}`, logged: []string{"SQLSTATE 22001"}}},
		{name: "too_long_a_name", run: p.raise("unique_violation", "CONSTRAINT = '"+strings.Repeat("a", 129)+"'"),
			want: want{code: codes.Conflict, message: "A record with this value already exists; choose another value.",
				details: `{"sqlState":"23505"}`, logged: []string{"SQLSTATE 23505"}}},
		// Plain identifiers are named, as the server's own.
		{name: "unique_identifier", run: p.raise("unique_violation", "CONSTRAINT = 'orders_ref_key', TABLE = 'orders'"),
			want: want{code: codes.Conflict, message: "A record with this value already exists (constraint orders_ref_key); choose another value.",
				details: `{"constraint":"orders_ref_key","sqlState":"23505","table":"orders"}`, logged: []string{"SQLSTATE 23505"}}},
		{name: "not_null_identifier", run: p.raise("not_null_violation", "COLUMN = 'quantity', TABLE = 'orders'"),
			want: want{code: codes.ValidationError, message: "A value is required for quantity; provide it.",
				details: `{"column":"quantity","sqlState":"23502","table":"orders","violations":[{"constraint":"is required","field":"quantity","reason":"required"}]}`,
				logged:  []string{"SQLSTATE 23502"}}},
		{name: "constraint_option", run: p.raise("foreign_key_violation", "CONSTRAINT = 'orders_customer_id_fkey', TABLE = 'orders'"),
			filters: []filter.Filter{mustNew(pgxfilter.Constraint("orders_customer_id_fkey",
				filter.Response{Code: codes.NotFound, Message: "No such customer."}))},
			want: want{code: codes.NotFound, message: "No such customer.", logged: []string{"SQLSTATE 23503"}}},
	}
	onBothSDKs(t, cases)
}

// deadlock runs two transactions that lock two rows in opposite orders:
// the server aborts one of them with 40P01, which is returned.
func (p *postgres) deadlock(ctx context.Context) error {
	return p.withConns(ctx, 2, func(cs ...*pgx.Conn) error {
		txs := make([]pgx.Tx, 2)
		for i, c := range cs {
			tx, err := c.Begin(ctx)
			if err != nil {
				return fmt.Errorf("set-up: %w", err)
			}
			defer tx.Rollback(context.Background())
			// Each holds a row: the first row 1, the second row 2.
			if _, err := tx.Exec(ctx, `UPDATE counters SET n = n + 1 WHERE id = $1`, i+1); err != nil {
				return fmt.Errorf("set-up: %w", err)
			}
			txs[i] = tx
		}
		// Each asks for the other's row: whichever waits, the other closes
		// the cycle, and the server ends it.
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for i, tx := range txs {
			wg.Go(func() {
				_, errs[i] = tx.Exec(ctx, `UPDATE counters SET n = n + 1, owner = $2 WHERE id = $1`, 2-i, canary)
				if errs[i] != nil {
					// Abort at once, so that the other goes on.
					tx.Rollback(context.Background())
				}
			})
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return err
			}
		}
		return errors.New("set-up: no deadlock: both transactions went through")
	})
}

// serializationFailure updates, in a REPEATABLE READ transaction, a row
// that another transaction changed after the first one's snapshot.
func (p *postgres) serializationFailure(ctx context.Context) error {
	return p.withConns(ctx, 2, func(cs ...*pgx.Conn) error {
		tx, err := cs[0].BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead})
		if err != nil {
			return fmt.Errorf("set-up: %w", err)
		}
		defer tx.Rollback(context.Background())
		var n int
		if err := tx.QueryRow(ctx, `SELECT n FROM counters WHERE id = 3`).Scan(&n); err != nil {
			return fmt.Errorf("set-up: %w", err)
		}
		if _, err := cs[1].Exec(ctx, `UPDATE counters SET n = n + 1 WHERE id = 3`); err != nil {
			return fmt.Errorf("set-up: %w", err)
		}
		_, err = tx.Exec(ctx, `UPDATE counters SET n = $1, owner = $2 WHERE id = 3`, n+1, canary)
		return err
	})
}

// statementTimeout runs a statement longer than the session's
// statement_timeout.
func (p *postgres) statementTimeout(ctx context.Context) error {
	return p.withConns(ctx, 1, func(cs ...*pgx.Conn) error {
		if _, err := cs[0].Exec(ctx, `SET statement_timeout = '100ms'`); err != nil {
			return fmt.Errorf("set-up: %w", err)
		}
		_, err := cs[0].Exec(ctx, `SELECT pg_sleep(60), $1::text`, canary)
		return err
	})
}

// lockTimeout updates a row that another transaction holds, with a
// lock_timeout.
func (p *postgres) lockTimeout(ctx context.Context) error {
	return p.withConns(ctx, 2, func(cs ...*pgx.Conn) error {
		holder, err := cs[0].Begin(ctx)
		if err != nil {
			return fmt.Errorf("set-up: %w", err)
		}
		defer holder.Rollback(context.Background())
		if _, err := holder.Exec(ctx, `SELECT n FROM counters WHERE id = 4 FOR UPDATE`); err != nil {
			return fmt.Errorf("set-up: %w", err)
		}
		if _, err := cs[1].Exec(ctx, `SET lock_timeout = '100ms'`); err != nil {
			return fmt.Errorf("set-up: %w", err)
		}
		_, err = cs[1].Exec(ctx, `UPDATE counters SET owner = $1 WHERE id = 4`, canary)
		return err
	})
}

// ownDeadline runs a statement with a deadline of the tool's own, shorter
// than the statement and than the request's.
func (p *postgres) ownDeadline(ctx context.Context) error {
	return p.withConns(ctx, 1, func(cs ...*pgx.Conn) error {
		qctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		_, err := cs[0].Exec(qctx, `SELECT pg_sleep(60), $1::text`, canary)
		return err
	})
}

// closedConn uses a connection that the server ended before.
func (p *postgres) closedConn(ctx context.Context) error {
	return p.withConns(ctx, 1, func(cs ...*pgx.Conn) error {
		var pe *pgconn.PgError
		if _, err := cs[0].Exec(ctx, `SELECT pg_terminate_backend(pg_backend_pid())`); !errors.As(err, &pe) || pe.Code != "57P01" {
			return fmt.Errorf("set-up: the server did not end the connection: %v", err)
		}
		_, err := cs[0].Exec(ctx, `UPDATE counters SET owner = $1 WHERE id = 5`, canary)
		return err
	})
}

// noRows reads a row that does not exist through pgx: pgx.ErrNoRows.
func (p *postgres) noRows(ctx context.Context) error {
	return p.withConns(ctx, 1, func(cs ...*pgx.Conn) error {
		var n int
		err := cs[0].QueryRow(ctx, `SELECT n FROM counters WHERE owner = $1 AND id = 404`, canary).Scan(&n)
		if !errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("set-up: the error %v is not pgx.ErrNoRows", err)
		}
		return err
	})
}

// TestTooManyConnections connects as a role whose connection limit is
// reached: the server refuses the connection with 53300.
func TestTooManyConnections(t *testing.T) {
	t.Parallel()
	p := openPostgres(t)
	// A role of the test's own, named with the canary: the server's
	// message names it.
	role := canary + "-" + randomHex(4)
	password := randomHex(8)
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	admin := p.conn(ctx)
	p.exec(ctx, admin, `CREATE ROLE `+pgx.Identifier{role}.Sanitize()+` LOGIN CONNECTION LIMIT 0 PASSWORD '`+password+`'`)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
		defer cancel()
		if _, err := admin.Exec(ctx, `DROP ROLE `+pgx.Identifier{role}.Sanitize()); err != nil {
			t.Errorf("drop role: %v", err)
		}
	})
	cfg := p.cfg.Copy()
	cfg.User, cfg.Password = role, password
	onBothSDKs(t, []tcase{{name: "connect_as_limited_role",
		run: func(ctx context.Context) error {
			c, err := pgx.ConnectConfig(ctx, cfg)
			if err == nil {
				c.Close(ctx)
				return nil
			}
			var ce *pgconn.ConnectError
			if !errors.As(err, &ce) {
				return fmt.Errorf("set-up: %v is not a *pgconn.ConnectError", err)
			}
			return err
		},
		want: want{code: codes.Unavailable, retry: true, after: 2 * time.Second,
			message: "The database is unavailable right now (SQLSTATE 53300); retry the call in a moment.",
			details: `{"sqlState":"53300"}`, logged: []string{"SQLSTATE 53300", "failed to connect"}},
	}})
}

// TestConnectionFailures connects to a port where nothing listens, and to
// a listener that never answers; neither needs a PostgreSQL server.
func TestConnectionFailures(t *testing.T) {
	t.Parallel()
	// A port that was free a moment ago: nothing listens on it.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := l.Addr().String()
	l.Close()
	// A listener that accepts and never says a word.
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var held sync.WaitGroup
	held.Go(func() {
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	})
	t.Cleanup(func() { silent.Close(); held.Wait() })

	// The user and database are the canary: a ConnectError's text names them.
	connect := func(addr string, timeout time.Duration) func(ctx context.Context) error {
		return func(ctx context.Context) error {
			cfg, err := pgx.ParseConfig("postgres://" + canary + ":pw@" + addr + "/" + canary + "?sslmode=disable")
			if err != nil {
				return fmt.Errorf("set-up: %w", err)
			}
			cfg.ConnectTimeout = timeout
			c, err := pgx.ConnectConfig(ctx, cfg)
			if err == nil {
				c.Close(ctx)
			}
			return err
		}
	}
	unavailable := want{code: codes.Unavailable, retry: true, after: 2 * time.Second,
		message: "The database is unavailable right now; retry the call in a moment.", logged: []string{"failed to connect"}}
	refusedWant, timeoutWant := unavailable, unavailable
	refusedWant.logged = append(refusedWant.logged, "connection refused")
	timeoutWant.logged = append(timeoutWant.logged, "timeout")
	onBothSDKs(t, []tcase{
		{name: "connection_refused", run: connect(refused, 10*time.Second), want: refusedWant},
		{name: "connect_timeout", run: connect(silent.Addr().String(), 200*time.Millisecond), want: timeoutWant},
	})
}
