package pgxfilter_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	mcpgomcp "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/adapters/gosdk/gosdktest"
	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/adapters/mcpgo/mcpgotest"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/mcperrtest"
)

// TestSerializationFailureRetried runs a tool whose first transaction a
// concurrent one makes fail with a real serialization failure (SQLSTATE
// 40001) on a real PostgreSQL server, on both SDKs, with retries on: a
// tool annotated idempotent (it sets a counter's owner) is called again on
// the server and succeeds; one that is not (it bumps the counter) is not
// called again, and the model reads CONFLICT with "retry": the failed
// transaction was rolled back, so its outcome is known.
func TestSerializationFailureRetried(t *testing.T) {
	p := openPostgres(t, shop...)
	type counter struct{ calls, conflicts atomic.Int64 }
	// run runs the tool's transaction on counter id; its first one meets a
	// concurrent update of the row, which makes it fail with 40001.
	run := func(ctx context.Context, c *counter, id int, set string) error {
		calls := c.calls.Add(1)
		return p.withConns(ctx, 2, func(cs ...*pgx.Conn) error {
			tx, err := cs[0].BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead})
			if err != nil {
				return err
			}
			defer tx.Rollback(context.Background())
			var n int
			if err := tx.QueryRow(ctx, `SELECT n FROM counters WHERE id = $1`, id).Scan(&n); err != nil {
				return err
			}
			if calls == 1 {
				c.conflicts.Add(1)
				if _, err := cs[1].Exec(ctx, `UPDATE counters SET n = n + 1 WHERE id = $1`, id); err != nil {
					return fmt.Errorf("set-up: %w", err)
				}
			}
			if _, err := tx.Exec(ctx, `UPDATE counters SET n = $1, owner = $2 WHERE id = $3`, n+1, set, id); err != nil {
				return err
			}
			return tx.Commit(ctx)
		})
	}
	pipeline := func(log *mcperrtest.Log) *filter.Pipeline {
		f, err := filter.New(filter.WithLogger(log.Logger()), filter.WithRetries(2), filter.WithFilters(mustNew()))
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	type call func(tool string) *mcperrtest.Result
	sdks := map[string]func(t *testing.T, log *mcperrtest.Log, setOwner, bump *counter, base int) call{
		"go-sdk": func(t *testing.T, log *mcperrtest.Log, setOwner, bump *counter, base int) call {
			s := gomcp.NewServer(&gomcp.Implementation{Name: "shop", Version: "1.0.0"}, nil)
			if err := gosdk.Install(s, pipeline(log)); err != nil {
				t.Fatal(err)
			}
			gomcp.AddTool(s, &gomcp.Tool{Name: "set_owner", Annotations: &gomcp.ToolAnnotations{IdempotentHint: true}},
				func(ctx context.Context, _ *gomcp.CallToolRequest, _ struct{}) (*gomcp.CallToolResult, any, error) {
					return &gomcp.CallToolResult{Content: []gomcp.Content{&gomcp.TextContent{Text: "set"}}}, nil, run(ctx, setOwner, base, "ada")
				})
			gomcp.AddTool(s, &gomcp.Tool{Name: "bump"}, func(ctx context.Context, _ *gomcp.CallToolRequest, _ struct{}) (*gomcp.CallToolResult, any, error) {
				return &gomcp.CallToolResult{Content: []gomcp.Content{&gomcp.TextContent{Text: "bumped"}}}, nil, run(ctx, bump, base+1, "bob")
			})
			c := gosdktest.Connect(t, s)
			return func(tool string) *mcperrtest.Result { return c.Call(tool, struct{}{}) }
		},
		"mcp-go": func(t *testing.T, log *mcperrtest.Log, setOwner, bump *counter, base int) call {
			s := server.NewMCPServer("shop", "1.0.0")
			if err := mcpgo.Install(s, pipeline(log)); err != nil {
				t.Fatal(err)
			}
			s.AddTool(mcpgomcp.NewTool("set_owner", mcpgomcp.WithIdempotentHintAnnotation(true)), func(ctx context.Context, _ mcpgomcp.CallToolRequest) (*mcpgomcp.CallToolResult, error) {
				if err := run(ctx, setOwner, base, "ada"); err != nil {
					return nil, err
				}
				return mcpgomcp.NewToolResultText("set"), nil
			})
			s.AddTool(mcpgomcp.NewTool("bump"), func(ctx context.Context, _ mcpgomcp.CallToolRequest) (*mcpgomcp.CallToolResult, error) {
				if err := run(ctx, bump, base+1, "bob"); err != nil {
					return nil, err
				}
				return mcpgomcp.NewToolResultText("bumped"), nil
			})
			c := mcpgotest.Connect(t, s)
			return func(tool string) *mcperrtest.Result { return c.Call(tool, struct{}{}) }
		},
	}
	base := 1
	for name, connect := range sdks {
		t.Run(name, func(t *testing.T) {
			log := mcperrtest.NewLog(t)
			var setOwner, bump counter
			call := connect(t, log, &setOwner, &bump, base)
			base += 2

			res := call("set_owner")
			mcperrtest.AssertSuccess(t, res)
			mcperrtest.AssertAttempts(t, res, log, 2)
			if setOwner.calls.Load() != 2 || setOwner.conflicts.Load() != 1 {
				t.Errorf("set_owner: %d calls, %d conflicts; want 2 and 1", setOwner.calls.Load(), setOwner.conflicts.Load())
			}

			res = call("bump")
			mcperrtest.AssertToolError(t, res, codes.Conflict, "The operation conflicted with a concurrent change (SQLSTATE 40001); retry the call.")
			mcperrtest.AssertAttempts(t, res, log, 1)
			if res.Envelope != nil && (!res.Envelope.Retryable || res.Envelope.Outcome != "") {
				t.Errorf("bump: retryable %v, outcome %q; want retryable, the outcome known", res.Envelope.Retryable, res.Envelope.Outcome)
			}
			if bump.calls.Load() != 1 {
				t.Errorf("bump was called %d times, want once", bump.calls.Load())
			}
		})
	}
}
