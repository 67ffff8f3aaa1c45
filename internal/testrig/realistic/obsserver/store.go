package obsserver

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Span is one span of a trace.
type Span struct {
	TraceID    string `json:"trace_id"`
	Service    string `json:"service"`
	Operation  string `json:"operation"`
	Parent     string `json:"parent,omitempty"`
	DurationMS int    `json:"duration_ms"`
	Error      bool   `json:"error,omitempty"`
}

// Point is one value of a metric.
type Point struct {
	At    string  `json:"at"`
	Value float64 `json:"value"`
}

// Store is where the server reads telemetry.
type Store interface {
	// Spans returns the spans of a trace, or of the traces that touch a
	// service, newest first; nil if there are none.
	Spans(ctx context.Context, traceID, service string) ([]Span, error)
	// Services returns the names of the instrumented services, sorted.
	Services(ctx context.Context) ([]string, error)
	// Metric returns the points of a metric over the last window, for one
	// service or all; ErrNoMetric if the metric does not exist.
	Metric(ctx context.Context, name, service string, window time.Duration) ([]Point, error)
}

// ErrNoMetric is the error of Store.Metric for a metric that does not
// exist.
var ErrNoMetric = errors.New("no such metric")

// MemStore is a Store held in memory, with a few traces and metrics of a
// shop. Metrics whose name starts with "db." live in a warehouse the store
// cannot reach: asking for one fails with the warehouse's connection error,
// DSN included.
type MemStore struct {
	// WarehouseDSN is the DSN of the metrics warehouse.
	WarehouseDSN string
}

var spans = []Span{
	{TraceID: "4bf92f3577b34da6", Service: "gateway", Operation: "POST /checkout", DurationMS: 182},
	{TraceID: "4bf92f3577b34da6", Service: "checkout", Operation: "PlaceOrder", Parent: "gateway", DurationMS: 164},
	{TraceID: "4bf92f3577b34da6", Service: "payments", Operation: "Charge", Parent: "checkout", DurationMS: 97, Error: true},
	{TraceID: "a3ce929d0e0e4736", Service: "gateway", Operation: "GET /cart", DurationMS: 12},
	{TraceID: "a3ce929d0e0e4736", Service: "cart", Operation: "GetCart", Parent: "gateway", DurationMS: 8},
}

var metrics = map[string][]Point{
	"http.requests/checkout": {{At: "12:00", Value: 41}, {At: "12:01", Value: 44}},
	"http.requests/gateway":  {{At: "12:00", Value: 120}, {At: "12:01", Value: 131}},
}

// Spans implements Store.
func (m *MemStore) Spans(_ context.Context, traceID, service string) ([]Span, error) {
	var out []Span
	for _, s := range spans {
		if (traceID != "" && s.TraceID == traceID) || (traceID == "" && s.Service == service) {
			out = append(out, s)
		}
	}
	return out, nil
}

// Services implements Store.
func (m *MemStore) Services(context.Context) ([]string, error) {
	var out []string
	for _, s := range spans {
		if !slices.Contains(out, s.Service) {
			out = append(out, s.Service)
		}
	}
	slices.Sort(out)
	return out, nil
}

// Metric implements Store.
func (m *MemStore) Metric(_ context.Context, name, service string, window time.Duration) ([]Point, error) {
	if strings.HasPrefix(name, "db.") {
		return nil, fmt.Errorf("warehouse: connect %s: dial tcp 10.20.0.7:5432: connect: connection refused", m.WarehouseDSN)
	}
	var out []Point
	for _, key := range slices.Sorted(maps.Keys(metrics)) {
		n, svc, _ := strings.Cut(key, "/")
		if n == name && (service == "" || svc == service) {
			out = append(out, metrics[key]...)
		}
	}
	if out == nil {
		return nil, ErrNoMetric
	}
	if n := int(window / time.Minute); n > 0 && len(out) > n {
		out = out[len(out)-n:]
	}
	return out, nil
}
