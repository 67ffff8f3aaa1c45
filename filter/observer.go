package filter

import (
	"context"
	"log/slog"
)

// Observer is told of every failure the pipeline handles, client and
// server errors alike, once, after the answer is final and before the log
// record is written: for tracing, metrics and error tracking. It receives
// a copy: writing to it changes nothing sent. An Observer that panics is
// recovered, and the panic noted in the log record. It runs on the
// path of the answer: hand slow work to a queue.
type Observer func(ctx context.Context, f Failure)

// observe tells every observer of f, and notes in the record any that
// panicked.
func (p *Pipeline) observe(ctx context.Context, h *handling, f *Failure) {
	for _, o := range p.observers {
		func() {
			defer func() {
				if v := recover(); v != nil {
					h.attrs = append(h.attrs, slog.String("observer_error", p.text(recovered(v))))
				}
			}()
			o(ctx, f.view())
		}()
	}
}
