// Command orders is a small order service whose tools fail the ways real
// ones do, served with the official Go MCP SDK and mcperr.
//
// Its service layer returns mcperr's domain errors (NotFound, Validation,
// BusinessRule) and its database's own errors, knowing nothing of MCP. The
// server registers one application code, INSUFFICIENT_FUNDS, and three
// exception filters: a per-tool filter on transfer_funds, a global filter
// that counts failures, and a database filter that answers constraint
// violations and rethrows the rest. The program calls each tool with the
// SDK's in-memory client and prints what the model receives.
//
//	go run ./examples/orders
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
)

type getUserArgs struct {
	UserID string `json:"userId" jsonschema:"the user's id, such as usr_1"`
}

type createUserArgs struct {
	ID     string `json:"id"`
	Email  string `json:"email"`
	TeamID string `json:"teamId"`
}

type updateOrderArgs struct {
	OrderID string `json:"orderId"`
	Status  string `json:"status" jsonschema:"pending, processing, shipped or delivered"`
}

type transferArgs struct {
	FromAccount string  `json:"fromAccount"`
	ToAccount   string  `json:"toAccount"`
	Amount      float64 `json:"amount"`
}

type transferResult struct {
	Transferred float64 `json:"transferred"`
}

func main() {
	if err := run(context.Background(), os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "orders:", err)
		os.Exit(1)
	}
}

// newServer returns the order service's MCP server, its store and the
// global failure counter.
func newServer(logger *slog.Logger) (*mcp.Server, *Store, *failureCounter, error) {
	registry, err := codes.NewRegistry(appCodes...)
	if err != nil {
		return nil, nil, nil, err
	}
	counter := &failureCounter{}
	pipeline, err := filter.New(
		filter.WithLogger(logger),
		filter.WithRegistry(registry),
		filter.WithFilters(counter, databaseFilter),
	)
	if err != nil {
		return nil, nil, nil, err
	}

	store := NewStore()
	svc := &Service{store: store}
	server := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1.0.0"}, nil)
	if err := gosdk.Install(server, pipeline); err != nil {
		return nil, nil, nil, err
	}

	err = gosdk.AddTool(server, &mcp.Tool{Name: "get_user", Description: "Returns a user by id."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in getUserArgs) (*mcp.CallToolResult, User, error) {
			u, err := svc.GetUser(ctx, in.UserID)
			return nil, u, err
		})
	if err != nil {
		return nil, nil, nil, err
	}
	err = gosdk.AddTool(server, &mcp.Tool{Name: "create_user", Description: "Adds a user to a team."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in createUserArgs) (*mcp.CallToolResult, User, error) {
			u, err := svc.CreateUser(ctx, User(in))
			return nil, u, err
		})
	if err != nil {
		return nil, nil, nil, err
	}
	err = gosdk.AddTool(server, &mcp.Tool{Name: "update_order", Description: "Changes an order's status."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in updateOrderArgs) (*mcp.CallToolResult, Order, error) {
			o, err := svc.UpdateOrder(ctx, in.OrderID, in.Status)
			return nil, o, err
		})
	if err != nil {
		return nil, nil, nil, err
	}
	err = gosdk.AddTool(server, &mcp.Tool{Name: "transfer_funds", Description: "Moves money between two accounts."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in transferArgs) (*mcp.CallToolResult, transferResult, error) {
			if err := svc.TransferFunds(ctx, in.FromAccount, in.ToAccount, in.Amount); err != nil {
				return nil, transferResult{}, err
			}
			return nil, transferResult{Transferred: in.Amount}, nil
		},
		filter.WithFilters(insufficientFundsFilter))
	if err != nil {
		return nil, nil, nil, err
	}
	return server, store, counter, nil
}

// run calls every tool the ways it can fail and prints what the client
// receives. The server's log goes to stderr.
func run(ctx context.Context, stdout, stderr io.Writer) error {
	server, store, counter, err := newServer(slog.New(slog.NewTextHandler(stderr, nil)))
	if err != nil {
		return err
	}
	serverTransport, clientTransport := mcp.NewInMemoryTransports()
	serverSession, err := server.Connect(ctx, serverTransport, nil)
	if err != nil {
		return err
	}
	defer serverSession.Close()
	session, err := mcp.NewClient(&mcp.Implementation{Name: "orders-demo", Version: "1.0.0"}, nil).Connect(ctx, clientTransport, nil)
	if err != nil {
		return err
	}
	defer session.Close()

	calls := []struct {
		what string
		tool string
		args map[string]any
	}{
		{"a user that exists", "get_user", map[string]any{"userId": "usr_1"}},
		{"a user that does not", "get_user", map[string]any{"userId": "usr_404"}},
		{"a status that is not allowed", "update_order", map[string]any{"orderId": "ord_1", "status": "lost"}},
		{"a delivered order", "update_order", map[string]any{"orderId": "ord_2", "status": "pending"}},
		{"an argument of the wrong type", "update_order", map[string]any{"orderId": 1, "status": "shipped"}},
		{"too little money", "transfer_funds", map[string]any{"fromAccount": "acc_2", "toAccount": "acc_1", "amount": 50}},
		{"a duplicate email (unique violation)", "create_user", map[string]any{"id": "usr_2", "email": "ann@example.com", "teamId": "team_1"}},
		{"a missing team (foreign key violation)", "create_user", map[string]any{"id": "usr_3", "email": "bob@example.com", "teamId": "team_9"}},
		{"a lost database connection", "get_user", map[string]any{"userId": "usr_1"}},
	}
	for i, c := range calls {
		if i == len(calls)-1 {
			store.GoDown()
		}
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: %s\n", c.tool, c.what)
		// What the model reads: the content, block by block.
		for i, content := range res.Content {
			label := fmt.Sprintf("content[%d]:", i)
			for _, line := range strings.Split(content.(*mcp.TextContent).Text, "\n") {
				fmt.Fprintf(stdout, "  %-12s %s\n", label, line)
				label = ""
			}
		}
		// What a program reads: the envelope in _meta.
		if env, ok := gosdk.EnvelopeOf(res); ok {
			fmt.Fprintf(stdout, "  %-12s code=%s category=%s retryable=%t", "envelope:", env.Code, env.Category, env.Retryable)
			if env.Ref != "" {
				fmt.Fprintf(stdout, " ref=%s", env.Ref)
			}
			fmt.Fprintln(stdout)
		}
	}
	// transfer_funds's own filter answers before the global ones run, so the
	// counter never sees its failure.
	fmt.Fprintf(stdout, "failures seen by the global filter: get_user %d, update_order %d, transfer_funds %d, create_user %d\n",
		counter.Count("get_user"), counter.Count("update_order"), counter.Count("transfer_funds"), counter.Count("create_user"))
	return nil
}
