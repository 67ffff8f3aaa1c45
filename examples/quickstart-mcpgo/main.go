// Command quickstart-mcpgo is examples/quickstart on mcp-go: a ToolError's
// message reaches the client exactly as written, and any other failure is
// logged on the server with a reference id while the client gets only
// `Internal error in tool "x" (ref: R).` with the same R.
//
//	go run ./examples/quickstart-mcpgo
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

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/toolerr"
)

func divide(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	// Arguments it cannot read fail the call: the client then gets a
	// VALIDATION_ERROR naming the fields that do not fit the schema.
	a, err := req.RequireFloat("a")
	if err != nil {
		return nil, err
	}
	b, err := req.RequireFloat("b")
	if err != nil {
		return nil, err
	}
	// A failure the model should read: the message reaches the client.
	if b == 0 {
		return nil, toolerr.New("b must not be zero.")
	}
	return mcp.NewToolResultText(strconv.FormatFloat(a/b, 'g', -1, 64)), nil
}

// errDB stands for what a database driver returns: its text names a host.
var errDB = errors.New("connection refused by 10.0.0.12:5432")

func lookup(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	// Anything else is logged on the server with a reference; the client
	// sees only the reference.
	return nil, errDB
}

func main() {
	if err := run(context.Background(), os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart-mcpgo:", err)
		os.Exit(1)
	}
}

// newServer returns the server with mcperr installed, logging to logger,
// and its two tools.
func newServer(logger *slog.Logger) (*server.MCPServer, error) {
	pipeline, err := filter.New(filter.WithLogger(logger))
	if err != nil {
		return nil, err
	}
	s := server.NewMCPServer("errors", "0.1.0")
	if err := mcpgo.Install(s, pipeline); err != nil {
		return nil, err
	}
	divideTool := mcp.NewTool("divide", mcp.WithDescription("Divides a by b."),
		mcp.WithNumber("a", mcp.Required()), mcp.WithNumber("b", mcp.Required()))
	if err := mcpgo.AddTool(s, divideTool, divide); err != nil {
		return nil, err
	}
	lookupTool := mcp.NewTool("lookup", mcp.WithDescription("Fails the way a bug or an outage does."))
	if err := mcpgo.AddTool(s, lookupTool, lookup); err != nil {
		return nil, err
	}
	return s, nil
}

// run serves the two tools in process, calls each with the SDK's own client
// and prints the text the client receives on stdout. The server logs to stderr.
func run(ctx context.Context, stdout, stderr io.Writer) error {
	s, err := newServer(slog.New(slog.NewTextHandler(stderr, nil)))
	if err != nil {
		return err
	}

	c, err := client.NewInProcessClient(s)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		return err
	}
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "quickstart", Version: "0.1.0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		return err
	}

	for _, call := range []struct {
		name string
		args map[string]any
	}{
		{"divide", map[string]any{"a": 1, "b": 0}},
		{"lookup", map[string]any{}},
	} {
		req := mcp.CallToolRequest{}
		req.Params.Name = call.name
		req.Params.Arguments = call.args
		res, err := c.CallTool(ctx, req)
		if err != nil {
			return err
		}
		// The message, then, indented, the block the model reads after it.
		for i, c := range res.Content {
			text := c.(mcp.TextContent).Text
			if i > 0 {
				text = "  " + strings.ReplaceAll(text, "\n", "\n  ")
			}
			fmt.Fprintln(stdout, text)
		}
	}
	return nil
}
