// Command otel serves one tool that fails, on go-sdk with mcperr, and
// exports the server's spans and metrics to standard output: the failed
// call as a span, child of the client's span in params._meta, and as a
// point of the mcp.server.operation.duration histogram with error.type.
//
//	go run ./contrib/examples/otel
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/contrib/otelmcp"
	"github.com/mcperr/mcperr/filter"
)

// errDB stands for what a database driver returns: its text names a host.
var errDB = errors.New("connection refused by 10.0.0.12:5432")

func main() {
	if err := run(context.Background(), os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// run serves the tool, calls it once, and writes the spans and metrics to
// stdout, the server's log to stderr.
func run(ctx context.Context, stdout, stderr io.Writer) error {
	spans, err := stdouttrace.New(stdouttrace.WithWriter(stdout), stdouttrace.WithPrettyPrint(), stdouttrace.WithoutTimestamps())
	if err != nil {
		return err
	}
	metrics, err := stdoutmetric.New(stdoutmetric.WithWriter(stdout), stdoutmetric.WithPrettyPrint(), stdoutmetric.WithoutTimestamps())
	if err != nil {
		return err
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(metrics)))

	s, err := newServer(slog.New(slog.NewTextHandler(stderr, nil)), tp, mp)
	if err != nil {
		return err
	}
	if err := callLookup(ctx, s); err != nil {
		return err
	}
	if err := tp.Shutdown(ctx); err != nil {
		return err
	}
	return mp.Shutdown(ctx) // exports the metrics
}

// newServer returns a go-sdk server with mcperr and otelmcp, whose one
// tool fails.
func newServer(logger *slog.Logger, tp *sdktrace.TracerProvider, mp *sdkmetric.MeterProvider) (*mcp.Server, error) {
	pipeline, err := filter.New(filter.WithLogger(logger), filter.WithRedaction(true), filter.WithObserver(otelmcp.Observer()))
	if err != nil {
		return nil, err
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "otel-example", Version: "0.1.0"}, nil)
	if err := gosdk.Install(s, pipeline); err != nil {
		return nil, err
	}
	// After Install: go-sdk runs the middleware added last first, so the
	// span is active when mcperr maps the error.
	s.AddReceivingMiddleware(otelmcp.GoSDKMiddleware(otelmcp.WithTracerProvider(tp), otelmcp.WithMeterProvider(mp)))
	err = gosdk.AddTool(s, &mcp.Tool{Name: "lookup", Description: "Looks an order up."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return nil, nil, errDB
		})
	return s, err
}

// callLookup connects go-sdk's own client in memory and calls lookup once,
// with the trace context of a client span in params._meta.
func callLookup(ctx context.Context, s *mcp.Server) error {
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		return err
	}
	defer ss.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "0.1.0"}, nil)
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		return err
	}
	defer cs.Close()
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "lookup", Meta: mcp.Meta{
		"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
	}})
	return err
}
