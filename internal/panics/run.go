package panics

import "sync"

// runnable is a call waiting for a goroutine.
type runnable interface{ run() }

// handoff is where each goroutine Runner.Run starts picks up its call: the
// goroutine is started without arguments, which allocates nothing, and
// receives the call here. Every send is matched by the one goroutine started
// for it.
var handoff = make(chan runnable)

// worker runs one call.
func worker() { (<-handoff).run() }

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
	f       func(A) R
	arg     A
	res     R
	failure error
	done    chan struct{}
}

// Run calls f(arg) on a goroutine of its own and waits for it. It returns
// f's result, or a *filter.PanicError if f panicked, with value Exited if f
// called runtime.Goexit or panicked with nil under GODEBUG=panicnil=1.
func (r *Runner[A, R]) Run(arg A) (res R, failure error) {
	j, _ := r.pool.Get().(*job[A, R])
	if j == nil {
		j = &job[A, R]{done: make(chan struct{}, 1)}
	}
	j.f, j.arg = r.f, arg
	go worker()
	handoff <- j
	<-j.done
	res, failure = j.res, j.failure
	*j = job[A, R]{done: j.done} // keep nothing of the call alive
	r.pool.Put(j)
	return res, failure
}

func (j *job[A, R]) run() {
	returned := false
	defer func() {
		v := recover()
		switch {
		case returned:
		case v != nil:
			j.failure = Recovered(v)
		default:
			j.failure = Recovered(Exited)
		}
		j.done <- struct{}{}
	}()
	j.res = j.f(j.arg)
	returned = true
}

// Call calls f(arg) on the calling goroutine, for a caller further out that
// answers for a goroutine that ends: it returns f's result, or a
// *filter.PanicError if f panicked.
func (r *Runner[A, R]) Call(arg A) (res R, failure error) {
	defer func() {
		if v := recover(); v != nil {
			failure = Recovered(v)
		}
	}()
	return r.f(arg), nil
}
