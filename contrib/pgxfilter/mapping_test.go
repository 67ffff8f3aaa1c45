package pgxfilter_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/contrib/pgxfilter"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/mcperrtest"
)

// pgErr returns a tool body that fails with a PgError as the server sends
// one: its values (the canary) in Message, Detail, Hint, Where and the
// internal query, its identifiers in their own fields.
func pgErr(state, table, column, constraint string) func(context.Context) error {
	return func(context.Context) error {
		return &pgconn.PgError{
			Severity:       "ERROR",
			Code:           state,
			Message:        "the server's message about " + canary,
			Detail:         "Key (ref)=(" + canary + ") already exists.",
			Hint:           "a hint naming " + canary,
			Where:          "SQL statement \"INSERT INTO orders VALUES ('" + canary + "')\"",
			InternalQuery:  "SELECT '" + canary + "'",
			TableName:      table,
			ColumnName:     column,
			ConstraintName: constraint,
		}
	}
}

// TestEverySQLState answers every SQLSTATE of the mapping, as PgErrors the
// server would send, through both SDKs: the PostgreSQL server produces
// only some of them on demand (the real-server tests provoke those), so
// each row is checked here whatever the environment.
func TestEverySQLState(t *testing.T) {
	const after = 2 * time.Second
	unavailable := func(state string) want {
		return want{code: codes.Unavailable, retry: true, after: after,
			message: "The database is unavailable right now (SQLSTATE " + state + "); retry the call in a moment.",
			details: `{"sqlState":"` + state + `"}`, logged: []string{"SQLSTATE " + state}}
	}
	dataException := func(state, sentence string) tcase {
		return tcase{name: "data_" + state, run: pgErr(state, "", "", ""),
			want: want{code: codes.ValidationError, message: sentence + " (SQLSTATE " + state + "); check the values in the arguments.",
				details: `{"sqlState":"` + state + `"}`, logged: []string{"SQLSTATE " + state}}}
	}
	cases := []tcase{
		{name: "unique", run: pgErr("23505", "orders", "", "orders_ref_key"),
			want: want{code: codes.Conflict, message: "A record with this value already exists (constraint orders_ref_key); choose another value.",
				details: `{"constraint":"orders_ref_key","sqlState":"23505","table":"orders"}`, logged: []string{"SQLSTATE 23505"}}},
		{name: "unique_unnamed", run: pgErr("23505", "", "", ""),
			want: want{code: codes.Conflict, message: "A record with this value already exists; choose another value.",
				details: `{"sqlState":"23505"}`}},
		{name: "exclusion", run: pgErr("23P01", "bookings", "", "bookings_during_excl"),
			want: want{code: codes.Conflict, message: "The record conflicts with an existing one (constraint bookings_during_excl); choose other values.",
				details: `{"constraint":"bookings_during_excl","sqlState":"23P01","table":"bookings"}`}},
		{name: "foreign_key", run: pgErr("23503", "orders", "", "orders_customer_id_fkey"),
			want: want{code: codes.BusinessRuleViolation,
				message: "A referenced record does not exist, or other records still refer to this one (constraint orders_customer_id_fkey); check the identifiers in the arguments, or remove the referring records first.",
				details: `{"constraint":"orders_customer_id_fkey","sqlState":"23503","table":"orders"}`}},
		{name: "restrict", run: pgErr("23001", "orders", "", "orders_customer_id_fkey"),
			want: want{code: codes.BusinessRuleViolation,
				message: "A referenced record does not exist, or other records still refer to this one (constraint orders_customer_id_fkey); check the identifiers in the arguments, or remove the referring records first.",
				details: `{"constraint":"orders_customer_id_fkey","sqlState":"23001","table":"orders"}`}},
		{name: "check", run: pgErr("23514", "orders", "", "orders_quantity_check"),
			want: want{code: codes.ValidationError, message: "A value is not allowed by a rule of the database (constraint orders_quantity_check); check the arguments.",
				details: `{"constraint":"orders_quantity_check","sqlState":"23514","table":"orders"}`}},
		{name: "not_null", run: pgErr("23502", "orders", "quantity", ""),
			want: want{code: codes.ValidationError, message: "A value is required for quantity; provide it.",
				details: `{"column":"quantity","sqlState":"23502","table":"orders","violations":[{"constraint":"is required","field":"quantity","reason":"required"}]}`}},
		{name: "not_null_unnamed", run: pgErr("23502", "", "", ""),
			want: want{code: codes.ValidationError, message: "A required value is missing; provide it.", details: `{"sqlState":"23502"}`}},
		dataException("22001", "A value is too long for the database"),
		dataException("22003", "A number is out of the range the database accepts"),
		dataException("22007", "A date or time is not in a form the database accepts"),
		dataException("22008", "A date or time is out of the range the database allows"),
		dataException("22021", "A text value holds bytes that are not valid characters"),
		dataException("22P02", "A value is not in the form its database type needs"),
		{name: "serialization", run: pgErr("40001", "", "", ""),
			want: want{code: codes.Conflict, retry: true, message: "The operation conflicted with a concurrent change (SQLSTATE 40001); retry the call.",
				details: `{"sqlState":"40001"}`}},
		{name: "deadlock", run: pgErr("40P01", "", "", ""),
			want: want{code: codes.Conflict, retry: true, message: "The operation conflicted with a concurrent change (SQLSTATE 40P01); retry the call.",
				details: `{"sqlState":"40P01"}`}},
		{name: "query_canceled", run: pgErr("57014", "", "", ""),
			want: want{code: codes.Timeout, retry: true,
				message: "The database stopped the statement before it finished, usually because it took too long (SQLSTATE 57014); retry the call, or ask for less at once.",
				details: `{"sqlState":"57014"}`}},
		{name: "lock_not_available", run: pgErr("55P03", "", "", ""),
			want: want{code: codes.Timeout, retry: true, message: "A record the tool needs is locked by another operation (SQLSTATE 55P03); retry the call in a moment.",
				details: `{"sqlState":"55P03"}`}},
		{name: "too_many_connections", run: pgErr("53300", "", "", ""), want: unavailable("53300")},
		{name: "connection_exception", run: pgErr("08000", "", "", ""), want: unavailable("08000")},
		{name: "connection_failure", run: pgErr("08006", "", "", ""), want: unavailable("08006")},
		{name: "protocol_violation", run: pgErr("08P01", "", "", ""), want: unavailable("08P01")},
		{name: "admin_shutdown", run: pgErr("57P01", "", "", ""), want: unavailable("57P01")},
		{name: "crash_shutdown", run: pgErr("57P02", "", "", ""), want: unavailable("57P02")},
		{name: "cannot_connect_now", run: pgErr("57P03", "", "", ""), want: unavailable("57P03")},
		// Passed on: the built-in mapping masks them.
		{name: "undefined_table", run: pgErr("42P01", "", "", ""), want: want{masked: true, logged: []string{"SQLSTATE 42P01"}}},
		{name: "raise_exception", run: pgErr("P0001", "", "", ""), want: want{masked: true, logged: []string{"SQLSTATE P0001"}}},
		{name: "invalid_password", run: pgErr("28P01", "", "", ""), want: want{masked: true, logged: []string{"SQLSTATE 28P01"}}},
		{name: "division_by_zero", run: pgErr("22012", "", "", ""), want: want{masked: true, logged: []string{"SQLSTATE 22012"}}},
		{name: "no_sqlstate", run: pgErr("", "", "", ""), want: want{masked: true}},
		{name: "unrelated", run: func(context.Context) error { return errors.New("template: no such field") },
			want: want{masked: true, logged: []string{"template: no such field"}}},
		// pgx's errors that are not the server's.
		{name: "conn_closed_while_receiving", run: func(context.Context) error {
			// As pgconn reports a connection closed after a request may
			// have been sent: ErrConnClosed, and not safe to retry.
			return fmt.Errorf("receive message: %w", pgconn.ErrConnClosed)
		}, want: want{code: codes.Unavailable, retry: false, unknown: true,
			message: "The connection to the database was lost during the call, so a change it made may or may not have been saved.",
			logged:  []string{"conn closed"}}},
		// The same on a read-only tool: nothing was changed, so retry.
		{name: "conn_closed_while_reading", readOnly: true, run: func(context.Context) error {
			return fmt.Errorf("receive message: %w", pgconn.ErrConnClosed)
		}, want: want{code: codes.Unavailable, retry: true, after: 2 * time.Second,
			message: "The connection to the database was lost during the call, so a change it made may or may not have been saved.",
			logged:  []string{"conn closed"}}},
		// Wrapped twice, and bound to the tool: the option answers first.
		{name: "constraint_option", run: func(ctx context.Context) error {
			return fmt.Errorf("create order: %w", pgErr("23503", "orders", "", "orders_customer_id_fkey")(ctx))
		}, filters: []filter.Filter{mustNew(pgxfilter.Constraint("orders_customer_id_fkey",
			filter.Response{Code: codes.NotFound, Message: "No such customer.", Details: map[string]any{"resourceType": "Customer"}}))},
			want: want{code: codes.NotFound, message: "No such customer.", details: `{"resourceType":"Customer"}`, logged: []string{"SQLSTATE 23503"}}},
		// The option names one constraint, of class 23 only: another
		// constraint, or another class, gets the pack's answer.
		{name: "constraint_option_other", run: pgErr("23503", "orders", "", "orders_product_id_fkey"),
			filters: []filter.Filter{mustNew(pgxfilter.Constraint("orders_customer_id_fkey", filter.Response{Code: codes.NotFound, Message: "No such customer."}))},
			want: want{code: codes.BusinessRuleViolation,
				message: "A referenced record does not exist, or other records still refer to this one (constraint orders_product_id_fkey); check the identifiers in the arguments, or remove the referring records first.",
				details: `{"constraint":"orders_product_id_fkey","sqlState":"23503","table":"orders"}`}},
		{name: "constraint_option_not_class_23", run: pgErr("40P01", "", "", "orders_customer_id_fkey"),
			filters: []filter.Filter{mustNew(pgxfilter.Constraint("orders_customer_id_fkey", filter.Response{Code: codes.NotFound, Message: "No such customer."}))},
			want: want{code: codes.Conflict, retry: true, message: "The operation conflicted with a concurrent change (SQLSTATE 40P01); retry the call.",
				details: `{"constraint":"orders_customer_id_fkey","sqlState":"40P01"}`}},
	}
	onBothSDKs(t, cases)
}

// TestNewRefusesBadOptions checks that an option New cannot honour makes
// it return a definition error that says what to fix, and no filter.
func TestNewRefusesBadOptions(t *testing.T) {
	r := filter.Response{Code: codes.NotFound, Message: "No such customer."}
	for name, c := range map[string]struct {
		opts []pgxfilter.Option
		want string
	}{
		"an empty name":    {[]pgxfilter.Option{pgxfilter.Constraint("", r)}, `mcperr: INVALID_OPTION: pgxfilter.Constraint: the constraint's name is empty; give its name as PostgreSQL reports it, such as orders_ref_key`},
		"no message":       {[]pgxfilter.Option{pgxfilter.Constraint("orders_customer_id_fkey", filter.Response{Code: codes.NotFound})}, `mcperr: INVALID_OPTION: "orders_customer_id_fkey": pgxfilter.Constraint: the response has no message; write the sentence the model reads for this constraint`},
		"a name twice":     {[]pgxfilter.Option{pgxfilter.Constraint("orders_customer_id_fkey", r), pgxfilter.Constraint("orders_customer_id_fkey", r)}, `mcperr: INVALID_OPTION: "orders_customer_id_fkey": pgxfilter.Constraint: the constraint is given twice; keep one Constraint for it`},
		"a good and a bad": {[]pgxfilter.Option{pgxfilter.Constraint("orders_ref_key", r), pgxfilter.Constraint("", r)}, `mcperr: INVALID_OPTION: pgxfilter.Constraint: the constraint's name is empty; give its name as PostgreSQL reports it, such as orders_ref_key`},
	} {
		f, err := pgxfilter.New(c.opts...)
		var def *codes.DefinitionError
		if f != nil || !errors.As(err, &def) || def.Mistake != codes.InvalidOption || err.Error() != c.want {
			t.Errorf("%s: New = %T, %v; want no filter and %s", name, f, err, c.want)
		}
	}
	if f, err := pgxfilter.New(nil, pgxfilter.Constraint("a", r), pgxfilter.Constraint("b", r)); f == nil || err != nil {
		t.Errorf("New refused two constraints of different names and a nil option: %v", err)
	}
}

// TestNewRefusesBadResources checks that a Resource without a tool or a
// name, or a tool given twice, makes New return a definition error that
// says what to fix, and no filter.
func TestNewRefusesBadResources(t *testing.T) {
	for name, c := range map[string]struct {
		opts []pgxfilter.Option
		want string
	}{
		"no tool":      {[]pgxfilter.Option{pgxfilter.Resource("", "Order")}, `mcperr: INVALID_OPTION: pgxfilter.Resource: the tool's name is empty; give the name of the tool that reads the record, such as get_order`},
		"no name":      {[]pgxfilter.Option{pgxfilter.Resource("get_order", "")}, `mcperr: INVALID_OPTION: "get_order": pgxfilter.Resource: the name is empty; give the kind of record the tool reads, such as Order, or leave the option out`},
		"a tool twice": {[]pgxfilter.Option{pgxfilter.Resource("get_order", "Order"), pgxfilter.Resource("get_order", "Invoice")}, `mcperr: INVALID_OPTION: "get_order": pgxfilter.Resource: the tool is given twice; keep one Resource for it`},
	} {
		f, err := pgxfilter.New(c.opts...)
		var def *codes.DefinitionError
		if f != nil || !errors.As(err, &def) || def.Mistake != codes.InvalidOption || err.Error() != c.want {
			t.Errorf("%s: New = %T, %v; want no filter and %s", name, f, err, c.want)
		}
	}
	if f, err := pgxfilter.New(pgxfilter.Resource("get_order", "Order"), pgxfilter.Resource("list_orders", "Order")); f == nil || err != nil {
		t.Errorf("New refused two tools of one kind: %v", err)
	}
}

// TestConstraintCopiesTheResponse checks that changing a Response after
// giving it to Constraint changes nothing sent.
func TestConstraintCopiesTheResponse(t *testing.T) {
	retry := false
	r := filter.Response{Code: codes.NotFound, Message: "No such customer.",
		Details: map[string]any{"resourceType": "Customer"}, Hints: []string{"List the customers first."}, Retryable: &retry}
	f := mustNew(pgxfilter.Constraint("orders_customer_id_fkey", r))
	r.Details["resourceType"] = canary
	r.Hints[0] = canary
	retry = true
	got, err := f.Catch(context.Background(), filter.Call{Tool: "create_order"}, pgErr("23503", "orders", "", "orders_customer_id_fkey")(context.Background()))
	if err != nil || got == nil {
		t.Fatalf("Catch = %v, %v; want an answer", got, err)
	}
	if got.Details["resourceType"] != "Customer" || got.Hints[0] != "List the customers first." || *got.Retryable {
		t.Errorf("the answer changed with the caller's Response: %+v", got)
	}
}

// TestRequestEndedIsThePipelines checks that an error the pack would
// answer is left to the pipeline when the request's own context is done:
// the client reads CANCELLED or TIMEOUT, as for any request that ends, and
// the record keeps the database's error.
func TestRequestEndedIsThePipelines(t *testing.T) {
	for _, tc := range []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		code codes.Code
	}{
		{"cancelled", func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }, codes.Cancelled},
		{"past its deadline", func() (context.Context, context.CancelFunc) {
			return context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
		}, codes.Timeout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := tc.ctx()
			cancel()
			log := mcperrtest.NewLog(t)
			p, err := filter.New(filter.WithLogger(log.Logger()), filter.WithFilters(mustNew()))
			if err != nil {
				t.Fatal(err)
			}
			for _, state := range []string{"57014", "23505", "08006"} {
				err := fmt.Errorf("save order for %s: %w", canary, pgErr(state, "orders", "", "orders_ref_key")(ctx))
				f := p.Handle(ctx, filter.Call{Tool: "save_order"}, err)
				if f.Envelope.Code != tc.code {
					t.Errorf("SQLSTATE %s: code %s, want %s (the pipeline's)", state, f.Envelope.Code, tc.code)
				}
				recs := log.Records()
				if text, _ := recs[len(recs)-1].Attrs["error"].(string); !containsAll(text, canary, "SQLSTATE "+state) {
					t.Errorf("SQLSTATE %s: the record's error is %q, want the database's error", state, text)
				}
			}
		})
	}
}

// containsAll reports whether s holds each of subs.
func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
