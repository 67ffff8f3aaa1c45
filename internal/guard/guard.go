// Package guard turns the abnormal end of a handler into the error the
// pipeline masks, for the adapters, which recover it with defer on the
// goroutine that ran the handler.
package guard

import (
	"runtime/debug"

	"github.com/mcperr/mcperr/filter"
)

// Exited is the panic value of the *filter.PanicError that stands for a
// handler that called runtime.Goexit (or panicked with nil under
// GODEBUG=panicnil=1).
const Exited = "the handler called runtime.Goexit"

// Recovered returns the error that stands for a handler that did not
// return, given v, the value of recover() in the deferred function of a
// layer that ran it: a *filter.PanicError with v and the stack. A nil v
// means runtime.Goexit: the goroutine ends whatever the layer does, so the
// call goes unanswered, but it is logged, by the one layer that handles
// the call's failures.
//
// Call it in the deferred function that recovers, so that the stack shows
// where the handler stopped.
func Recovered(v any) error {
	if v == nil {
		v = Exited
	}
	return &filter.PanicError{Value: v, Stack: debug.Stack()}
}
