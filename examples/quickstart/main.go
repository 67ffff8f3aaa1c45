// Command quickstart shows mcperr's two kinds of failure on a server built
// with the official Go MCP SDK.
//
// A failure the model should read is a toolerr.ToolError: its message reaches
// the client exactly as written. Anything else is logged on the server with a
// reference id, and the client gets only `Internal error in tool "x" (ref: R).`
// with the same R, so the two can be matched.
//
//	go run ./examples/quickstart
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/toolerr"
)

type divideArgs struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

func divide(_ context.Context, _ *mcp.CallToolRequest, args divideArgs) (*mcp.CallToolResult, any, error) {
	// A failure the model should read: the message reaches the client.
	if args.B == 0 {
		return nil, nil, toolerr.New("b must not be zero.")
	}
	return &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: strconv.FormatFloat(args.A/args.B, 'g', -1, 64)},
	}}, nil, nil
}

// errDB stands for what a database driver returns: its text names a host.
var errDB = errors.New("connection refused by 10.0.0.12:5432")

func lookup(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
	// Anything else is logged on the server with a reference; the client
	// sees only the reference.
	return nil, nil, errDB
}

func main() {
	if err := run(context.Background(), os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

// newServer returns the server with mcperr installed, logging to logger,
// and its two tools.
func newServer(logger *slog.Logger) (*mcp.Server, error) {
	pipeline, err := filter.New(filter.WithLogger(logger))
	if err != nil {
		return nil, err
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "errors", Version: "0.1.0"}, nil)
	if err := gosdk.Install(server, pipeline); err != nil {
		return nil, err
	}
	if err := gosdk.AddTool(server, &mcp.Tool{Name: "divide", Description: "Divides a by b."}, divide); err != nil {
		return nil, err
	}
	if err := gosdk.AddTool(server, &mcp.Tool{Name: "lookup", Description: "Fails the way a bug or an outage does."}, lookup); err != nil {
		return nil, err
	}
	return server, nil
}

// run serves the two tools in memory, calls each with the SDK's own client
// and prints the text the client receives on stdout. The server logs to stderr.
func run(ctx context.Context, stdout, stderr io.Writer) error {
	server, err := newServer(slog.New(slog.NewTextHandler(stderr, nil)))
	if err != nil {
		return err
	}

	serverTransport, clientTransport := mcp.NewInMemoryTransports()
	serverSession, err := server.Connect(ctx, serverTransport, nil)
	if err != nil {
		return err
	}
	defer serverSession.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "quickstart", Version: "0.1.0"}, nil)
	session, err := client.Connect(ctx, clientTransport, nil)
	if err != nil {
		return err
	}
	defer session.Close()

	for _, call := range []mcp.CallToolParams{
		{Name: "divide", Arguments: map[string]any{"a": 1, "b": 0}},
		{Name: "lookup", Arguments: map[string]any{}},
	} {
		res, err := session.CallTool(ctx, &call)
		if err != nil {
			return err
		}
		// The message, then, indented, the block the model reads after it.
		for i, c := range res.Content {
			text := c.(*mcp.TextContent).Text
			if i > 0 {
				text = "  " + strings.ReplaceAll(text, "\n", "\n  ")
			}
			fmt.Fprintln(stdout, text)
		}
	}
	return nil
}
