package grpcfilter_test

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	mcpgomcp "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	grpccodes "google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/adapters/gosdk/gosdktest"
	"github.com/mcperr/mcperr/adapters/mcpgo"
	"github.com/mcperr/mcperr/adapters/mcpgo/mcpgotest"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/mcperrtest"
)

// canary is planted in every status message the backend sends and in the
// text every tool wraps its error with: it must reach the log, never the
// client.
const canary = "canary-7f3a-s3cr3t"

// Services the health backend knows besides a code's number, which
// answers with that code.
const (
	serviceServing   = "serving"    // answers SERVING
	serviceBlock     = "block"      // answers when the call's context is done
	serviceRetryInfo = "retry-info" // ResourceExhausted with a RetryInfo of 7 s
	serviceUnavRetry = "unav-retry" // Unavailable with a RetryInfo of 300 ms
	serviceLong      = "long"       // InvalidArgument with a long, multi-line message
	serviceUnavOnce  = "unav-once"  // Unavailable at every other call, SERVING between
)

// unavOnce counts the calls of serviceUnavOnce.
var unavOnce atomic.Int64

// healthBackend is a gRPC health service whose Check answers with the
// status its request's service names, its message holding the canary.
type healthBackend struct {
	grpc_health_v1.UnimplementedHealthServer
}

// Check answers as the service named by req says.
func (healthBackend) Check(ctx context.Context, req *grpc_health_v1.HealthCheckRequest) (*grpc_health_v1.HealthCheckResponse, error) {
	switch req.GetService() {
	case serviceServing:
		return &grpc_health_v1.HealthCheckResponse{Status: grpc_health_v1.HealthCheckResponse_SERVING}, nil
	case serviceBlock:
		<-ctx.Done()
		return nil, status.FromContextError(ctx.Err()).Err()
	case serviceRetryInfo:
		return nil, withRetryInfo(grpccodes.ResourceExhausted, "quota of "+canary+" exhausted", 7*time.Second)
	case serviceUnavRetry:
		return nil, withRetryInfo(grpccodes.Unavailable, "draining "+canary, 300*time.Millisecond)
	case serviceUnavOnce:
		if unavOnce.Add(1)%2 == 1 {
			return nil, status.Error(grpccodes.Unavailable, "connection to "+canary+" reset")
		}
		return &grpc_health_v1.HealthCheckResponse{Status: grpc_health_v1.HealthCheckResponse_SERVING}, nil
	case serviceLong:
		msg := "page_size must be at most 100\nand\tnot " + strings.Repeat("x", 600) + canary
		return nil, status.Error(grpccodes.InvalidArgument, msg)
	}
	n, err := strconv.Atoi(req.GetService())
	if err != nil {
		return nil, status.Error(grpccodes.NotFound, "unknown service "+req.GetService())
	}
	return nil, status.Error(grpccodes.Code(n), "the backend's own words about "+canary)
}

// withRetryInfo returns a status error with code, msg and a RetryInfo of
// delay.
func withRetryInfo(code grpccodes.Code, msg string, delay time.Duration) error {
	st, err := status.New(code, msg).WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(delay)})
	if err != nil {
		panic(err)
	}
	return st.Err()
}

// startBackend serves the health backend on 127.0.0.1 and returns a client
// of it, both stopped when the test ends.
func startBackend(t testing.TB) grpc_health_v1.HealthClient {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := grpc.NewServer()
	grpc_health_v1.RegisterHealthServer(s, healthBackend{})
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = s.Serve(lis)
	}()
	t.Cleanup(func() {
		s.Stop()
		<-served
	})
	return dial(t, lis.Addr().String())
}

// refusedClient returns a client of a port on 127.0.0.1 where nothing
// listens: every call fails with Unavailable.
func refusedClient(t testing.TB) grpc_health_v1.HealthClient {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	if err := lis.Close(); err != nil {
		t.Fatal(err)
	}
	return dial(t, addr)
}

// dial returns a client of the health service at addr, closed when the
// test ends.
func dial(t testing.TB, addr string) grpc_health_v1.HealthClient {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return grpc_health_v1.NewHealthClient(conn)
}

// Services the tool knows besides the backend's.
const (
	serviceRefused   = "refused"   // a call to a port where nothing listens
	serviceUnrelated = "unrelated" // an error that is no gRPC error
)

// checker is the tool's work: it checks service on the backend, as a real
// tool calls its gRPC backend, and returns the error wrapped with %w.
type checker struct {
	backend, refused grpc_health_v1.HealthClient
}

func (c checker) check(ctx context.Context, service string) error {
	client := c.backend
	switch service {
	case serviceRefused:
		client = c.refused
	case serviceBlock:
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 50*time.Millisecond) // the tool's own deadline for its call
		defer cancel()
	case serviceUnrelated:
		return fmt.Errorf("read the backend's address from /etc/orders.conf (token %s): permission denied", canary)
	}
	if _, err := client.Check(ctx, &grpc_health_v1.HealthCheckRequest{Service: service}); err != nil {
		return fmt.Errorf("check %q with token %s: %w", service, canary, err)
	}
	return nil
}

// checkArgs are the tool's arguments.
type checkArgs struct {
	Service string `json:"service"`
}

// sdkClient calls the tool "check" of one SDK's server.
type sdkClient struct {
	name string
	call func(service string) *mcperrtest.Result
	// apply calls the tool "apply", which is not annotated read-only.
	apply func(service string) *mcperrtest.Result
}

// connect returns a client of a go-sdk server and one of an mcp-go
// server, each with the tool "check", annotated read-only, and "apply",
// not annotated, and mcperr installed with a pipeline that logs to log and
// has global and opts, and the tools given tool as their filters.
func connect(t *testing.T, log *mcperrtest.Log, c checker, global, tool []filter.Filter, opts ...filter.Option) []sdkClient {
	t.Helper()
	pipeline := func() *filter.Pipeline {
		p, err := filter.New(append([]filter.Option{filter.WithLogger(log.Logger()), filter.WithFilters(global...)}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}

	gs := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1.0.0"}, nil)
	if err := gosdk.Install(gs, pipeline()); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"check", "apply"} {
		// "check" only reads; "apply" is not annotated, so it may change things.
		err := gosdk.AddTool(gs, &mcp.Tool{Name: name, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: name == "check"}}, func(ctx context.Context, _ *mcp.CallToolRequest, in checkArgs) (*mcp.CallToolResult, any, error) {
			if err := c.check(ctx, in.Service); err != nil {
				return nil, nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "SERVING"}}}, nil, nil
		}, filter.WithFilters(tool...))
		if err != nil {
			t.Fatal(err)
		}
	}
	gc := gosdktest.Connect(t, gs)

	ms := server.NewMCPServer("orders", "1.0.0")
	if err := mcpgo.Install(ms, pipeline()); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"check", "apply"} {
		err := mcpgo.AddTool(ms, mcpgomcp.NewTool(name, mcpgomcp.WithString("service", mcpgomcp.Required()), mcpgomcp.WithReadOnlyHintAnnotation(name == "check")),
			func(ctx context.Context, req mcpgomcp.CallToolRequest) (*mcpgomcp.CallToolResult, error) {
				if err := c.check(ctx, req.GetString("service", "")); err != nil {
					return nil, err
				}
				return mcpgomcp.NewToolResultText("SERVING"), nil
			}, filter.WithFilters(tool...))
		if err != nil {
			t.Fatal(err)
		}
	}
	mc := mcpgotest.Connect(t, ms)

	return []sdkClient{
		{"go-sdk", func(service string) *mcperrtest.Result { return gc.Call("check", checkArgs{Service: service}) },
			func(service string) *mcperrtest.Result { return gc.Call("apply", checkArgs{Service: service}) }},
		{"mcp-go", func(service string) *mcperrtest.Result { return mc.Call("check", checkArgs{Service: service}) },
			func(service string) *mcperrtest.Result { return mc.Call("apply", checkArgs{Service: service}) }},
	}
}
