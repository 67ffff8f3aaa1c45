package otelmcp

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/semconv/v1.41.0/mcpconv"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcperr/mcperr/internal/uriview"
)

// instrumentationName names the tracer and the meter of this package.
const instrumentationName = "github.com/mcperr/mcperr/contrib/otelmcp"

// The methods that get a server span.
const (
	methodCallTool     = "tools/call"
	methodReadResource = "resources/read"
	methodGetPrompt    = "prompts/get"
)

// instruments are what a middleware records with.
type instruments struct {
	tracer     trace.Tracer
	duration   mcpconv.ServerOperationDuration
	propagator propagation.TextMapPropagator
	transport  string
	misordered atomic.Bool // reported once: the middleware runs inside mcperr's
}

func newInstruments(opts []Option) *instruments {
	c := newConfig(opts)
	in := &instruments{
		tracer:     c.tracerProvider.Tracer(instrumentationName, trace.WithSchemaURL(semconv.SchemaURL)),
		propagator: c.propagator,
		transport:  c.transport,
	}
	meter := c.meterProvider.Meter(instrumentationName, metric.WithSchemaURL(semconv.SchemaURL))
	d, err := mcpconv.NewServerOperationDuration(meter, metric.WithExplicitBucketBoundaries(durationBuckets...))
	if err != nil {
		otel.Handle(err)
	}
	in.duration = d
	return in
}

// request is what a middleware knows of a request when it starts.
type request struct {
	method    string
	tool      string // tools/call
	prompt    string // prompts/get
	uri       string // resources/read
	session   string
	protocol  string
	transport string
	meta      map[string]any // params._meta
}

// operation is one request being served, in its context under opKey, so
// that the Observer finds the span and leaves the status to the middleware.
type operation struct {
	method   string
	span     trace.Span
	start    time.Time
	attrs    []attribute.KeyValue // of the metric point
	name     int                  // the index in attrs of the tool's or prompt's name, or -1
	observed atomic.Bool          // the Observer set the span's status
}

type opKey struct{}

// noopSpan stands for a span that could not be started.
var noopSpan = trace.SpanFromContext(context.Background())

// operationFrom returns the operation ctx is served by, or nil.
func operationFrom(ctx context.Context) *operation {
	op, _ := ctx.Value(opKey{}).(*operation)
	return op
}

// spanName is `{mcp.method.name} {target}`, the target being the tool or
// the prompt; a resource's URI is not low-cardinality, so resources/read
// spans are named after the method alone, as the conventions say.
func spanName(r request) string {
	switch {
	case r.tool != "":
		return r.method + " " + r.tool
	case r.prompt != "":
		return r.method + " " + r.prompt
	}
	return r.method
}

// start starts the server span of r, with the trace context of its
// params._meta as parent where there is one, linked then to the span that
// was active. It returns the context for the rest of the chain.
func (in *instruments) start(ctx context.Context, r request) (context.Context, *operation) {
	if mcperrOutside(ctx) && in.misordered.CompareAndSwap(false, true) {
		otel.Handle(errMisordered)
	}
	if r.transport == "" {
		r.transport = in.transport
	}
	r.tool, r.prompt, r.uri = bounded(r.tool), bounded(r.prompt), bounded(r.uri)
	metricAttrs := make([]attribute.KeyValue, 0, 8)
	spanAttrs := make([]attribute.KeyValue, 0, 10)
	spanAttrs = append(spanAttrs, keyMethod.String(r.method))
	name := -1 // the index in metricAttrs of the tool's or prompt's name
	switch {
	case r.tool != "":
		a := []attribute.KeyValue{keyToolName.String(r.tool), executeTool}
		name = len(metricAttrs)
		spanAttrs, metricAttrs = append(spanAttrs, a...), append(metricAttrs, a...)
	case r.prompt != "":
		name = len(metricAttrs)
		spanAttrs, metricAttrs = append(spanAttrs, keyPromptName.String(r.prompt)), append(metricAttrs, keyPromptName.String(r.prompt))
	}
	if r.method == methodReadResource {
		// Without the URI's password, query and fragment, which can hold
		// credentials and data.
		spanAttrs = append(spanAttrs, keyResourceURI.String(uriview.Safe(r.uri, false)))
	}
	if r.session != "" {
		spanAttrs = append(spanAttrs, keySession.String(r.session))
	}
	if r.protocol != "" {
		spanAttrs, metricAttrs = append(spanAttrs, keyProtocol.String(r.protocol)), append(metricAttrs, keyProtocol.String(r.protocol))
	}
	if r.transport != "" {
		spanAttrs, metricAttrs = append(spanAttrs, keyTransport.String(r.transport)), append(metricAttrs, keyTransport.String(r.transport))
	}

	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(spanAttrs...)}
	parent := ctx
	if len(r.meta) > 0 {
		ambient := trace.SpanContextFromContext(ctx)
		extracted := in.propagator.Extract(ctx, metaCarrier(r.meta))
		if sc := trace.SpanContextFromContext(extracted); sc.IsValid() && !sc.Equal(ambient) {
			parent = extracted
			if ambient.IsValid() {
				opts = append(opts, trace.WithLinks(trace.Link{SpanContext: ambient}))
			}
		}
	}
	op := &operation{method: r.method, start: time.Now(), attrs: metricAttrs, name: name}
	ctx, op.span = in.startSpan(parent, spanName(r), opts)
	return context.WithValue(ctx, opKey{}, op), op
}

// maxName bounds a tool or prompt name or a URI recorded.
const maxName = 256

// bounded returns s cut to maxName bytes of valid UTF-8.
func bounded(s string) string {
	if len(s) <= maxName {
		return s
	}
	return strings.ToValidUTF8(s[:maxName], "")
}

// otherName is the value of a tool or prompt name in a metric point of a
// request refused with invalid params (-32602) before any handler answered,
// as a call of a tool the server does not have is: names a client makes
// up never become metric values, as the conventions' _OTHER keeps
// cardinality bounded.
const otherName = "_OTHER"

// invalidParams is the JSON-RPC code of invalid params, as outcome holds
// it.
const invalidParams = "-32602"

// startSpan starts a span, and a no-op one if the tracer's span processor
// panics: telemetry never takes a request down.
func (in *instruments) startSpan(ctx context.Context, name string, opts []trace.SpanStartOption) (out context.Context, span trace.Span) {
	defer func() {
		if v := recover(); v != nil {
			otel.Handle(fmt.Errorf("otelmcp: starting span %q panicked: %v", name, v))
			out, span = ctx, noopSpan
		}
	}()
	return in.tracer.Start(ctx, name, opts...)
}

// outcome is how a request ended, as the client sees it.
type outcome struct {
	errorType   string // error.type; "" for success
	statusCode  string // rpc.response.status_code: the JSON-RPC code, for a JSON-RPC error
	description string // the status description, where the middleware may give one
}

// toolError is the outcome of a tools/call answered with isError.
var toolError = outcome{errorType: ErrorTypeToolError}

// rpcError is the outcome of a request answered with the JSON-RPC error
// code, and message if it is safe to record.
func rpcError(code int64, message string) outcome {
	c := formatCode(code)
	return outcome{errorType: c, statusCode: c, description: message}
}

// end ends the span of op with o, and records the duration. ctx is the
// context start returned.
func (in *instruments) end(ctx context.Context, op *operation, o outcome) {
	defer func() {
		if v := recover(); v != nil {
			otel.Handle(fmt.Errorf("otelmcp: ending the span or recording the duration of %s panicked: %v", op.method, v))
		}
	}()
	elapsed := time.Since(op.start).Seconds()
	attrs := op.attrs
	if o.errorType != "" {
		failed := []attribute.KeyValue{keyErrorType.String(o.errorType)}
		if o.statusCode != "" {
			failed = append(failed, keyStatusCode.String(o.statusCode))
		}
		op.span.SetAttributes(failed...)
		if !op.observed.Load() {
			op.span.SetStatus(codes.Error, o.description)
		}
		attrs = append(attrs[:len(attrs):len(attrs)], failed...)
		if o.statusCode == invalidParams && op.name >= 0 && !op.observed.Load() {
			// Invalid params that no handler answered: the name may be one
			// the server does not have.
			attrs[op.name] = attribute.KeyValue{Key: attrs[op.name].Key, Value: attribute.StringValue(otherName)}
		}
	}
	op.span.End()
	in.duration.Record(ctx, elapsed, mcpconv.MethodNameAttr(op.method), attrs...)
}

// metaCarrier reads a request's params._meta as a propagation carrier.
type metaCarrier map[string]any

// Get returns the string value of key, or "".
func (m metaCarrier) Get(key string) string {
	s, _ := m[key].(string)
	return s
}

// Set does nothing: a server does not write into a request's _meta.
func (metaCarrier) Set(string, string) {}

// Keys returns the keys of the _meta.
func (m metaCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}
