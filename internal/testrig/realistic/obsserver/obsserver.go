// Package obsserver is a small observability MCP server on
// github.com/modelcontextprotocol/go-sdk, written as public servers of its
// kind are: typed tools registered through a wrapper of its own
// (obsserver/toolkit), messages for the model returned as plain Go errors
// or set with CallToolResult.SetError, error results built by a helper, and
// a store whose failures carry the DSN of a database, password included.
//
// New takes the hook where an adopter installs middleware, such as mcperr,
// right after the server is made; the server itself knows nothing of
// mcperr.
package obsserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcperr/mcperr/internal/testrig/realistic/obsserver/toolkit"
)

// Options configures a server at its constructor.
type Options struct {
	// Server are the options given to mcp.NewServer.
	Server *mcp.ServerOptions
	// Setup, when set, runs on the server right after mcp.NewServer,
	// before any tool is added: the place to install middleware. New
	// fails with its error.
	Setup func(*mcp.Server) error
	// Logger receives a line for each tool call; nil logs nothing.
	Logger *slog.Logger
}

// obs is the state of one server.
type obs struct {
	store Store
}

// New returns a server whose tools read telemetry from store.
func New(store Store, opts Options) (*mcp.Server, error) {
	s := mcp.NewServer(&mcp.Implementation{Name: "obs", Version: "1.4.0"}, opts.Server)
	if opts.Setup != nil {
		if err := opts.Setup(s); err != nil {
			return nil, err
		}
	}
	o := &obs{store: store}
	toolkit.Register(s, opts.Logger, &mcp.Tool{
		Name:        "search_traces",
		Description: "Find the spans of a trace, or of the recent traces that touch a service.",
	}, o.searchTraces)
	toolkit.Register(s, opts.Logger, &mcp.Tool{
		Name:        "get_service_map",
		Description: "Show which services a service calls and is called by.",
	}, o.serviceMap)
	toolkit.Register(s, opts.Logger, &mcp.Tool{
		Name:        "query_metrics",
		Description: "Read the recent points of a metric.",
	}, o.queryMetrics)
	return s, nil
}

// toolError returns an error result whose text is the message.
func toolError(format string, args ...any) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		IsError: true,
		Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(format, args...)}},
	}
}

// SearchTracesInput are the arguments of search_traces.
type SearchTracesInput struct {
	TraceID     string `json:"trace_id,omitempty" jsonschema:"the trace to fetch"`
	ServiceName string `json:"service_name,omitempty" jsonschema:"find the traces that touch this service"`
	Limit       int    `json:"limit,omitempty" jsonschema:"at most this many spans; 20 if omitted"`
}

// SearchTracesOutput is the result of search_traces.
type SearchTracesOutput struct {
	Spans []Span `json:"spans"`
}

func (o *obs) searchTraces(ctx context.Context, _ *mcp.CallToolRequest, in SearchTracesInput) (*mcp.CallToolResult, SearchTracesOutput, error) {
	if in.TraceID == "" && in.ServiceName == "" {
		return nil, SearchTracesOutput{}, errors.New("either trace_id or service_name must be provided")
	}
	limit := in.Limit
	if limit <= 0 {
		limit = 20
	}
	spans, err := o.store.Spans(ctx, in.TraceID, in.ServiceName)
	if err != nil {
		return nil, SearchTracesOutput{}, fmt.Errorf("search traces: %w", err)
	}
	if len(spans) == 0 && in.TraceID != "" {
		return toolError("trace %s not found", in.TraceID), SearchTracesOutput{}, nil
	}
	if len(spans) > limit {
		spans = spans[:limit]
	}
	return nil, SearchTracesOutput{Spans: spans}, nil
}

// ServiceMapInput are the arguments of get_service_map.
type ServiceMapInput struct {
	ServiceName string `json:"service_name" jsonschema:"the service at the centre of the map"`
	Depth       int    `json:"depth,omitempty" jsonschema:"how many hops to follow; 1 if omitted"`
}

// ServiceMapOutput is the result of get_service_map.
type ServiceMapOutput struct {
	Service  string   `json:"service"`
	Calls    []string `json:"calls"`
	CalledBy []string `json:"called_by"`
}

func (o *obs) serviceMap(ctx context.Context, _ *mcp.CallToolRequest, in ServiceMapInput) (*mcp.CallToolResult, ServiceMapOutput, error) {
	if in.ServiceName == "" {
		return nil, ServiceMapOutput{}, errors.New("service_name is required")
	}
	services, err := o.store.Services(ctx)
	if err != nil {
		return nil, ServiceMapOutput{}, fmt.Errorf("list services: %w", err)
	}
	if !slices.Contains(services, in.ServiceName) {
		res := &mcp.CallToolResult{}
		res.SetError(fmt.Errorf("service %q is not instrumented; known services: %s", in.ServiceName, strings.Join(services, ", ")))
		return res, ServiceMapOutput{}, nil
	}
	var all []Span
	out := ServiceMapOutput{Service: in.ServiceName, Calls: []string{}, CalledBy: []string{}}
	for _, svc := range services {
		spans, err := o.store.Spans(ctx, "", svc)
		if err != nil {
			return nil, ServiceMapOutput{}, fmt.Errorf("service map: %w", err)
		}
		all = append(all, spans...)
	}
	for _, s := range all {
		if s.Parent == in.ServiceName && !slices.Contains(out.Calls, s.Service) {
			out.Calls = append(out.Calls, s.Service)
		}
		if s.Service == in.ServiceName && s.Parent != "" && !slices.Contains(out.CalledBy, s.Parent) {
			out.CalledBy = append(out.CalledBy, s.Parent)
		}
	}
	return nil, out, nil
}

// QueryMetricsInput are the arguments of query_metrics.
type QueryMetricsInput struct {
	Metric  string `json:"metric" jsonschema:"the metric, such as http.requests"`
	Service string `json:"service,omitempty" jsonschema:"only this service's points"`
	Window  string `json:"window,omitempty" jsonschema:"how far back, such as 5m; 1h if omitted"`
}

// QueryMetricsOutput is the result of query_metrics.
type QueryMetricsOutput struct {
	Metric string  `json:"metric"`
	Points []Point `json:"points"`
}

func (o *obs) queryMetrics(ctx context.Context, _ *mcp.CallToolRequest, in QueryMetricsInput) (*mcp.CallToolResult, QueryMetricsOutput, error) {
	window := time.Hour
	if in.Window != "" {
		w, err := time.ParseDuration(in.Window)
		if err != nil {
			return toolError("invalid window %q: %v", in.Window, err), QueryMetricsOutput{}, nil
		}
		window = w
	}
	points, err := o.store.Metric(ctx, in.Metric, in.Service, window)
	if errors.Is(err, ErrNoMetric) {
		return toolError("metric %q not found", in.Metric), QueryMetricsOutput{}, nil
	}
	if err != nil {
		return nil, QueryMetricsOutput{}, fmt.Errorf("query_metrics %s: %w", in.Metric, err)
	}
	return nil, QueryMetricsOutput{Metric: in.Metric, Points: points}, nil
}
