//go:debug panicnil=1

// Package panicnil tests how panics.Run sees panic(nil) under the old
// semantics, where recover returns nil for it.
package panicnil

import (
	"errors"
	"testing"

	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/isolate"
	"github.com/mcperr/mcperr/internal/panics"
)

func TestRunPanicNil(t *testing.T) {
	var pe *filter.PanicError
	r := isolate.NewRunner(func(int) int { panic(nil) })
	if _, out := r.Run(0); !errors.As(panics.Err(out), &pe) || pe.Value != panics.Exited {
		t.Errorf("panic(nil) under panicnil=1: %v, want a PanicError with value Exited", pe)
	}
}
