package filter_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/domain"
	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/toolerr"
)

// BenchmarkHandle compares Pipeline.Handle with one slog JSON record of the
// same fields written to io.Discard, the least a logged error can cost.
//
//	go test -run='^$' -bench=Handle -benchmem ./filter
func BenchmarkHandle(b *testing.B) {
	logger := slog.New(slog.NewJSONHandler(io.Discard, nil))
	p, err := filter.New(filter.WithLogger(logger))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	call := filter.Call{Tool: "lookup", RequestID: "7", SessionID: "sess-1"}
	internal := errors.New("dial 10.0.0.5: connection refused")
	for _, bc := range []struct {
		name string
		err  error
	}{
		{"ToolError", toolerr.New("b must not be zero.")},
		{"NotFound", domain.NewNotFound("Order", "ord_1")},
		{"internal", internal},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p.Handle(ctx, call, bc.err)
			}
		})
	}
	observe := filter.Catch(func(context.Context, filter.Call, error) (*filter.Response, error) { return nil, nil })
	withFilter, err := filter.New(filter.WithLogger(logger), filter.WithFilters(observe))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("internal, with a global filter", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			withFilter.Handle(ctx, call, internal)
		}
	})
	b.Run("slog record", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			logger.LogAttrs(ctx, slog.LevelError, "tool call failed",
				slog.String("tool", call.Tool), slog.String("code", "INTERNAL_ERROR"), slog.String("ref", "0123456789abcdef"),
				slog.String("request_id", call.RequestID), slog.String("session_id", call.SessionID),
				slog.String("error", internal.Error()), slog.Time("at", time.Now()))
		}
	})
}

// BenchmarkHandleParallel measures the failure path on every core at once:
// it must scale like the slog record alone.
func BenchmarkHandleParallel(b *testing.B) {
	p, err := filter.New(filter.WithLogger(slog.New(slog.NewJSONHandler(io.Discard, nil))))
	if err != nil {
		b.Fatal(err)
	}
	call := filter.Call{Tool: "lookup"}
	internal := errors.New("dial 10.0.0.5: connection refused")
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			p.Handle(context.Background(), call, internal)
		}
	})
}

// BenchmarkRender renders typical failures with both built-in renderers,
// side by side, and reports the bytes of content the model reads
// (content-B) as well as the time it takes.
//
//	go test -run='^$' -bench=Render -benchmem ./filter
func BenchmarkRender(b *testing.B) {
	reg, err := codes.NewRegistry(codes.Info{Code: "INSUFFICIENT_FUNDS", Category: codes.Business, Description: "The balance is too low."})
	if err != nil {
		b.Fatal(err)
	}
	failures := []struct {
		name string
		err  error
	}{
		{"ToolError", toolerr.New("b must not be zero.").WithHint("Pass a non-zero b.")},
		{"BusinessCode", toolerr.New("Insufficient funds for this transfer.").WithCode("INSUFFICIENT_FUNDS").
			WithDetails(map[string]any{"available": 100, "requested": 250})},
		{"NotFound", domain.NewNotFound("Order", "ord_404")},
		{"Validation", &domain.Validation{Violations: []domain.Violation{
			{Field: "items/1/qty", Pointer: "/items/1/qty", Reason: "minimum", Constraint: "must be at least 1"}}}},
		{"RateLimited", domain.NewRateLimited(30 * time.Second)},
		{"Masked", errors.New("dial 10.0.0.5: connection refused")},
	}
	for _, r := range []struct {
		name string
		fn   func(filter.Envelope) []string
	}{{"MessageOnly", messageOnly}, {"ForModel", filter.RenderForModel}} {
		p, err := filter.New(filter.WithLogger(slog.New(slog.DiscardHandler)), filter.WithRegistry(reg), filter.WithRenderer(r.fn))
		if err != nil {
			b.Fatal(err)
		}
		for _, f := range failures {
			b.Run(f.name+"/"+r.name, func(b *testing.B) {
				env := p.Handle(context.Background(), filter.Call{Tool: "transfer_funds"}, f.err).Envelope
				n := 0
				for _, t := range r.fn(env) {
					n += len(t)
				}
				b.ReportAllocs()
				for b.Loop() {
					r.fn(env)
				}
				b.ReportMetric(float64(n), "content-B")
			})
		}
	}
}
