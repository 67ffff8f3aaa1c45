package otelmcp_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	otelcodes "go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcperr/mcperr/contrib/otelmcp"
)

// The trace context a client puts in params._meta, as in the conventions'
// own example.
const (
	traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	tracestate  = "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"
	parentTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	parentSpan  = "00f067aa0ba902b7"
)

// secret is planted in the errors handlers return; it must never reach a
// span or a metric.
const secret = "hunter2"

// telemetry is an in-memory OpenTelemetry SDK: a span recorder and a
// manual metric reader.
type telemetry struct {
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
	tp     *sdktrace.TracerProvider
	mp     *sdkmetric.MeterProvider
}

func newTelemetry(t *testing.T) *telemetry {
	t.Helper()
	tm := &telemetry{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	tm.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(tm.spans))
	tm.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(tm.reader))
	t.Cleanup(func() {
		_ = tm.tp.Shutdown(context.Background())
		_ = tm.mp.Shutdown(context.Background())
	})
	return tm
}

// options are the options that send to tm.
func (tm *telemetry) options() []otelmcp.Option {
	return []otelmcp.Option{otelmcp.WithTracerProvider(tm.tp), otelmcp.WithMeterProvider(tm.mp)}
}

// span returns the one ended span named name.
func (tm *telemetry) span(t *testing.T, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	var found []sdktrace.ReadOnlySpan
	var names []string
	for _, s := range tm.spans.Ended() {
		names = append(names, s.Name())
		if s.Name() == name {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d spans named %q; the spans: %q", len(found), name, names)
	}
	return found[0]
}

// reset forgets the spans ended so far.
func (tm *telemetry) reset() { tm.spans.Reset() }

// histogram returns the points of mcp.server.operation.duration, after
// checking its unit and bucket boundaries against the conventions.
func (tm *telemetry) histogram(t *testing.T) []metricdata.HistogramDataPoint[float64] {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := tm.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != "mcp.server.operation.duration" {
				continue
			}
			if m.Unit != "s" {
				t.Errorf("unit %q, want s", m.Unit)
			}
			h, ok := m.Data.(metricdata.Histogram[float64])
			if !ok {
				t.Fatalf("mcp.server.operation.duration is a %T, want a float64 histogram", m.Data)
			}
			want := []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}
			for _, p := range h.DataPoints {
				if !slices.Equal(p.Bounds, want) {
					t.Errorf("bucket boundaries %v, want %v", p.Bounds, want)
				}
			}
			return h.DataPoints
		}
	}
	t.Fatal("no mcp.server.operation.duration metric")
	return nil
}

// point returns the one point whose attributes are want.
func point(t *testing.T, points []metricdata.HistogramDataPoint[float64], want map[string]string) metricdata.HistogramDataPoint[float64] {
	t.Helper()
	var seen []string
	for _, p := range points {
		got := attrMap(p.Attributes.ToSlice())
		if maps.Equal(got, want) {
			return p
		}
		seen = append(seen, fmt.Sprint(got))
	}
	t.Fatalf("no point with attributes %v; the points:\n%s", want, strings.Join(seen, "\n"))
	return metricdata.HistogramDataPoint[float64]{}
}

// attrMap returns kvs as a map from key to the value's text.
func attrMap(kvs []attribute.KeyValue) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.String()
	}
	return m
}

// assertAttrs checks that s has exactly the attributes want.
func assertAttrs(t *testing.T, s sdktrace.ReadOnlySpan, want map[string]string) {
	t.Helper()
	got := attrMap(s.Attributes())
	if !maps.Equal(got, want) {
		t.Errorf("span %q attributes:\n got %v\nwant %v", s.Name(), got, want)
	}
}

// assertFailed checks the status of s and its one exception event.
func assertFailed(t *testing.T, s sdktrace.ReadOnlySpan, description, excType, excMessage string) {
	t.Helper()
	if s.Status().Code != otelcodes.Error || s.Status().Description != description {
		t.Errorf("span %q status %v %q, want Error %q", s.Name(), s.Status().Code, s.Status().Description, description)
	}
	var events []map[string]string
	for _, e := range s.Events() {
		if e.Name == "exception" {
			events = append(events, attrMap(e.Attributes))
		}
	}
	want := map[string]string{"exception.type": excType, "exception.message": excMessage}
	if len(events) != 1 || !maps.Equal(events[0], want) {
		t.Errorf("span %q exception events %v, want one %v", s.Name(), events, want)
	}
}

// assertNoSecret checks that nothing s holds contains secret.
func assertNoSecret(t *testing.T, s sdktrace.ReadOnlySpan) {
	t.Helper()
	all := fmt.Sprint(s.Name(), s.Attributes(), s.Status(), s.Events(), s.Links())
	if strings.Contains(all, secret) {
		t.Errorf("span %q holds the secret: %s", s.Name(), all)
	}
}

// assertParent checks that s is a child of the client's span in _meta,
// with its tracestate.
func assertParent(t *testing.T, s sdktrace.ReadOnlySpan) {
	t.Helper()
	p := s.Parent()
	if p.TraceID().String() != parentTrace || p.SpanID().String() != parentSpan || !p.IsRemote() || p.TraceState().String() != tracestate {
		t.Errorf("span %q parent %s/%s remote=%t state=%q, want %s/%s remote, state %q", s.Name(),
			p.TraceID(), p.SpanID(), p.IsRemote(), p.TraceState(), parentTrace, parentSpan, tracestate)
	}
	if s.SpanKind().String() != "server" {
		t.Errorf("span %q kind %s, want server", s.Name(), s.SpanKind())
	}
}
