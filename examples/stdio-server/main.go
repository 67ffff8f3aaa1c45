// Command stdio-server is an MCP server over stdio with a tool for every
// kind of failure, on either Go SDK, to point any MCP host or inspector at:
//
//	go run ./examples/stdio-server -sdk gosdk
//	go run ./examples/stdio-server -sdk mcpgo
//	npx @modelcontextprotocol/inspector go run ./examples/stdio-server
//
// Its tools: divide (a ToolError for b = 0, a VALIDATION_ERROR for bad
// arguments), get_order (NOT_FOUND), set_status (VALIDATION_ERROR from the
// service), delete_order (FORBIDDEN), ship_order (a business rule), lookup
// (an internal error with a secret in it and in its hint), replica (a
// sub-operation's cancellation: an internal error), crash (a panic), slow
// (a TIMEOUT: the server gives each call CallTimeout; it only reads, so it
// may be retried), charge (the same TIMEOUT on a tool that changes things:
// its outcome is unknown, so the model is told to check before calling
// again), stock (a read-only tool whose replica fails every other call:
// the server calls it again and the client reads the stock), place_order (a
// nested input schema, arguments read loosely), and forecast
// (declares an output schema; fails for Atlantis); on mcp-go,
// forecast_helper is forecast with mcp-go's own NewStructuredToolHandler,
// whose failure for Atlantis mcperr masks, as it masks forecast's, though
// the helper turns it into a result with the raw text before any
// middleware sees it, and export_orders runs only as a task (tasks/get,
// tasks/result) and fails as lookup does: mcp-go gives task tools no
// middleware, so it is added with mcpgo.AddTaskTool.
// Its resources: docs://readme, db://orders (an internal error with a
// secret in it) and the template orders://{id} (NOT_FOUND for any order but
// ord_1); its prompt: summarize_order (a panic). They are added with the
// SDK's own methods: the middleware of Install serves their failures too.
//
// The server logs to stderr; a masked error's ref appears there once. With
// -bare it runs without mcperr, to compare with what the SDK does alone.
// With -http 127.0.0.1:0 it serves streamable HTTP instead of stdio, and
// writes the URL to stderr.
// With -check-arguments every call's arguments are checked against the
// tool's input schema before its handler (filter.WithArgumentCheck): an
// order of place_order with a quantity of "two" is refused with
// VALIDATION_ERROR instead of placed. With -sdk-validation (mcp-go) the
// SDK's own server.WithInputSchemaValidation refuses them first, and
// mcperr answers its refusal the same way.
// With -report-only it runs mcperr in report-only mode: the client receives
// what -bare sends (but a ToolError or domain error, answered as mcperr
// answers it), and stderr says, for each failure, what mcperr would have sent.
// Either way, it reads stdio through the SDK's own transport.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
)

func main() {
	sdk := flag.String("sdk", "gosdk", "the SDK to serve with: gosdk or mcpgo")
	bare := flag.Bool("bare", false, "serve without mcperr, as the SDK behaves alone")
	reportOnly := flag.Bool("report-only", false, "serve with mcperr in report-only mode: answers as -bare (but ToolErrors and domain errors), failures logged with what mcperr would send")
	httpAddr := flag.String("http", "", "serve streamable HTTP on this address (such as 127.0.0.1:0) instead of stdio")
	checkArguments := flag.Bool("check-arguments", false, "check each call's arguments against the tool's input schema before its handler")
	sdkValidation := flag.Bool("sdk-validation", false, "mcp-go only: turn on the SDK's own server.WithInputSchemaValidation")
	flag.Parse()
	var opts []filter.Option
	if *checkArguments {
		opts = append(opts, filter.WithArgumentCheck(true)) // refuse arguments that do not fit, before the handler
	}
	if *reportOnly {
		opts = append(opts,
			filter.WithReportOnly(true),                  // change nothing clients receive yet
			filter.WithHandBuilt(filter.ReportHandBuilt), // and log the error results handlers build
		)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))

	var err error
	switch *sdk {
	case "gosdk":
		var s *mcp.Server
		if s, err = goSDKServer(logger, *bare, opts...); err == nil {
			if *httpAddr != "" {
				err = serveHTTP(ctx, *httpAddr, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
			} else {
				err = s.Run(ctx, &mcp.StdioTransport{})
			}
		}
	case "mcpgo":
		var s *server.MCPServer
		if s, err = mcpGoServer(logger, *bare, *sdkValidation, opts...); err == nil {
			if *httpAddr != "" {
				err = serveHTTP(ctx, *httpAddr, server.NewStreamableHTTPServer(s))
			} else {
				stdio := server.NewStdioServer(s)
				stdio.SetErrorLogger(log.New(os.Stderr, "mcp-go: ", 0))
				err = stdio.Listen(ctx, os.Stdin, os.Stdout)
			}
		}
	default:
		err = fmt.Errorf("unknown -sdk %q: use gosdk or mcpgo", *sdk)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "stdio-server:", err)
		os.Exit(1)
	}
}

// serveHTTP serves h over streamable HTTP on addr until ctx is done,
// writing the URL it listens on to stderr.
func serveHTTP(ctx context.Context, addr string, h http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "listening on http://%s/mcp\n", ln.Addr())
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// newPipeline returns the one mcperr configuration of the server, on either
// SDK: it logs to logger, knows the application's own code, and has opts.
func newPipeline(logger *slog.Logger, opts ...filter.Option) (*filter.Pipeline, error) {
	registry, err := codes.NewRegistry(codes.Info{Code: "ORDER_ALREADY_DELIVERED", Category: codes.Business,
		Description: "A delivered order cannot be shipped again."})
	if err != nil {
		return nil, err
	}
	return filter.New(append([]filter.Option{filter.WithLogger(logger), filter.WithRegistry(registry),
		filter.WithRetries(2)}, opts...)...) // call a read-only tool again after a transient failure
}
