package sqlitefilter_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/contrib/sqlitefilter"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/mcperrtest"
)

// canary is a secret in the data values and in the errors' text: it must
// reach the log, and never the client.
const canary = "canary-7f3a-s3cr3t"

// schema is the shop's: every kind of constraint SQLite has, and one row
// in each table whose values hold the canary.
var schema = []string{
	`CREATE TABLE customers (id TEXT PRIMARY KEY, email TEXT NOT NULL)`,
	`CREATE UNIQUE INDEX customers_email_lower ON customers (lower(email))`,
	`CREATE TABLE orders (
		id INTEGER PRIMARY KEY,
		ref TEXT NOT NULL UNIQUE,
		customer_id TEXT NOT NULL REFERENCES customers (id),
		qty INTEGER NOT NULL CONSTRAINT qty_positive CHECK (qty > 0),
		note TEXT CHECK (length(note) < 40),
		UNIQUE (customer_id, note)
	)`,
	`CREATE TABLE "odd table" ("a,b" TEXT UNIQUE)`,
	`CREATE TABLE audit (line TEXT)`,
	`INSERT INTO customers VALUES ('cus_1', 'ann+` + canary + `@example.com')`,
	`INSERT INTO orders (ref, customer_id, qty, note) VALUES ('ref-` + canary + `', 'cus_1', 1, 'note ` + canary + `')`,
	`INSERT INTO "odd table" VALUES ('` + canary + `')`,
	`INSERT INTO audit VALUES ('` + canary + `'), ('two')`,
}

// shop is a real SQLite database file with foreign keys on.
type shop struct {
	path string
	db   *sql.DB
}

// openShop creates the shop's database in t.TempDir().
func openShop(t *testing.T) *shop {
	t.Helper()
	s := &shop{path: filepath.Join(t.TempDir(), "shop.db")}
	s.db = s.open(t, "")
	for _, q := range schema {
		if _, err := s.db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// open opens another pool on the shop's file, with foreign keys on and
// the pragmas given.
func (s *shop) open(t *testing.T, pragmas string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+s.path+"?_pragma=foreign_keys(1)"+pragmas)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// exec runs one statement as a service layer does, wrapping its error with
// the values it was given.
func exec(ctx context.Context, db *sql.DB, query string, args ...any) error {
	if _, err := db.ExecContext(ctx, query, args...); err != nil {
		return fmt.Errorf("exec with %v: %w", args, err)
	}
	return nil
}

// lockWrites takes the write lock of the shop's file on a connection of
// its own, as another process would, until the returned function is
// called.
func (s *shop) lockWrites(t *testing.T) (unlock func()) {
	t.Helper()
	conn, err := s.db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	return func() {
		if _, err := conn.ExecContext(context.Background(), "ROLLBACK"); err != nil {
			t.Error(err)
		}
		conn.Close()
	}
}

// shopTools are the tools of the test servers: each provokes one real
// error of SQLite.
func shopTools(t *testing.T, s *shop) []tool {
	busy := s.open(t, "&_pragma=busy_timeout(50)")
	orderRef := filter.Response{Code: codes.Conflict, Message: "An order with this reference already exists."}
	qtyRule := filter.Response{Code: codes.ValidationError, Message: "qty must be 1 or more.",
		Details: map[string]any{"violations": []any{map[string]any{"field": "qty", "constraint": "must be 1 or more", "pointer": "/qty"}}}}
	named := []filter.Filter{mustNew(sqlitefilter.Constraint("orders.ref", orderRef), sqlitefilter.Constraint("qty_positive", qtyRule))}
	insertOrder := func(ref, customer any, qty int, note string) func(ctx context.Context, _ string) (string, error) {
		return func(ctx context.Context, _ string) (string, error) {
			return "", exec(ctx, s.db, `INSERT INTO orders (ref, customer_id, qty, note) VALUES (?, ?, ?, ?)`, ref, customer, qty, note)
		}
	}
	return []tool{
		{name: "dup_ref", run: insertOrder("ref-"+canary, "cus_1", 2, "other")},
		{name: "dup_pair", run: insertOrder("ref-2", "cus_1", 2, "note "+canary)},
		{name: "dup_customer", run: func(ctx context.Context, _ string) (string, error) {
			return "", exec(ctx, s.db, `INSERT INTO customers VALUES ('cus_1', ?)`, canary+"@example.org")
		}},
		{name: "dup_email", run: func(ctx context.Context, _ string) (string, error) {
			return "", exec(ctx, s.db, `INSERT INTO customers VALUES ('cus_2', ?)`, "ANN+"+canary+"@EXAMPLE.COM")
		}},
		{name: "dup_odd", run: func(ctx context.Context, _ string) (string, error) {
			return "", exec(ctx, s.db, `INSERT INTO "odd table" VALUES (?)`, canary)
		}},
		{name: "missing_customer", run: insertOrder("ref-3", "cus_"+canary, 2, "")},
		{name: "delete_customer", run: func(ctx context.Context, _ string) (string, error) {
			return "", exec(ctx, s.db, `DELETE FROM customers WHERE id = ? OR email = ?`, "cus_1", canary)
		}},
		{name: "bad_qty", run: insertOrder("ref-"+canary+"-4", "cus_1", 0, "")},
		{name: "long_note", run: insertOrder("ref-5", "cus_1", 1, strings.Repeat(canary, 3))},
		{name: "null_customer", run: insertOrder("ref-"+canary+"-6", nil, 1, "")},
		{name: "busy", run: func(ctx context.Context, _ string) (string, error) {
			return "", exec(ctx, busy, `INSERT INTO customers VALUES ('cus_3', ?)`, canary)
		}},
		{name: "locked", run: func(ctx context.Context, _ string) (string, error) {
			conn, err := s.db.Conn(ctx)
			if err != nil {
				return "", err
			}
			defer conn.Close()
			rows, err := conn.QueryContext(ctx, `SELECT line FROM audit`)
			if err != nil {
				return "", err
			}
			defer rows.Close()
			rows.Next() // the statement is open: the table is locked on this connection
			if _, err := conn.ExecContext(ctx, `DROP TABLE audit`); err != nil {
				return "", fmt.Errorf("drop audit of %s: %w", canary, err)
			}
			return "", errors.New("DROP TABLE succeeded with a statement open")
		}},
		{name: "bad_sql", run: func(ctx context.Context, _ string) (string, error) {
			return "", exec(ctx, s.db, `SELECT * FROM no_such_table WHERE x = ?`, canary)
		}},
		{name: "unrelated", run: func(context.Context, string) (string, error) {
			return "", fmt.Errorf("render invoice for %s: %w", canary, errors.New("template: no such field"))
		}},
		{name: "dup_ref_named", filters: named, run: insertOrder("ref-"+canary, "cus_1", 2, "other")},
		{name: "bad_qty_named", filters: named, run: insertOrder("ref-"+canary+"-7", "cus_1", -1, "")},
		{name: "null_ref_named", filters: named, run: insertOrder(nil, "cus_1", 1, canary)},
		{name: "dup_pair_named", filters: named, run: insertOrder("ref-8", "cus_1", 2, "note "+canary)},
	}
}

// TestMapping covers every row of the pack's mapping with real errors of a
// real SQLite file, on both SDKs: what the client reads (code, message,
// details, retry advice), that no canary reaches it, and that the log
// keeps the original error.
func TestMapping(t *testing.T) {
	s := openShop(t)
	tools := shopTools(t, s)
	type want struct {
		code    codes.Code
		message string
		details string // the envelope's details, exactly; "" for none
		logged  string // a part of the original error the log must keep
	}
	cases := []struct {
		tool string
		want want
	}{
		{"dup_ref", want{codes.Conflict, "A record with this value already exists (orders.ref); choose another value.",
			`{"columns":["ref"],"table":"orders"}`, "UNIQUE constraint failed: orders.ref"}},
		{"dup_pair", want{codes.Conflict, "A record with these values already exists (orders.customer_id, orders.note); choose other values.",
			`{"columns":["customer_id","note"],"table":"orders"}`, "UNIQUE constraint failed: orders.customer_id, orders.note"}},
		{"dup_customer", want{codes.Conflict, "A record with this value already exists (customers.id); choose another value.",
			`{"columns":["id"],"table":"customers"}`, "(1555)"}},
		{"dup_email", want{codes.Conflict, "A record with this value already exists (index customers_email_lower); choose another value.",
			`{"index":"customers_email_lower"}`, "index 'customers_email_lower'"}},
		{"dup_odd", want{codes.Conflict, "A record with this value already exists; choose another value.",
			"", "odd table.a,b"}},
		{"missing_customer", want{codes.BusinessRuleViolation, "A referenced record does not exist, or other records still refer to this one; check the identifiers in the arguments, or remove the referring records first.",
			"", "FOREIGN KEY constraint failed"}},
		{"delete_customer", want{codes.BusinessRuleViolation, "A referenced record does not exist, or other records still refer to this one; check the identifiers in the arguments, or remove the referring records first.",
			"", "FOREIGN KEY constraint failed"}},
		{"bad_qty", want{codes.ValidationError, "A value is not allowed by a rule of the database (constraint qty_positive); check the arguments.",
			`{"constraint":"qty_positive"}`, "CHECK constraint failed: qty_positive"}},
		{"long_note", want{codes.ValidationError, "A value is not allowed by a rule of the database; check the arguments.",
			"", "CHECK constraint failed: length(note) < 40"}},
		{"null_customer", want{codes.ValidationError, "A value is required for orders.customer_id; provide it.",
			`{"violations":[{"constraint":"is required","field":"orders.customer_id","reason":"required"}]}`, "NOT NULL constraint failed: orders.customer_id"}},
		{"busy", want{codes.Timeout, "The database is locked by another operation; retry the call in a moment.",
			"", "database is locked (5)"}},
		{"locked", want{codes.Timeout, "The database is locked by another operation; retry the call in a moment.",
			"", "database table is locked (6)"}},
		{"dup_ref_named", want{codes.Conflict, "An order with this reference already exists.",
			"", "UNIQUE constraint failed: orders.ref"}},
		{"bad_qty_named", want{codes.ValidationError, "qty must be 1 or more.",
			`{"violations":[{"constraint":"must be 1 or more","field":"qty","pointer":"/qty"}]}`, "CHECK constraint failed: qty_positive"}},
		// Constraint("orders.ref") answers the unique constraint only: a
		// missing ref is still the pack's not-null answer.
		{"null_ref_named", want{codes.ValidationError, "A value is required for orders.ref; provide it.",
			`{"violations":[{"constraint":"is required","field":"orders.ref","reason":"required"}]}`, "NOT NULL constraint failed: orders.ref"}},
		// A tool's own pack answers what its Constraints do not name.
		{"dup_pair_named", want{codes.Conflict, "A record with these values already exists (orders.customer_id, orders.note); choose other values.",
			`{"columns":["customer_id","note"],"table":"orders"}`, "UNIQUE constraint failed: orders.customer_id, orders.note"}},
	}
	onBothSDKs(t, []filter.Filter{mustNew()}, tools, func(t *testing.T, c caller, log *mcperrtest.Log) {
		for _, tc := range cases {
			t.Run(tc.tool, func(t *testing.T) {
				if tc.tool == "busy" {
					defer s.lockWrites(t)()
				}
				res := c.Call(tc.tool, map[string]any{})
				if mcperrtest.AssertToolError(t, res, tc.want.code, tc.want.message) {
					env := res.Envelope
					if string(env.Details) != tc.want.details {
						t.Errorf("details = %s, want %s", env.Details, tc.want.details)
					}
					server := tc.want.code == codes.Timeout
					switch {
					case server && (!env.Retryable || env.RetryAfterSeconds != 0 || env.Ref == "" || env.Category != codes.Server):
						t.Errorf("retryable %t after %vs, ref %q, category %s: want retryable with no delay of the pack's, a ref, server",
							env.Retryable, env.RetryAfterSeconds, env.Ref, env.Category)
					case !server && (env.Retryable || env.RetryAfterSeconds != 0 || env.Ref != ""):
						t.Errorf("retryable %t after %vs, ref %q: want no retry and no ref", env.Retryable, env.RetryAfterSeconds, env.Ref)
					}
					if tc.want.code == codes.ValidationError && env.Details != nil && strings.Contains(string(env.Details), "violations") {
						mcperrtest.AssertValidation(t, res)
					}
				}
				mcperrtest.AssertNoCanary(t, res, canary)
				mcperrtest.AssertNoCanary(t, res, "length(note)") // an unnamed check's expression
				mcperrtest.AssertNoCanary(t, res, "constraint failed")
				assertLogged(t, log, res, canary, tc.want.logged)
			})
		}
		// Passed on: masked by the built-in mapping, the whole error logged.
		for _, tool := range []string{"bad_sql", "unrelated"} {
			t.Run(tool, func(t *testing.T) {
				res := c.Call(tool, map[string]any{})
				mcperrtest.AssertMasked(t, res, log)
				mcperrtest.AssertNoCanary(t, res, canary)
				if res.Envelope != nil {
					assertLogged(t, log, res, canary)
				}
			})
		}
	})
}

// TestNoRows checks, on a real SQLite file and on both SDKs, that the pack
// alone (no sqlfilter) answers a missing row, sql.ErrNoRows, as NOT_FOUND:
// named by the kind of record a Resource gives for the tool called,
// whether the pack is the pipeline's global filter or bound to the tool,
// and "Record not found." in a tool it was not told about.
func TestNoRows(t *testing.T) {
	s := openShop(t)
	read := func(ctx context.Context, id string) (string, error) {
		var got string
		err := s.db.QueryRowContext(ctx, `SELECT id FROM customers WHERE id = ? AND email <> ?`, id, canary).Scan(&got)
		if err != nil {
			return "", fmt.Errorf("read %s for %s: %w", id, canary, err)
		}
		return got, nil
	}
	global := mustNew(sqlitefilter.Resource("get_order", "Order"), sqlitefilter.Resource("get_customer", "Customer"))
	invoices := []filter.Filter{mustNew(sqlitefilter.Resource("get_invoice", "Invoice"))}
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
			if res := c.Call("get_customer", map[string]any{"id": "cus_1"}); mcperrtest.AssertSuccess(t, res) && res.Text() != "cus_1" {
				t.Errorf("text = %q, want cus_1", res.Text())
			}
		})
		for _, tl := range tools {
			t.Run(tl.name, func(t *testing.T) {
				res := c.Call(tl.name, map[string]any{"id": "cus_404"})
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

// TestBadResource checks that a Resource without a tool or a name, or a
// tool given twice, makes New return a definition error that says what to
// fix, and no filter.
func TestBadResource(t *testing.T) {
	for _, c := range []struct {
		opts []sqlitefilter.Option
		want string
	}{
		{[]sqlitefilter.Option{sqlitefilter.Resource("", "Order")}, `mcperr: INVALID_OPTION: sqlitefilter.Resource: the tool's name is empty; give the name of the tool that reads the record, such as get_order`},
		{[]sqlitefilter.Option{sqlitefilter.Resource("get_order", "")}, `mcperr: INVALID_OPTION: "get_order": sqlitefilter.Resource: the name is empty; give the kind of record the tool reads, such as Order, or leave the option out`},
		{[]sqlitefilter.Option{sqlitefilter.Resource("get_order", "Order"), sqlitefilter.Resource("get_order", "Invoice")}, `mcperr: INVALID_OPTION: "get_order": sqlitefilter.Resource: the tool is given twice; keep one Resource for it`},
	} {
		f, err := sqlitefilter.New(c.opts...)
		var de *codes.DefinitionError
		if f != nil || !errors.As(err, &de) || de.Mistake != codes.InvalidOption || err.Error() != c.want {
			t.Errorf("New = %T, %v; want no filter and %s", f, err, c.want)
		}
	}
	if f, err := sqlitefilter.New(sqlitefilter.Resource("get_order", "Order"), sqlitefilter.Resource("list_orders", "Order")); f == nil || err != nil {
		t.Errorf("New = %v, %v: two tools of one kind are no mistake", f, err)
	}
}

// provoke returns the real error of a duplicate insert into the shop.
func provoke(t *testing.T, s *shop) error {
	t.Helper()
	err := exec(context.Background(), s.db, `INSERT INTO customers VALUES ('cus_1', ?)`, canary)
	var e *sqlite.Error
	if !errors.As(err, &e) || e.Code() != sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY {
		t.Fatalf("err = %v, want a primary key violation", err)
	}
	return err
}

// TestRequestDone checks that the pack leaves the answer to the pipeline
// when the request's own context is done: the call was cancelled or ran
// out of time, whatever the database said meanwhile, and the log keeps
// what it said.
func TestRequestDone(t *testing.T) {
	s := openShop(t)
	dup := provoke(t, s)
	unlock := s.lockWrites(t)
	busy := exec(context.Background(), s.open(t, "&_pragma=busy_timeout(10)"), `INSERT INTO customers VALUES ('cus_9', ?)`, canary)
	unlock()
	var e *sqlite.Error
	if !errors.As(busy, &e) || e.Code() != sqlite3.SQLITE_BUSY {
		t.Fatalf("err = %v, want SQLITE_BUSY", busy)
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
		{cancelled, dup, codes.Cancelled},
		{cancelled, busy, codes.Cancelled},
		{late, dup, codes.Timeout},
		{late, busy, codes.Timeout},
		{cancelled, fmt.Errorf("%w (%w)", dup, context.Canceled), codes.Cancelled},
		{context.Background(), dup, codes.Conflict}, // alive, the pack's
		{context.Background(), busy, codes.Timeout},
	} {
		f := p.Handle(tc.ctx, filter.Call{Tool: "add_customer"}, tc.err)
		if f.Envelope.Code != tc.want {
			t.Errorf("%v: code %s, want %s", tc.err, f.Envelope.Code, tc.want)
		}
		if tc.ctx != context.Background() && f.Envelope.Message == "The database is locked by another operation; retry the call in a moment." {
			t.Errorf("%v: the pack answered a request that had ended", tc.err)
		}
		recs := log.Records()
		if text, _ := recs[len(recs)-1].Attrs["error"].(string); !strings.Contains(text, canary) {
			t.Errorf("the record's error is %q, want the original error", text)
		}
	}
}

// TestBadConstraint checks that a Constraint without a name or a message,
// or given twice, makes New return a definition error that says what to
// fix, and no filter.
func TestBadConstraint(t *testing.T) {
	taken := filter.Response{Code: codes.Conflict, Message: "Taken."}
	for _, c := range []struct {
		opts []sqlitefilter.Option
		want string
	}{
		{[]sqlitefilter.Option{sqlitefilter.Constraint("", taken)}, `mcperr: INVALID_OPTION: sqlitefilter.Constraint: the constraint's name is empty; give it as SQLite reports it, such as orders.ref or qty_positive`},
		{[]sqlitefilter.Option{sqlitefilter.Constraint("orders.ref", filter.Response{Code: codes.Conflict})}, `mcperr: INVALID_OPTION: "orders.ref": sqlitefilter.Constraint: the response has no message; write the sentence the model reads for this constraint`},
		{[]sqlitefilter.Option{sqlitefilter.Constraint("orders.ref", taken), sqlitefilter.Constraint("orders.ref", taken)}, `mcperr: INVALID_OPTION: "orders.ref": sqlitefilter.Constraint: the constraint is given twice; keep one Constraint for it`},
	} {
		f, err := sqlitefilter.New(c.opts...)
		var de *codes.DefinitionError
		if f != nil || !errors.As(err, &de) || de.Mistake != codes.InvalidOption || err.Error() != c.want {
			t.Errorf("New = %T, %v; want no filter and %s", f, err, c.want)
		}
	}
	if f, err := sqlitefilter.New(nil); f == nil || err != nil {
		t.Errorf("New(nil) = %v, %v: a nil option is no mistake", f, err)
	}
}

// TestConstraintCopies checks that a Constraint's Response is copied when
// the option is made: changing the caller's afterwards changes no answer.
func TestConstraintCopies(t *testing.T) {
	s := openShop(t)
	dup := provoke(t, s)
	r := filter.Response{Code: codes.Conflict, Message: "This customer exists already.", Details: map[string]any{"k": "v"}}
	f := mustNew(sqlitefilter.Constraint("customers.id", r))
	r.Details["k"] = "changed"
	got, _ := f.Catch(context.Background(), filter.Call{Tool: "t"}, dup)
	if got == nil || got.Message != "This customer exists already." || got.Details["k"] != "v" {
		t.Errorf("answer = %+v, want the Response as given", got)
	}
}
