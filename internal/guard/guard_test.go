package guard_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/callctx"
	"github.com/mcperr/mcperr/internal/guard"
)

// run calls fn on a goroutine of its own, as a layer of an adapter would,
// and returns what guard.Recovered made of its end in the deferred
// function; returned reports whether fn returned normally.
func run(ctx context.Context, fn func()) (err error, returned bool) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if !returned {
				err = guard.Recovered(ctx, recover())
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
	err, returned := run(context.Background(), panicsInHandler)
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
	err, _ := run(context.Background(), func() { panic(nil) })
	var pe *filter.PanicError
	var pn *runtime.PanicNilError
	if !errors.As(err, &pe) {
		t.Fatalf("Recovered = %#v, want a *filter.PanicError", err)
	}
	if v, ok := pe.Value.(error); !ok || !errors.As(v, &pn) {
		t.Errorf("panic value %#v, want a *runtime.PanicNilError", pe.Value)
	}
}

// TestRecoveredGoexit checks a real runtime.Goexit: every layer of one call
// recovers nil; the innermost gets the error of guard.Exited, with a stack,
// and the outer layers of the same call nil, so that it is logged once.
func TestRecoveredGoexit(t *testing.T) {
	ctx := callctx.With(context.Background(), nil)
	var inner, outer error
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { outer = guard.Recovered(ctx, recover()) }()
		func() {
			defer func() { inner = guard.Recovered(ctx, recover()) }()
			runtime.Goexit()
		}()
		t.Error("the goroutine went on after runtime.Goexit")
	}()
	<-done
	var pe *filter.PanicError
	if !errors.As(inner, &pe) || pe.Value != guard.Exited || len(pe.Stack) == 0 {
		t.Fatalf("the inner layer: Recovered = %#v, want a *filter.PanicError of guard.Exited with a stack", inner)
	}
	if outer != nil {
		t.Errorf("the outer layer of the same call: Recovered = %v, want nil", outer)
	}
	if !callctx.From(ctx).Exited {
		t.Error("the call is not marked as exited")
	}

	// Another call is logged on its own.
	other := callctx.With(context.Background(), nil)
	if err, _ := run(other, runtime.Goexit); !errors.As(err, &pe) || pe.Value != guard.Exited {
		t.Errorf("another call: Recovered = %#v", err)
	}
	if err, _ := run(other, runtime.Goexit); err != nil {
		t.Errorf("the same call again: Recovered = %#v, want nil", err)
	}
}

// TestRecoveredGoexitWithoutCall checks a context no adapter prepared:
// nothing tells the layers apart, so each reports the exit.
func TestRecoveredGoexitWithoutCall(t *testing.T) {
	for range 2 {
		err, _ := run(context.Background(), runtime.Goexit)
		var pe *filter.PanicError
		if !errors.As(err, &pe) || pe.Value != guard.Exited {
			t.Fatalf("Recovered = %#v, want a *filter.PanicError of guard.Exited", err)
		}
	}
	if err := guard.Recovered(nilCtx, nil); err == nil {
		t.Error("Recovered(nil, nil) = nil")
	}
}

// nilCtx is a nil context, which the functions accept.
var nilCtx context.Context
