package filter

import (
	"fmt"
	"net/http"
	"runtime/debug"
)

// PanicError is a panic recovered from a tool handler. It is always masked:
// the client never reads the panic value. Its Stack reaches the log.
type PanicError struct {
	// Value is what was passed to panic.
	Value any
	// Stack is the goroutine's stack where the panic was recovered.
	Stack []byte
}

// Error returns "panic: " and the value.
func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// Recovered turns the value of recover() into a *PanicError with the current
// stack. Call it in the deferred function that recovers, so the stack shows
// where the panic happened:
//
//	defer func() {
//		if v := recover(); v != nil {
//			res = toResult(p.Handle(ctx, call, filter.Recovered(v)))
//		}
//	}()
//
// Recovered re-panics http.ErrAbortHandler, which net/http uses to abort a
// response on purpose.
func Recovered(v any) error {
	if v == http.ErrAbortHandler {
		panic(v)
	}
	return &PanicError{Value: v, Stack: debug.Stack()}
}
