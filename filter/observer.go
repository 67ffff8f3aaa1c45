package filter

import (
	"context"
	"log/slog"
)

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
