// Package isolate runs a function on a goroutine of its own, so that a
// function that panics, panics with nil or calls runtime.Goexit ends only
// that goroutine, and its caller learns how it ended and goes on.
package isolate

import (
	"runtime/debug"
	"sync"
	"time"
)

// runnable is a call waiting for a goroutine.
type runnable interface{ run() }

// handoff is where idle workers wait for calls. A call goes to an idle
// worker if there is one, else to a worker started for it; the worker then
// waits for the next call, so that its stack, grown by the calls before,
// serves the next one without growing again.
var handoff = make(chan runnable)

// idleTimeout is how long a worker waits for a call before it ends.
const idleTimeout = 30 * time.Second

// worker runs calls until it has waited idleTimeout for one, or a call ends
// its goroutine.
func worker() {
	idle := time.NewTimer(idleTimeout)
	defer idle.Stop()
	for {
		select {
		case r := <-handoff:
			r.run()
			idle.Reset(idleTimeout)
		case <-idle.C:
			return
		}
	}
}

// start hands r to an idle worker, or to a new one.
func start(r runnable) {
	select {
	case handoff <- r:
	default:
		go worker()
		handoff <- r
	}
}

// Runner runs one function, f, on goroutines of their own: a call that
// panics, panics with nil or calls runtime.Goexit ends only that goroutine,
// and the caller learns how it ended. Its calls allocate nothing once warm.
// A Runner is safe for concurrent use.
type Runner[A, R any] struct {
	f    func(A) R
	pool sync.Pool
}

// NewRunner returns a Runner of f. f should be a function that captures
// nothing, taking all it needs in its argument, so that no call allocates.
func NewRunner[A, R any](f func(A) R) *Runner[A, R] {
	return &Runner[A, R]{f: f}
}

// job is one call of a Runner.
type job[A, R any] struct {
	f    func(A) R
	arg  A
	res  R
	out  Outcome
	done chan struct{}
}

// Outcome says how a function ended if it did not return.
type Outcome struct {
	// Panicked is set when the function panicked with a value, which Value
	// holds.
	Panicked bool
	Value    any
	// Exited is set when the function called runtime.Goexit, or panicked
	// with nil under GODEBUG=panicnil=1, where recover cannot tell the two.
	Exited bool
	// Stack is the stack of the goroutine where it ended.
	Stack []byte
}

// Failed reports whether the function did not return.
func (o Outcome) Failed() bool { return o.Panicked || o.Exited }

// Run calls f(arg) on a goroutine of its own and waits for it. It returns
// f's result and, if f did not return, how it ended.
func (r *Runner[A, R]) Run(arg A) (res R, out Outcome) {
	j, _ := r.pool.Get().(*job[A, R])
	if j == nil {
		j = &job[A, R]{done: make(chan struct{}, 1)}
	}
	j.f, j.arg = r.f, arg
	start(j)
	<-j.done
	res, out = j.res, j.out
	*j = job[A, R]{done: j.done} // keep nothing of the call alive
	r.pool.Put(j)
	return res, out
}

func (j *job[A, R]) run() {
	returned := false
	defer func() {
		v := recover()
		switch {
		case returned:
		case v != nil:
			j.out = Outcome{Panicked: true, Value: v, Stack: debug.Stack()}
		default:
			j.out = Outcome{Exited: true, Stack: debug.Stack()}
		}
		j.done <- struct{}{}
	}()
	j.res = j.f(j.arg)
	returned = true
}

// Call calls f(arg) on the calling goroutine, for a caller further out that
// answers for a goroutine that ends: it returns f's result and, if f
// panicked, how.
func (r *Runner[A, R]) Call(arg A) (res R, out Outcome) {
	defer func() {
		if v := recover(); v != nil {
			out = Outcome{Panicked: true, Value: v, Stack: debug.Stack()}
		}
	}()
	return r.f(arg), Outcome{}
}
