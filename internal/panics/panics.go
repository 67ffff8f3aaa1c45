// Package panics turns the value of recover() into the error the pipeline
// masks, for the adapters.
package panics

import (
	"net/http"
	"runtime/debug"

	"github.com/mcperr/mcperr/filter"
)

// Recovered turns the value of recover() into a *filter.PanicError with the
// current stack. Call it in the deferred function that recovers, so that the
// stack shows where the panic happened. It re-panics http.ErrAbortHandler,
// which net/http uses to abort a response on purpose.
func Recovered(v any) error {
	if v == http.ErrAbortHandler {
		panic(v)
	}
	return &filter.PanicError{Value: v, Stack: debug.Stack()}
}
