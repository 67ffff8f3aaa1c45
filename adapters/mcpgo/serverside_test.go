package mcpgo_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/filter"
	ss "github.com/mcperr/mcperr/internal/testrig/serverside"
	"github.com/mcperr/mcperr/toolerr"
)

// TestServerSideCost pins what the server spends per failing call, the
// client's decoding left out, beside the SDK's own answer to the same
// failure (ss.Targets), and a refusal on a server of 2000 tools at the
// cost of one on 3. The time is BenchmarkServerSide's:
//
//	go test -run='^$' -bench=ServerSide -benchmem -count=5 ./adapters/mcpgo
func TestServerSideCost(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("measures allocations; the race detector adds its own")
	}
	ss.Pin(t, &ss.Limits{Refusal: 1.25, ToolError: 1.10, Masked: 1.20}, func(c ss.Case) *ss.Driver { return startServerSide(t, c) })
}

// BenchmarkServerSide measures the server's time and allocations per
// failing call, mcperr beside the bare SDK, in one run.
func BenchmarkServerSide(b *testing.B) {
	ss.Bench(b, func(c ss.Case) *ss.Driver { return startServerSide(b, c) })
}

// TestServerSideProcess is the server process of
// BenchmarkServerSideProcess, and otherwise skips.
func TestServerSideProcess(t *testing.T) {
	ss.Serve(func(c ss.Case) http.Handler { return server.NewStreamableHTTPServer(newServerSide(t, c)) })
	t.Skip("the server process of BenchmarkServerSideProcess")
}

// BenchmarkServerSideProcess measures the server's CPU per failing call
// over streamable HTTP, the server in a process of its own (server-µs/call):
//
//	go test -run='^$' -bench=ServerSideProcess -count=5 ./adapters/mcpgo
func BenchmarkServerSideProcess(b *testing.B) { ss.BenchProcess(b, sdkClient) }

// sdkClient connects mcp-go's own streamable HTTP client to url.
func sdkClient(tb testing.TB, url string, c ss.Case) func() string {
	cl, err := client.NewStreamableHttpClient(url)
	if err != nil {
		tb.Fatal(err)
	}
	connect(tb, cl, mcp.LATEST_PROTOCOL_VERSION)
	var req mcp.CallToolRequest
	req.Params.Name, req.Params.Arguments = c.Tool()
	return func() string {
		res, err := cl.CallTool(context.Background(), req)
		if err != nil {
			return err.Error() // the SDK answers a returned error with a protocol error
		}
		b, _ := json.Marshal(res)
		return string(b)
	}
}

// startServerSide starts the server of c: over a pipe with the SDK's
// stdio server, or its streamable HTTP server.
func startServerSide(t testing.TB, c ss.Case) *ss.Driver {
	s := newServerSide(t, c)
	return ss.Start(t, c, func(ctx context.Context, r io.Reader, w io.Writer) {
		stdio := server.NewStdioServer(s)
		stdio.SetErrorLogger(log.New(io.Discard, "", 0))
		_ = stdio.Listen(ctx, r, w)
	}, server.NewStreamableHTTPServer(s))
}

// newServerSide returns the server of c, which refuses arguments with the
// SDK's own WithInputSchemaValidation.
func newServerSide(t testing.TB, c ss.Case) *server.MCPServer {
	s := server.NewMCPServer("serverside", "1.0.0", server.WithInputSchemaValidation())
	if ss.Installed(c.Mode) {
		p, err := filter.New(filter.WithLogger(slog.New(slog.NewJSONHandler(io.Discard, nil))))
		if err != nil {
			t.Fatal(err)
		}
		if err := mcpgo.Install(s, p); err != nil {
			t.Fatal(err)
		}
	}
	h := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		switch c.Mode {
		case "sdkresult":
			return mcp.NewToolResultError(ss.PublicText), nil
		case "toolerror":
			return nil, toolerr.New(ss.PublicText)
		case "plain", "masked":
			return nil, errors.New(ss.SecretText)
		}
		return mcp.NewToolResultText("shipped"), nil
	}
	for i := range c.Tools {
		s.AddTool(mcp.NewTool(fmt.Sprintf("ship%d", i), mcp.WithString("id", mcp.Required()), mcp.WithNumber("count", mcp.Required())), h)
	}
	return s
}
