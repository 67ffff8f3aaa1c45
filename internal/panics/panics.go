// Package panics turns the ways a tool handler can end abnormally into the
// error the pipeline masks, for the adapters.
package panics

import (
	"runtime/debug"

	"github.com/mcperr/mcperr/filter"
)

// Exited is the value of the *filter.PanicError that Runner.Run returns for a
// function that neither returned nor panicked with a value: it called
// runtime.Goexit, or panicked with nil under GODEBUG=panicnil=1.
const Exited = "the handler called runtime.Goexit, or panicked with nil"

// Recovered turns the value of recover() into a *filter.PanicError with the
// current stack. Call it in the deferred function that recovers, so that the
// stack shows where the panic happened, and do nothing else there. A tool
// handler never runs on net/http's goroutine, so http.ErrAbortHandler is
// recovered like any other value.
func Recovered(v any) error {
	return &filter.PanicError{Value: v, Stack: debug.Stack()}
}
