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
// (an internal error with a secret in it), crash (a panic), slow (a
// TIMEOUT), and forecast (declares an output schema; fails for Atlantis).
// Its resources: docs://readme, db://orders (an internal error with a
// secret in it) and the template orders://{id} (NOT_FOUND for any order but
// ord_1); its prompt: summarize_order (a panic). They are added with the
// SDK's own methods: the middleware of Install serves their failures too.
//
// The server logs to stderr; a masked error's ref appears there once. With
// -bare it runs without mcperr, to compare with what the SDK does alone.
// With -report-only it runs mcperr in report-only mode: the client receives
// what -bare sends, and stderr says, for each failure, what mcperr would
// have sent.
// Either way, it reads stdio through the SDK's own transport.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
)

func main() {
	sdk := flag.String("sdk", "gosdk", "the SDK to serve with: gosdk or mcpgo")
	bare := flag.Bool("bare", false, "serve without mcperr, as the SDK behaves alone")
	reportOnly := flag.Bool("report-only", false, "serve with mcperr in report-only mode: answers as -bare, failures logged with what mcperr would send")
	flag.Parse()
	var opts []filter.Option
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
		err = serveGoSDK(ctx, logger, *bare, opts...)
	case "mcpgo":
		err = serveMCPGo(ctx, logger, *bare, opts...)
	default:
		err = fmt.Errorf("unknown -sdk %q: use gosdk or mcpgo", *sdk)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "stdio-server:", err)
		os.Exit(1)
	}
}

// newPipeline returns the one mcperr configuration of the server, on either
// SDK: it logs to logger, knows the application's own code, and has opts.
func newPipeline(logger *slog.Logger, opts ...filter.Option) (*filter.Pipeline, error) {
	registry, err := codes.NewRegistry(codes.Info{Code: "ORDER_ALREADY_DELIVERED", Category: codes.Business,
		Description: "A delivered order cannot be shipped again."})
	if err != nil {
		return nil, err
	}
	return filter.New(append([]filter.Option{filter.WithLogger(logger), filter.WithRegistry(registry)}, opts...)...)
}
