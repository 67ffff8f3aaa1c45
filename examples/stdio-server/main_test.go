package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/codes"
)

// TestMain runs the test binary as the server when asked to, so the smoke
// test can start it as a child process over stdio.
func TestMain(m *testing.M) {
	if os.Getenv("STDIO_SERVER_CHILD") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestStdioServer(t *testing.T) {
	for _, sdk := range []string{"gosdk", "mcpgo"} {
		t.Run(sdk, func(t *testing.T) {
			ctx := context.Background()
			cmd := exec.Command(os.Args[0], "-sdk", sdk)
			cmd.Env = append(os.Environ(), "STDIO_SERVER_CHILD=1")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			client := mcp.NewClient(&mcp.Implementation{Name: "smoke", Version: "1.0.0"}, nil)
			session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer session.Close()

			call := func(name string, args map[string]any) *mcp.CallToolResult {
				t.Helper()
				res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				return res
			}
			text := func(r *mcp.CallToolResult) string { return r.Content[0].(*mcp.TextContent).Text }
			code := func(r *mcp.CallToolResult) codes.Code {
				env, _ := gosdk.EnvelopeOf(r)
				return env.Code
			}

			if r := call("divide", map[string]any{"a": 6, "b": 3}); r.IsError || text(r) != "2" {
				t.Errorf("divide 6/3 = %q, isError %v", text(r), r.IsError)
			}
			if r := call("divide", map[string]any{"a": 1, "b": 0}); !r.IsError || text(r) != "b must not be zero." {
				t.Errorf("divide 1/0 = %q", text(r))
			}
			if r := call("get_order", map[string]any{"id": "ord_9"}); code(r) != "NOT_FOUND" {
				t.Errorf("get_order = %q, code %v", text(r), code(r))
			}
			if r := call("divide", map[string]any{"a": "six", "b": 2}); code(r) != "VALIDATION_ERROR" {
				t.Errorf("divide with a string = %q, code %v", text(r), code(r))
			}
			if r := call("slow", map[string]any{}); code(r) != "TIMEOUT" {
				t.Errorf("slow = %q, code %v", text(r), code(r))
			}
			if r := call("stock", map[string]any{}); r.IsError || text(r) != "12 in stock" {
				t.Errorf("stock = %q, isError %v; want the stock, read again by the server", text(r), r.IsError)
			}
			if r := call("charge", map[string]any{}); code(r) != "TIMEOUT" || !strings.Contains(r.Content[1].(*mcp.TextContent).Text, "Retry: not before checking") {
				t.Errorf("charge = %q, code %v, want a TIMEOUT whose outcome is unknown", text(r), code(r))
			}
			refs := regexp.MustCompile(`\(ref: ([0-9a-f]{16})\)`)
			for _, tool := range []string{"lookup", "crash"} {
				r := call(tool, map[string]any{})
				m := refs.FindStringSubmatch(text(r))
				if m == nil || strings.Contains(text(r), "hunter2") {
					t.Errorf("%s = %q, want the masked form", tool, text(r))
				}
			}
			if r := call("forecast", map[string]any{"city": "Paris"}); r.IsError || r.StructuredContent == nil {
				t.Errorf("forecast Paris = %v", r)
			}

			// The resources, added with the SDK's own methods, are served
			// by the middleware of Install all the same.
			if r, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: readmeURI}); err != nil || r.Contents[0].Text != readmeText {
				t.Errorf("read %s = %v, %v", readmeURI, r, err)
			}
			_, err = session.ReadResource(ctx, &mcp.ReadResourceParams{URI: ordersURI})
			var je *jsonrpc.Error
			if !errors.As(err, &je) || je.Code != -32603 || !refs.MatchString(je.Message) || strings.Contains(err.Error(), "hunter2") {
				t.Errorf("read %s: %v, want the masked form", ordersURI, err)
			}
			if _, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "orders://ord_9"}); err == nil || !strings.HasSuffix(err.Error(), "Order not found: ord_9") {
				t.Errorf("read orders://ord_9: %v, want its NOT_FOUND message", err)
			}

			session.Close()
			if n := strings.Count(stderr.String(), "level=ERROR"); n != 5 { // lookup, crash, slow's and charge's timeouts, db://orders
				t.Errorf("%d error records in the log, want 5:\n%s", n, stderr.String())
			}
		})
	}
}
