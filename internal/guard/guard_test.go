package guard_test

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/guard"
)

// run calls fn on a goroutine of its own, as a layer of an adapter would,
// and returns what guard.Recovered made of its end in the deferred
// function; returned reports whether fn returned normally.
func run(fn func()) (err error, returned bool) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if !returned {
				err = guard.Recovered(recover())
			}
		}()
		fn()
		returned = true
	}()
	<-done
	return err, returned
}

func panicsInHandler() { panic("boom") }

func TestRecoveredPanic(t *testing.T) {
	err, returned := run(panicsInHandler)
	if returned {
		t.Fatal("the handler returned")
	}
	var pe *filter.PanicError
	if !errors.As(err, &pe) || pe.Value != "boom" {
		t.Fatalf("Recovered = %#v, want a *filter.PanicError of \"boom\"", err)
	}
	if !strings.Contains(string(pe.Stack), "panicsInHandler") {
		t.Errorf("the stack does not show where the handler panicked:\n%s", pe.Stack)
	}
	if err.Error() != "panic: boom" {
		t.Errorf("Error() = %q", err.Error())
	}
}

// TestRecoveredPanicNil checks that panic(nil) is a panic like another: Go
// reports it as a *runtime.PanicNilError.
func TestRecoveredPanicNil(t *testing.T) {
	err, _ := run(func() { panic(nil) })
	var pe *filter.PanicError
	var pn *runtime.PanicNilError
	if !errors.As(err, &pe) {
		t.Fatalf("Recovered = %#v, want a *filter.PanicError", err)
	}
	if v, ok := pe.Value.(error); !ok || !errors.As(v, &pn) {
		t.Errorf("panic value %#v, want a *runtime.PanicNilError", pe.Value)
	}
}

// TestRecoveredGoexit checks a real runtime.Goexit: the layer that
// recovers gets nil, and Recovered the error of guard.Exited, with the
// stack, which the one layer that handles the call logs.
func TestRecoveredGoexit(t *testing.T) {
	err, returned := run(runtime.Goexit)
	var pe *filter.PanicError
	if returned || !errors.As(err, &pe) || pe.Value != guard.Exited || len(pe.Stack) == 0 {
		t.Fatalf("Recovered = %#v (returned %v), want a *filter.PanicError of guard.Exited with a stack", err, returned)
	}
}
