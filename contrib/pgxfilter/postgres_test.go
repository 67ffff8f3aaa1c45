package pgxfilter_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// The environment that gives the tests a real PostgreSQL server.
const (
	// dsnEnv names the variable that holds the server's URL, such as
	// postgres://postgres:secret@127.0.0.1:5432/mcperr?sslmode=disable.
	// Its user must be able to create schemas and roles.
	dsnEnv = "MCPERR_POSTGRES_DSN"
	// requiredEnv, set to 1, makes a missing or unreachable server fail
	// the tests instead of skipping them.
	requiredEnv = "MCPERR_POSTGRES_REQUIRED"
)

// setupTimeout bounds each statement the tests run to set a case up.
const setupTimeout = 30 * time.Second

// noServer skips the test, or fails it when a server is required, saying
// why there is no server and how to give one.
func noServer(t *testing.T, why string) {
	t.Helper()
	how := "set " + dsnEnv + " to the URL of a PostgreSQL server whose user may create schemas and roles " +
		"(for a throwaway local one: export " + dsnEnv + "=$(.ci/postgres), and .ci/postgres stop \"$" + dsnEnv + "\" afterwards)"
	if os.Getenv(requiredEnv) == "1" {
		t.Fatalf("%s, and %s=1 requires a server: %s", why, requiredEnv, how)
	}
	t.Skipf("%s: %s", why, how)
}

// postgres is a real server with a schema of the test's own: every
// connection it opens works in that schema.
type postgres struct {
	t      *testing.T
	cfg    *pgx.ConnConfig
	schema string
}

// openPostgres connects to the server of MCPERR_POSTGRES_DSN, creates a
// schema with a unique name, and runs setup in it; the schema is dropped
// when the test ends. Without a server, it skips the test (see noServer).
func openPostgres(t *testing.T, setup ...string) *postgres {
	t.Helper()
	dsn := os.Getenv(dsnEnv)
	if dsn == "" {
		noServer(t, dsnEnv+" is not set")
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatalf("%s is not a PostgreSQL URL: %v", dsnEnv, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	admin, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		noServer(t, "the server of "+dsnEnv+" cannot be reached ("+err.Error()+")")
	}
	defer admin.Close(context.Background())
	p := &postgres{t: t, cfg: cfg.Copy(), schema: "pgxfilter_" + randomHex(8)}
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+p.schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
		defer cancel()
		c, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			t.Errorf("drop schema %s: %v", p.schema, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP SCHEMA "+p.schema+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", p.schema, err)
		}
	})
	p.cfg.RuntimeParams["search_path"] = p.schema
	c := p.conn(ctx)
	for _, q := range setup {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return p
}

// conn opens a new connection in the test's schema; it is closed when the
// test ends, if it is still open.
func (p *postgres) conn(ctx context.Context) *pgx.Conn {
	p.t.Helper()
	c, err := pgx.ConnectConfig(ctx, p.cfg)
	if err != nil {
		p.t.Fatalf("connect: %v", err)
	}
	p.t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// connect opens a new connection in the test's schema, for a tool's body
// to use and close.
func (p *postgres) connect(ctx context.Context) (*pgx.Conn, error) {
	return pgx.ConnectConfig(ctx, p.cfg)
}

// exec runs a statement that sets a case up, and fails the test if it
// fails.
func (p *postgres) exec(ctx context.Context, c *pgx.Conn, q string, args ...any) {
	p.t.Helper()
	if _, err := c.Exec(ctx, q, args...); err != nil {
		p.t.Fatalf("%s: %v", q, err)
	}
}

// randomHex returns n random bytes in hexadecimal.
func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err))
	}
	return hex.EncodeToString(b)
}
