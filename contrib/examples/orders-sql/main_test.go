package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcperr/mcperr/adapters/gosdk/gosdktest"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/mcperrtest"
)

// The environment that gives the tests a real PostgreSQL server.
const (
	// dsnEnv names the variable that holds the server's URL; its user must
	// be able to create schemas.
	dsnEnv = "MCPERR_POSTGRES_DSN"
	// requiredEnv, set to 1, makes a missing server fail the PostgreSQL
	// tests instead of skipping them.
	requiredEnv = "MCPERR_POSTGRES_REQUIRED"
)

// dialectCase is what differs between the databases in what the program
// prints.
type dialectCase struct {
	name string
	cfg  config
	// duplicateCustomer and locked are the packs' own sentences, which
	// differ by database.
	duplicateCustomer string
	locked            string
	// lockedRetry is the retry line of the locked call.
	lockedRetry string
	// databaseText are parts of the database's own error texts: the log
	// holds each, the client none.
	databaseText []string
}

var sqliteCase = dialectCase{
	name:              "SQLite",
	duplicateCustomer: "A record with this value already exists (customers.id); choose another value.",
	locked:            "The database is locked by another operation; retry the call in a moment.",
	lockedRetry:       "Retry: yes.",
	databaseText: []string{"UNIQUE constraint failed: customers.id", "UNIQUE constraint failed: orders.ref",
		"FOREIGN KEY constraint failed", "CHECK constraint failed: orders_qty_positive", "database is locked (5)",
		"no rows in result set"},
}

// postgresCase returns the PostgreSQL case, or skips the test when no
// server is given.
func postgresCase(t *testing.T) dialectCase {
	t.Helper()
	dsn := os.Getenv(dsnEnv)
	if dsn == "" {
		if os.Getenv(requiredEnv) == "1" {
			t.Fatalf("%s is not set, and %s=1 requires a PostgreSQL server", dsnEnv, requiredEnv)
		}
		t.Skipf("%s is not set: set it to the URL of a PostgreSQL server whose user may create schemas", dsnEnv)
	}
	return dialectCase{
		name:              "PostgreSQL",
		cfg:               config{dsn: dsn},
		duplicateCustomer: "A record with this value already exists (constraint customers_pkey); choose another value.",
		locked:            "A record the tool needs is locked by another operation (SQLSTATE 55P03); retry the call in a moment.",
		lockedRetry:       "Retry: yes.",
		databaseText: []string{"duplicate key value violates unique constraint", "violates foreign key constraint",
			"violates check constraint", "canceling statement due to lock timeout", "no rows in result set"},
	}
}

// TestRunSQLite runs the program as go run does, on SQLite in a
// temporary file, and checks what it prints.
func TestRunSQLite(t *testing.T) { checkRun(t, sqliteCase) }

// TestRunSQLiteFile runs the program twice on the same file: the tables
// are created anew each time.
func TestRunSQLiteFile(t *testing.T) {
	c := sqliteCase
	c.cfg.dbPath = filepath.Join(t.TempDir(), "orders.db")
	checkRun(t, c)
	checkRun(t, c)
}

// TestRunPostgres runs the program on the PostgreSQL server of
// MCPERR_POSTGRES_DSN.
func TestRunPostgres(t *testing.T) { checkRun(t, postgresCase(t)) }

// checkRun runs the program on the database of c and checks what it
// prints: every answer the model reads, nothing of the database's text,
// and the log holding that text and the ref of the lock timeout once.
func checkRun(t *testing.T, c dialectCase) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), &stdout, &stderr, c.cfg); err != nil {
		t.Fatalf("run: %v\nstderr:\n%s", err, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{
		"database: " + c.name,
		"create_customer: a new customer\n  content[0]:  {\"id\":\"cus_1\",\"name\":\"Ann Lee\"}\n",
		"create_customer: the same customer again\n  content[0]:  " + c.duplicateCustomer + "\n  content[1]:  Code: CONFLICT\n",
		"place_order: a duplicate order\n  content[0]:  An order with this reference already exists.\n  content[1]:  Code: CONFLICT\n" +
			"               Retry: no, not with the same arguments.\n               Hint: Read it with get_order, or place the order under another ref.\n" +
			"  envelope:    code=CONFLICT category=client retryable=false\n",
		"place_order: a missing customer\n  content[0]:  No such customer.\n  content[1]:  Code: NOT_FOUND\n" +
			"               Retry: no, not with the same arguments.\n               Hint: Create the customer with create_customer first, or check customerId.\n",
		"place_order: a quantity of zero\n  content[0]:  Validation failed for qty: must be 1 or more\n  content[1]:  Code: VALIDATION_ERROR\n" +
			`               Details: {"violations":[{"constraint":"must be 1 or more","field":"qty","pointer":"/qty","reason":"minimum"}]}` + "\n",
		"get_order: an order that exists\n  content[0]:  {\"customerId\":\"cus_1\",\"qty\":2,\"ref\":\"A-1\",\"status\":\"pending\"}\n",
		"get_order: a missing order\n  content[0]:  Order not found.\n  content[1]:  Code: NOT_FOUND\n               Details: {\"resourceType\":\"Order\"}\n",
		"update_order_status: an order another transaction has locked\n  content[0]:  " + c.locked + "\n  content[1]:  Code: TIMEOUT\n",
		c.lockedRetry + "\n",
		"update_order_status: the same call once the lock is gone\n  content[0]:  {\"customerId\":\"cus_1\",\"qty\":2,\"ref\":\"A-1\",\"status\":\"shipped\"}\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	m := regexp.MustCompile(`envelope:    code=TIMEOUT category=server retryable=true(?: retryAfter=\S+)? ref=([0-9a-f]{16})\n`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no retryable TIMEOUT with a ref in:\n%s", out)
	}
	log := stderr.String()
	if strings.Count(log, m[1]) != 1 {
		t.Errorf("the log should name ref %s once:\n%s", m[1], log)
	}
	for _, text := range c.databaseText {
		if !strings.Contains(log, text) {
			t.Errorf("the log lacks the database's %q:\n%s", text, log)
		}
		if strings.Contains(out, text) {
			t.Errorf("the client received the database's %q", text)
		}
	}
	for _, text := range []string{"insert order", "select order", "update order", "constraint failed", "SQLITE_", "ERROR:"} {
		if strings.Contains(out, text) {
			t.Errorf("the client received %q, a part of an error", text)
		}
	}
	if t.Failed() {
		t.Logf("output:\n%s", out)
	}
}

// TestAnswersSQLite checks each answer with mcperr's test kit, through
// go-sdk's own client, on SQLite.
func TestAnswersSQLite(t *testing.T) { checkAnswers(t, sqliteCase) }

// TestAnswersPostgres does the same on PostgreSQL.
func TestAnswersPostgres(t *testing.T) { checkAnswers(t, postgresCase(t)) }

// checkAnswers calls each tool of the server on the database of c as the
// program does, and asserts what the client reads: code, message, retry
// advice, no part of the database's text anywhere in the response, and the
// original error in the one log record.
func checkAnswers(t *testing.T, c dialectCase) {
	d, err := openDatabase(context.Background(), c.cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.close(); err != nil {
			t.Error(err)
		}
	})
	log := mcperrtest.NewLog(t)
	server, err := newServer(d, log.Logger())
	if err != nil {
		t.Fatal(err)
	}
	client := gosdktest.Connect(t, server)
	want := map[string]struct {
		code    codes.Code
		message string
	}{
		"the same customer again":                 {codes.Conflict, c.duplicateCustomer},
		"a duplicate order":                       {codes.Conflict, "An order with this reference already exists."},
		"a missing customer":                      {codes.NotFound, "No such customer."},
		"a quantity of zero":                      {codes.ValidationError, "Validation failed for qty: must be 1 or more"},
		"a missing order":                         {codes.NotFound, "Order not found."},
		"an order another transaction has locked": {codes.Timeout, c.locked},
	}
	for _, call := range calls {
		var res *mcperrtest.Result
		func() {
			if call.locked {
				release, err := d.holdLock(context.Background(), call.args["ref"].(string))
				if err != nil {
					t.Fatal(err)
				}
				defer func() {
					if err := release(); err != nil {
						t.Error(err)
					}
				}()
			}
			res = client.Call(call.tool, call.args)
		}()
		w, fails := want[call.what]
		if !fails {
			mcperrtest.AssertSuccess(t, res)
			continue
		}
		if mcperrtest.AssertToolError(t, res, w.code, w.message) {
			env := res.Envelope
			if server := w.code == codes.Timeout; env.Retryable != server || (env.Ref != "") != server {
				t.Errorf("%s: retryable %t, ref %q; want both only for the TIMEOUT", call.what, env.Retryable, env.Ref)
			}
			if w.code == codes.ValidationError {
				mcperrtest.AssertValidation(t, res, "qty")
			}
			recs := log.Records()
			if env.Ref != "" {
				recs = log.WithRef(env.Ref)
			}
			if text, _ := recs[len(recs)-1].Attrs["error"].(string); !containsAny(text, c.databaseText) {
				t.Errorf("%s: the record's error is %q, want the database's own", call.what, text)
			}
		}
		for _, text := range c.databaseText {
			mcperrtest.AssertNoCanary(t, res, text)
		}
	}
}

// TestDatabasePackAloneSQLite checks that the database's pack, told what
// the tools read, names a missing row as sqlfilter does, without it.
func TestDatabasePackAloneSQLite(t *testing.T) { checkPackAlone(t, sqliteCase) }

// TestDatabasePackAlonePostgres does the same on PostgreSQL.
func TestDatabasePackAlonePostgres(t *testing.T) { checkPackAlone(t, postgresCase(t)) }

// checkPackAlone reads a missing order from the store on the database of c
// and asks a pipeline with the database's pack as its only filter what
// each tool answers: NOT_FOUND, named after what the tool reads.
func checkPackAlone(t *testing.T, c dialectCase) {
	ctx := context.Background()
	d, err := openDatabase(ctx, c.cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.close(); err != nil {
			t.Error(err)
		}
	})
	_, missing := d.store.GetOrder(ctx, "A-404")
	if missing == nil {
		t.Fatal("GetOrder of a missing order succeeded")
	}
	p, err := filter.New(filter.WithLogger(mcperrtest.NewLog(t).Logger()), filter.WithFilters(d.pack))
	if err != nil {
		t.Fatal(err)
	}
	for tool, want := range map[string]string{
		"get_order":           "Order not found.",
		"update_order_status": "Order not found.",
		"create_customer":     "Record not found.",
	} {
		f := p.Handle(ctx, filter.Call{Tool: tool}, missing)
		if f.Envelope.Code != codes.NotFound || f.Envelope.Message != want {
			t.Errorf("%s: %s %q, want NOT_FOUND %q", tool, f.Envelope.Code, f.Envelope.Message, want)
		}
	}
}

// containsAny reports whether s holds one of parts.
func containsAny(s string, parts []string) bool {
	for _, p := range parts {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}
