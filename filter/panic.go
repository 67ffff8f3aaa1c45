package filter

import "runtime/debug"

// PanicError is a panic recovered from a tool handler or a filter. It is
// always masked: the client never reads the panic value. Its Stack reaches
// the log. Filters and reporters can find it with errors.As.
type PanicError struct {
	// Value is what was passed to panic.
	Value any
	// Stack is the goroutine's stack where the panic was recovered.
	Stack []byte
}

// Error returns "panic: " and the value, bounded, even if the value is
// cyclic or its own methods panic.
func (e *PanicError) Error() string { return "panic: " + safeSprint(e.Value) }

// recovered turns the value of recover() inside the pipeline, from a filter
// or a reporter, into a *PanicError with the current stack.
func recovered(v any) error {
	return &PanicError{Value: v, Stack: debug.Stack()}
}
