package otelmcp

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcperr/mcperr/filter"
)

// Observer returns an observer, for filter.WithObserver, that marks the span active around
// every failed call mcperr handles:
//
//   - status Error, with the message the client received as description;
//   - error.type: ErrorTypeToolError ("tool_error") for a tool call, whose
//     failure is a result with isError set; for a resources/read,
//     prompts/get or completion/complete, whose failure is a JSON-RPC
//     error, its code in decimal (filter.Failure.JSONRPCCode), which
//     rpc.response.status_code holds too;
//   - mcperr.code, mcperr.category, mcperr.ref (server errors only) and
//     mcperr.request_id; mcperr.report_only in report-only mode, where they
//     describe what mcperr would have sent, and mcperr.hand_built for an
//     error result the handler built itself;
//   - an "exception" event whose exception.type is the Go type of the error
//     handled (filter.Failure.Err, such as *errors.errorString) and whose
//     exception.message is filter.Failure.ErrorText: what mcperr's log
//     record holds, redacted under filter.WithRedaction, never the error
//     value;
//   - mcperr.retry.attempts, when the server called the tool more than
//     once (filter.WithRetries).
//
// An attempt that failed and is retried (filter.Failure.Retry) marks the
// span with a RetryEvent alone and sets mcperr.retry.attempts to the
// attempt that follows: the call may still succeed, so its status is left
// to the final answer.
//
// Give it to the pipeline:
//
//	p, err := filter.New(filter.WithObserver(otelmcp.Observer()))
//
// When the span is the server span of GoSDKMiddleware or InstrumentMCPGo,
// the middleware sets error.type and rpc.response.status_code itself, from
// what the SDK sends (on mcp-go every resource or prompt failure is sent
// as -32603, whatever JSONRPCCode says), so the two never disagree and
// nothing is recorded twice. Without a recording span in the context, the
// Observer does nothing.
func Observer() func(context.Context, filter.Failure) {
	return observe
}

func observe(ctx context.Context, f filter.Failure) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	env := f.Envelope
	attempt := max(env.Attempts, 1)
	if f.Retry > 0 {
		span.AddEvent(RetryEvent, trace.WithAttributes(RetryAttemptKey.Int(attempt), CodeKey.String(string(env.Code)),
			semconv.ExceptionType(fmt.Sprintf("%T", f.Err))))
		span.SetAttributes(RetryAttemptsKey.Int(attempt + 1))
		return
	}
	attrs := make([]attribute.KeyValue, 0, 9)
	if attempt > 1 {
		attrs = append(attrs, RetryAttemptsKey.Int(attempt))
	}
	attrs = append(attrs, CodeKey.String(string(env.Code)))
	if env.Category != "" {
		attrs = append(attrs, CategoryKey.String(string(env.Category)))
	}
	if env.Ref != "" {
		attrs = append(attrs, RefKey.String(env.Ref))
	}
	if f.Call.RequestID != "" {
		attrs = append(attrs, RequestIDKey.String(f.Call.RequestID))
	}
	if f.ReportOnly {
		attrs = append(attrs, ReportOnlyKey.Bool(true))
	}
	if f.HandBuilt {
		attrs = append(attrs, HandBuiltKey.Bool(true))
	}
	op := operationFrom(ctx)
	ours := op != nil && op.span.SpanContext().Equal(span.SpanContext())
	if !ours {
		if f.Call.Method == "" || f.Call.Method == methodCallTool {
			attrs = append(attrs, keyErrorType.String(ErrorTypeToolError))
		} else {
			code := formatCode(f.JSONRPCCode)
			attrs = append(attrs, keyErrorType.String(code), keyStatusCode.String(code))
		}
	}
	span.SetAttributes(attrs...)
	span.AddEvent(semconv.ExceptionEventName, trace.WithAttributes(
		semconv.ExceptionType(fmt.Sprintf("%T", f.Err)),
		semconv.ExceptionMessage(f.ErrorText),
	))
	span.SetStatus(codes.Error, env.Message)
	if ours {
		op.observed.Store(true)
	}
}
