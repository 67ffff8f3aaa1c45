package grpcfilter_test

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	grpccodes "google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/mcperr/mcperr/adapters/gosdk"
	"github.com/mcperr/mcperr/contrib/grpcfilter"
	"github.com/mcperr/mcperr/filter"
)

// inventory is the gRPC backend of the examples: a health service whose
// Check fails as a real backend's calls do.
type inventory struct {
	grpc_health_v1.UnimplementedHealthServer
}

func (inventory) Check(_ context.Context, req *grpc_health_v1.HealthCheckRequest) (*grpc_health_v1.HealthCheckResponse, error) {
	switch req.GetService() {
	case "page":
		return nil, status.Error(grpccodes.InvalidArgument, "page_size must be at most 100")
	case "quota":
		st, _ := status.New(grpccodes.ResourceExhausted, "quota of tenant acme-7731 exhausted").
			WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(30 * time.Second)})
		return nil, st.Err()
	}
	return nil, status.Error(grpccodes.NotFound, "no order 7 for alice@example.com")
}

// runExample serves the inventory on 127.0.0.1, runs an MCP server whose
// tool "check" calls it with the filters, calls the tool with service, and
// prints what the model reads and the retry advice.
func runExample(service string, filters ...filter.Filter) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	backend := grpc.NewServer()
	grpc_health_v1.RegisterHealthServer(backend, inventory{})
	go func() { _ = backend.Serve(lis) }()
	defer backend.Stop()
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	health := grpc_health_v1.NewHealthClient(conn)

	p, err := filter.New(filter.WithLogger(slog.New(slog.DiscardHandler)), filter.WithFilters(filters...))
	if err != nil {
		panic(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "orders", Version: "1.0.0"}, nil)
	if err := gosdk.Install(s, p); err != nil {
		panic(err)
	}
	type args struct {
		Service string `json:"service"`
	}
	err = gosdk.AddTool(s, &mcp.Tool{Name: "check"}, func(ctx context.Context, _ *mcp.CallToolRequest, in args) (*mcp.CallToolResult, any, error) {
		if _, err := health.Check(ctx, &grpc_health_v1.HealthCheckRequest{Service: in.Service}); err != nil {
			return nil, nil, fmt.Errorf("check %s: %w", in.Service, err)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "SERVING"}}}, nil, nil
	})
	if err != nil {
		panic(err)
	}

	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := s.Connect(ctx, st, nil); err != nil {
		panic(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0.0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "check", Arguments: args{Service: service}})
	if err != nil {
		panic(err)
	}
	env, _ := gosdk.EnvelopeOf(res)
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	fmt.Println(env.Code, "retryable:", env.Retryable, "after:", env.RetryAfterSeconds)
}

// The backend's NotFound reads as NOT_FOUND; its message, which names a
// customer, stays on the server.
func ExampleNew() {
	runExample("orders", grpcfilter.New())
	// Output:
	// The service the tool called has no such record (gRPC NotFound); check the identifiers in the arguments.
	// NOT_FOUND retryable: false after: 0
}

// ResourceExhausted with the backend's RetryInfo: retry after its delay.
func ExampleNew_retryInfo() {
	runExample("quota", grpcfilter.New())
	// Output:
	// The service the tool called is rate limiting requests or out of quota (gRPC ResourceExhausted); wait before retrying.
	// RATE_LIMITED retryable: true after: 30
}

// The backend's InvalidArgument messages are written for its callers:
// send them, so that the model can correct its arguments.
func ExampleSendMessage() {
	runExample("page", grpcfilter.New(grpcfilter.SendMessage(grpccodes.InvalidArgument)))
	// Output:
	// The service the tool called rejected the request as invalid (gRPC InvalidArgument); check the arguments. The service said: "page_size must be at most 100"
	// VALIDATION_ERROR retryable: false after: 0
}
