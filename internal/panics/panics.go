// Package panics turns the ways a tool handler can end abnormally into the
// error the pipeline masks, for the adapters.
package panics

import (
	"runtime/debug"

	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/isolate"
)

// Exited is the value of the *filter.PanicError that Err returns for a
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

// Err returns the error that stands for out: nil if the function returned,
// else a *filter.PanicError with the panic value, or Exited.
func Err(out isolate.Outcome) error {
	switch {
	case out.Panicked:
		return &filter.PanicError{Value: out.Value, Stack: out.Stack}
	case out.Exited:
		return &filter.PanicError{Value: Exited, Stack: out.Stack}
	}
	return nil
}
