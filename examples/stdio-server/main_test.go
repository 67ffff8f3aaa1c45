package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/filter"
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
			code := func(r *mcp.CallToolResult) any {
				env, _ := r.Meta[filter.MetaKey].(map[string]any)
				return env["code"]
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
			session.Close()
			if n := strings.Count(stderr.String(), "level=ERROR"); n != 3 { // lookup, crash, slow's timeout
				t.Errorf("%d error records in the log, want 3:\n%s", n, stderr.String())
			}
		})
	}
}

// TestStdioServerMalformedLine writes a line that is not JSON to the gosdk
// server: it answers a parse error and goes on serving. With -bare, on the
// SDK's own transport, the same line ends the process.
func TestStdioServerMalformedLine(t *testing.T) {
	for _, bare := range []bool{false, true} {
		name := "mcperr"
		if bare {
			name = "bare"
		}
		t.Run(name, func(t *testing.T) {
			args := []string{"-sdk", "gosdk"}
			if bare {
				args = append(args, "-bare")
			}
			cmd := exec.Command(os.Args[0], args...)
			cmd.Env = append(os.Environ(), "STDIO_SERVER_CHILD=1")
			cmd.Stderr = io.Discard
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			lines := make(chan string)
			go func() {
				defer close(lines)
				sc := bufio.NewScanner(stdout)
				for sc.Scan() {
					lines <- sc.Text()
				}
				exited <- cmd.Wait() // after the last read of stdout, as Wait closes it
			}()
			t.Cleanup(func() {
				stdin.Close()
				select {
				case <-exited:
				case <-time.After(10 * time.Second):
					cmd.Process.Kill()
					t.Error("the server did not exit at the end of its input")
				}
			})
			send := func(line string) {
				t.Helper()
				if _, err := io.WriteString(stdin, line+"\n"); err != nil && !bare {
					t.Fatal(err)
				}
			}
			type answer struct {
				ID     json.RawMessage `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  *struct {
					Code int `json:"code"`
				} `json:"error"`
			}
			// recv returns the next line of stdout, "" once it is closed.
			recv := func() (a answer, raw string) {
				t.Helper()
				select {
				case raw = <-lines:
				case <-time.After(10 * time.Second):
					t.Fatal("no answer from the server")
				}
				if raw != "" {
					if err := json.Unmarshal([]byte(raw), &a); err != nil {
						t.Fatalf("stdout line %q: %v", raw, err)
					}
				}
				return a, raw
			}

			send(`{not json`)
			if bare {
				if _, raw := recv(); raw != "" {
					t.Fatalf("the bare server answered {not json with %s; want it to end", raw)
				}
				select {
				case err := <-exited:
					if err == nil {
						t.Error("the bare server exited with status 0 on {not json")
					}
					exited <- err // for the cleanup
				case <-time.After(10 * time.Second):
					t.Fatal("the bare server did not exit on {not json")
				}
				return
			}
			if a, raw := recv(); a.Error == nil || a.Error.Code != -32700 || string(a.ID) != "null" || strings.Contains(raw, "not json") {
				t.Fatalf("answer to {not json = %s, want a -32700 error with id null", raw)
			}
			send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"smoke","version":"1.0.0"}}}`)
			if a, raw := recv(); string(a.ID) != "1" || a.Error != nil || a.Result == nil {
				t.Fatalf("initialize = %s", raw)
			}
			send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
			if a, raw := recv(); string(a.ID) != "2" || a.Error != nil || a.Result == nil {
				t.Fatalf("ping = %s", raw)
			}
		})
	}
}
