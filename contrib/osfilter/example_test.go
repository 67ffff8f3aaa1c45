package osfilter_test

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/contrib/osfilter"
	"github.com/mcperr/mcperr/filter"
)

// runExample runs an MCP server whose tool "report" does work, with
// osfilter as its filter, calls the tool, and prints what the model reads
// and the retry advice.
func runExample(work func(ctx context.Context, name string) error, name string) {
	p, err := filter.New(filter.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		panic(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "reports", Version: "1.0.0"}, nil)
	if err := gosdk.Install(s, p); err != nil {
		panic(err)
	}
	type args struct {
		Name string `json:"name"`
	}
	err = gosdk.AddTool(s, &mcp.Tool{Name: "report"}, func(ctx context.Context, _ *mcp.CallToolRequest, in args) (*mcp.CallToolResult, any, error) {
		if err := work(ctx, in.Name); err != nil {
			return nil, nil, fmt.Errorf("report %s: %w", in.Name, err)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	}, filter.WithFilters(osfilter.New()))
	if err != nil {
		panic(err)
	}

	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := s.Connect(ctx, st, nil); err != nil {
		panic(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0.0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "report", Arguments: args{Name: name}})
	if err != nil {
		panic(err)
	}
	env, _ := gosdk.EnvelopeOf(res)
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	fmt.Println(env.Code, "retryable:", env.Retryable, "after:", env.RetryAfterSeconds)
	if env.Outcome != "" {
		fmt.Println("outcome:", env.Outcome)
	}
}

// A file the model names that does not exist reads as NOT_FOUND, without
// the path, which is the server's.
func ExampleNew() {
	dir, err := os.MkdirTemp("", "reports")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	runExample(func(_ context.Context, name string) error {
		_, err := os.ReadFile(filepath.Join(dir, name+".csv"))
		return err
	}, "q3-2026")
	// Output:
	// The file or directory does not exist; check the name in the arguments.
	// NOT_FOUND retryable: false after: 0
}

// A service that refuses the connection reads as UNAVAILABLE, retryable
// after a short wait.
func ExampleNew_refused() {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	addr := lis.Addr().String()
	lis.Close() // nothing listens there any more
	runExample(func(ctx context.Context, _ string) error {
		c, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
		if err == nil {
			c.Close()
		}
		return err
	}, "q3-2026")
	// Output:
	// A service the tool depends on is not accepting connections right now; retry the call shortly.
	// UNAVAILABLE retryable: true after: 2
}

// A deadline the tool set itself, passed with nothing to show how far the
// call got, may have come after the service acted: on a tool not annotated
// read-only or idempotent, the outcome is unknown and the call is not
// retryable.
func ExampleNew_ownDeadline() {
	runExample(func(ctx context.Context, _ string) error {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
		defer cancel()
		<-ctx.Done() // waiting for a worker, or for a statement it sent
		return ctx.Err()
	}, "q3-2026")
	// Output:
	// A service the tool depends on did not answer in time.
	// TIMEOUT retryable: false after: 0
	// outcome: unknown
}
