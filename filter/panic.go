package filter

import "runtime/debug"

// PanicError is a recovered panic: of a handler, which the adapters hand
// to Pipeline.Handle, or of a filter. It is always masked: the client never
// reads the panic value. Its Stack reaches the log. Filters and observers
// find it with errors.As.
type PanicError struct {
	// Value is what was passed to panic.
	Value any
	// Stack is the goroutine's stack where the panic was recovered.
	Stack []byte
}

// Error returns "panic: " and the value, bounded, even if the value is
// cyclic or its own methods panic.
func (e *PanicError) Error() string { return "panic: " + safeSprint(e.Value) }

// recovered turns the value of recover() into a *PanicError with the
// current stack. Call it in the deferred function that recovers, so that
// the stack shows where the panic happened.
func recovered(v any) error {
	return &PanicError{Value: v, Stack: debug.Stack()}
}
