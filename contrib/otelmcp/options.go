package otelmcp

import (
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Option configures Observer, GoSDKMiddleware or InstrumentMCPGo.
type Option func(*config)

type config struct {
	tracerProvider trace.TracerProvider
	meterProvider  metric.MeterProvider
	propagator     propagation.TextMapPropagator
	transport      string
}

func newConfig(opts []Option) config {
	c := config{propagator: propagation.TraceContext{}}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if c.tracerProvider == nil {
		c.tracerProvider = otel.GetTracerProvider()
	}
	if c.meterProvider == nil {
		c.meterProvider = otel.GetMeterProvider()
	}
	return c
}

// WithTracerProvider sets the TracerProvider of the server spans. The
// default is the global one, otel.GetTracerProvider(). A nil p keeps the
// default.
func WithTracerProvider(p trace.TracerProvider) Option {
	return func(c *config) { c.tracerProvider = p }
}

// WithMeterProvider sets the MeterProvider of the
// mcp.server.operation.duration histogram. The default is the global one,
// otel.GetMeterProvider(). A nil p keeps the default.
func WithMeterProvider(p metric.MeterProvider) Option {
	return func(c *config) { c.meterProvider = p }
}

// WithPropagator sets the propagator that reads a request's trace context
// from its params._meta. The default is the W3C Trace Context propagator
// (propagation.TraceContext), which reads traceparent and tracestate as the
// conventions put them there; give otel.GetTextMapPropagator() to use the
// application's global one, baggage included. A nil p keeps the default.
func WithPropagator(p propagation.TextMapPropagator) Option {
	return func(c *config) {
		if p != nil {
			c.propagator = p
		}
	}
}

// WithNetworkTransport sets network.transport, which the SDKs do not tell a
// middleware: "pipe" for a server over stdio, "tcp" over HTTP, as the
// conventions say. Without it, a go-sdk request that came over HTTP is
// marked "tcp" and every other request has no network.transport.
func WithNetworkTransport(transport string) Option {
	return func(c *config) { c.transport = transport }
}
