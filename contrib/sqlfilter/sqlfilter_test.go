package sqlfilter_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/contrib/sqlfilter"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/mcperrtest"
)

// canary is a secret in the data and in the errors' text: it must reach
// the log, and never the client.
const canary = "canary-7f3a-s3cr3t"

// openShop opens a real SQLite database file with one table, orders, that
// holds one order of the canary's owner.
func openShop(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "shop.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for _, q := range []string{
		`CREATE TABLE orders (id TEXT PRIMARY KEY, owner TEXT NOT NULL, status TEXT NOT NULL)`,
		`INSERT INTO orders VALUES ('ord_1', '` + canary + `', 'shipped')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// orderStatus reads an order's status as a service layer does, wrapping
// the error with the query's values.
func orderStatus(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, id string) (string, error) {
	var status string
	err := q.QueryRowContext(ctx, `SELECT status FROM orders WHERE id = ? AND owner = ?`, id, canary).Scan(&status)
	if err != nil {
		return "", fmt.Errorf("load order %s of owner %s: %w", id, canary, err)
	}
	return status, nil
}

// TestMapping covers every row of the pack's mapping with the real errors
// of database/sql on a real SQLite database, on both SDKs, and checks what
// the client reads, that the canary never reaches it, and that the log
// keeps the original error.
func TestMapping(t *testing.T) {
	db := openShop(t)
	tools := []tool{
		{name: "get_order", filters: []filter.Filter{mustNew(sqlfilter.Resource("get_order", "Order"))},
			run: func(ctx context.Context, id string) (string, error) { return orderStatus(ctx, db, id) }},
		{name: "find_record", run: func(ctx context.Context, id string) (string, error) {
			s, err := orderStatus(ctx, db, id)
			if err != nil {
				return "", fmt.Errorf("find record: %w", err) // wrapped twice
			}
			return s, nil
		}},
		{name: "closed_conn", run: func(ctx context.Context, id string) (string, error) {
			conn, err := db.Conn(ctx)
			if err != nil {
				return "", err
			}
			if err := conn.Close(); err != nil {
				return "", err
			}
			return orderStatus(ctx, conn, id) // sql.ErrConnDone
		}},
		{name: "bad_conn", run: func(context.Context, string) (string, error) {
			return "", fmt.Errorf("ping %s: %w", canary, driver.ErrBadConn)
		}},
		{name: "tx_done", run: func(ctx context.Context, id string) (string, error) {
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				return "", err
			}
			if err := tx.Commit(); err != nil {
				return "", err
			}
			return orderStatus(ctx, tx, id) // sql.ErrTxDone
		}},
		{name: "closed_db", run: func(ctx context.Context, id string) (string, error) {
			closed, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "closed.db"))
			if err != nil {
				return "", err
			}
			if err := closed.Close(); err != nil {
				return "", err
			}
			return orderStatus(ctx, closed, id) // sql: database is closed
		}},
		{name: "unrelated", run: func(context.Context, string) (string, error) {
			return "", fmt.Errorf("render invoice for %s: %w", canary, errors.New("template: no such field"))
		}},
	}
	onBothSDKs(t, []filter.Filter{mustNew()}, tools, func(t *testing.T, c caller, log *mcperrtest.Log) {
		t.Run("a row that exists", func(t *testing.T) {
			res := c.Call("get_order", map[string]any{"id": "ord_1"})
			if mcperrtest.AssertSuccess(t, res) && res.Text() != "shipped" {
				t.Errorf("text = %q, want shipped", res.Text())
			}
		})
		t.Run("no rows, with Resource", func(t *testing.T) {
			res := c.Call("get_order", map[string]any{"id": "ord_404"})
			if mcperrtest.AssertToolError(t, res, codes.NotFound, "Order not found.") {
				if got := string(res.Envelope.Details); got != `{"resourceType":"Order"}` {
					t.Errorf("details = %s", got)
				}
				if res.Envelope.Retryable || res.Envelope.Ref != "" {
					t.Errorf("retryable %t, ref %q: want no retry and no ref", res.Envelope.Retryable, res.Envelope.Ref)
				}
			}
			mcperrtest.AssertNoCanary(t, res, canary)
			assertLogged(t, log, res, canary, sql.ErrNoRows.Error())
		})
		t.Run("no rows, generic", func(t *testing.T) {
			res := c.Call("find_record", map[string]any{"id": "ord_404"})
			if mcperrtest.AssertToolError(t, res, codes.NotFound, "Record not found.") && res.Envelope.Details != nil {
				t.Errorf("details = %s, want none", res.Envelope.Details)
			}
			mcperrtest.AssertNoCanary(t, res, canary)
			assertLogged(t, log, res, canary, "find record: ", sql.ErrNoRows.Error())
		})
		for _, tool := range []string{"closed_conn", "bad_conn"} {
			t.Run(tool, func(t *testing.T) {
				res := c.Call(tool, map[string]any{"id": "ord_1"})
				if mcperrtest.AssertToolError(t, res, codes.Unavailable, "The database is unavailable right now; retry the call in a moment.") {
					env := res.Envelope
					if !env.Retryable || env.RetryAfterSeconds != 2 || env.Ref == "" || env.Category != codes.Server {
						t.Errorf("retryable %t after %vs, ref %q, category %s: want retryable after 2 s, a ref, server", env.Retryable, env.RetryAfterSeconds, env.Ref, env.Category)
					}
				}
				mcperrtest.AssertNoCanary(t, res, canary)
				want := sql.ErrConnDone.Error()
				if tool == "bad_conn" {
					want = driver.ErrBadConn.Error()
				}
				assertLogged(t, log, res, canary, want)
			})
		}
		// Passed on: masked by the built-in mapping, the whole error logged.
		for _, tool := range []string{"tx_done", "closed_db", "unrelated"} {
			t.Run(tool, func(t *testing.T) {
				res := c.Call(tool, map[string]any{"id": "ord_1"})
				mcperrtest.AssertMasked(t, res, log)
				mcperrtest.AssertNoCanary(t, res, canary)
				if res.Envelope != nil {
					assertLogged(t, log, res, canary)
				}
			})
		}
	})
}

// TestResource checks, on a real SQLite database and on both SDKs, that a
// missing row is named by the kind of record a Resource gives for the
// tool called, whether the pack is the pipeline's global filter or bound
// to the tool, and reads "Record not found." in a tool it was not told
// about: one global pack with Resources names no other tool's rows.
func TestResource(t *testing.T) {
	db := openShop(t)
	read := func(ctx context.Context, id string) (string, error) { return orderStatus(ctx, db, id) }
	global := mustNew(sqlfilter.Resource("get_order", "Order"), sqlfilter.Resource("get_customer", "Customer"))
	invoices := []filter.Filter{mustNew(sqlfilter.Resource("get_invoice", "Invoice"))}
	tools := []tool{
		{name: "get_order", run: read},
		{name: "get_customer", run: read},
		{name: "find_record", run: read},
		{name: "get_invoice", filters: invoices, run: read},
		{name: "get_refund", filters: invoices, run: read}, // bound, but not told about
	}
	want := map[string]string{ // tool: the kind named, "" for none
		"get_order": "Order", "get_customer": "Customer", "find_record": "", "get_invoice": "Invoice", "get_refund": "",
	}
	onBothSDKs(t, []filter.Filter{global}, tools, func(t *testing.T, c caller, log *mcperrtest.Log) {
		t.Run("a row that exists", func(t *testing.T) {
			if res := c.Call("get_order", map[string]any{"id": "ord_1"}); mcperrtest.AssertSuccess(t, res) && res.Text() != "shipped" {
				t.Errorf("text = %q, want shipped", res.Text())
			}
		})
		for _, tl := range tools {
			t.Run(tl.name, func(t *testing.T) {
				res := c.Call(tl.name, map[string]any{"id": "ord_404"})
				kind, details := want[tl.name], ""
				message := "Record not found."
				if kind != "" {
					message, details = kind+" not found.", `{"resourceType":"`+kind+`"}`
				}
				if mcperrtest.AssertToolError(t, res, codes.NotFound, message) {
					if got := string(res.Envelope.Details); got != details {
						t.Errorf("details = %s, want %s", got, details)
					}
					if res.Envelope.Retryable || res.Envelope.Ref != "" {
						t.Errorf("retryable %t, ref %q: want no retry and no ref", res.Envelope.Retryable, res.Envelope.Ref)
					}
				}
				mcperrtest.AssertNoCanary(t, res, canary)
				assertLogged(t, log, res, canary, sql.ErrNoRows.Error())
			})
		}
	})
}

// TestTxDoneIsErrTxDone pins what tx_done above provokes: database/sql's
// ErrTxDone, which the pack passes on.
func TestTxDoneIsErrTxDone(t *testing.T) {
	db := openShop(t)
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	_, err = orderStatus(context.Background(), tx, "ord_1")
	if !errors.Is(err, sql.ErrTxDone) {
		t.Fatalf("err = %v, want sql.ErrTxDone", err)
	}
	if r, next := mustNew().Catch(context.Background(), filter.Call{Tool: "t"}, err); r != nil || next != nil {
		t.Errorf("Catch(ErrTxDone) = %v, %v; want nil, nil", r, next)
	}
}

// TestRequestDone checks that the pack leaves the answer to the pipeline
// when the request's own context is done: the call was cancelled or ran
// out of time, whatever the database said meanwhile, and the log keeps
// what it said.
func TestRequestDone(t *testing.T) {
	db := openShop(t)
	_, noRows := orderStatus(context.Background(), db, "ord_404")
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
	_, connDone := orderStatus(context.Background(), conn, "ord_1")
	if !errors.Is(noRows, sql.ErrNoRows) || !errors.Is(connDone, sql.ErrConnDone) {
		t.Fatalf("errors = %v, %v; want sql.ErrNoRows and sql.ErrConnDone", noRows, connDone)
	}

	log := mcperrtest.NewLog(t)
	p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithFilters(mustNew()))
	if err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	late, cancelLate := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancelLate()
	for _, tc := range []struct {
		ctx  context.Context
		err  error
		want codes.Code
	}{
		{cancelled, noRows, codes.Cancelled},
		{cancelled, connDone, codes.Cancelled},
		{late, noRows, codes.Timeout},
		{late, connDone, codes.Timeout},
		{cancelled, fmt.Errorf("%w (%w)", noRows, context.Canceled), codes.Cancelled},
		{context.Background(), noRows, codes.NotFound}, // alive, the pack's
	} {
		f := p.Handle(tc.ctx, filter.Call{Tool: "get_order"}, tc.err)
		if f.Envelope.Code != tc.want {
			t.Errorf("%v: code %s, want %s", tc.err, f.Envelope.Code, tc.want)
		}
		recs := log.Records()
		if text, _ := recs[len(recs)-1].Attrs["error"].(string); !strings.Contains(text, canary) {
			t.Errorf("the record's error is %q, want the original error", text)
		}
	}
}

// mustNew returns sqlfilter.New(opts...), and panics on a definition
// error: the tests' options are right.
func mustNew(opts ...sqlfilter.Option) filter.Filter {
	f, err := sqlfilter.New(opts...)
	if err != nil {
		panic(err)
	}
	return f
}

// TestBadResource checks that a Resource without a tool or a name, or a
// tool given twice, makes New return a definition error that says what to
// fix, and no filter.
func TestBadResource(t *testing.T) {
	for _, c := range []struct {
		opts []sqlfilter.Option
		want string
	}{
		{[]sqlfilter.Option{sqlfilter.Resource("", "Order")}, `mcperr: INVALID_OPTION: sqlfilter.Resource: the tool's name is empty; give the name of the tool that reads the record, such as get_order`},
		{[]sqlfilter.Option{sqlfilter.Resource("get_order", "")}, `mcperr: INVALID_OPTION: "get_order": sqlfilter.Resource: the name is empty; give the kind of record the tool reads, such as Order, or leave the option out`},
		{[]sqlfilter.Option{sqlfilter.Resource("get_order", "Order"), sqlfilter.Resource("get_order", "Invoice")}, `mcperr: INVALID_OPTION: "get_order": sqlfilter.Resource: the tool is given twice; keep one Resource for it`},
	} {
		f, err := sqlfilter.New(c.opts...)
		var de *codes.DefinitionError
		if f != nil || !errors.As(err, &de) || de.Mistake != codes.InvalidOption || err.Error() != c.want {
			t.Errorf("New = %T, %v; want no filter and %s", f, err, c.want)
		}
	}
	if f, err := sqlfilter.New(nil, sqlfilter.Resource("get_order", "Order"), sqlfilter.Resource("list_orders", "Order")); f == nil || err != nil {
		t.Errorf("New = %v, %v: a nil option and two tools of one kind are no mistake", f, err)
	}
}
