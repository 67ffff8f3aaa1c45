// Package isolate runs a function on a goroutine of its own, so that a
// function that panics, panics with nil or calls runtime.Goexit ends only
// that goroutine, and its caller learns how it ended and goes on.
package isolate

import (
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// runnable is a call waiting for a goroutine.
type runnable interface{ run() }

// handoff is where idle workers wait for calls. A call goes to an idle
// worker if there is one, else to a worker started for it; the worker then
// waits for the next call, so that its stack, grown by the calls before,
// serves the next one without growing again.
var handoff = make(chan runnable)

// idleTimeout is how long a worker waits for a call before it ends, and
// maxIdle how many workers may wait at once: a burst of calls leaves at most
// maxIdle goroutines behind it, for at most idleTimeout.
const idleTimeout = 5 * time.Second

var maxIdle = int32(4 * runtime.GOMAXPROCS(0))

// idle counts the workers waiting for a call.
var idle atomic.Int32

// worker runs calls until it has waited idleTimeout for one, enough others
// wait already, or a call ends its goroutine.
func worker() {
	timer := time.NewTimer(idleTimeout)
	defer timer.Stop()
	for {
		if idle.Add(1) > maxIdle {
			// Enough workers wait: one of them takes the call this one
			// was started for.
			idle.Add(-1)
			return
		}
		select {
		case r := <-handoff:
			idle.Add(-1)
			r.run()
		case <-timer.C:
			idle.Add(-1)
			return
		}
		timer.Reset(idleTimeout)
	}
}

// start hands r to a waiting worker, or to a new one.
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
