package panics

import (
	"errors"
	"net/http"
	"runtime"
	"testing"

	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/internal/isolate"
)

// Run runs fn through an isolate.Runner, as the adapters do.
func Run(fn func()) error {
	_, out := isolate.NewRunner(func(f func()) struct{} { f(); return struct{}{} }).Run(fn)
	return Err(out)
}

func TestRun(t *testing.T) {
	var pe *filter.PanicError
	if err := Run(func() {}); err != nil {
		t.Errorf("a function that returns: %v", err)
	}
	if err := Run(func() { panic("boom") }); !errors.As(err, &pe) || pe.Value != "boom" || len(pe.Stack) == 0 {
		t.Errorf("a panic: %v", err)
	}
	if err := Run(func() { runtime.Goexit() }); !errors.As(err, &pe) || pe.Value != Exited {
		t.Errorf("Goexit: %v", err)
	}
	if err := Run(func() { panic(http.ErrAbortHandler) }); !errors.As(err, &pe) || pe.Value != http.ErrAbortHandler {
		t.Errorf("http.ErrAbortHandler: %v", err)
	}
	var nilPanic *runtime.PanicNilError
	if err := Run(func() { panic(nil) }); !errors.As(err, &pe) || !(errors.As(pe.Value.(error), &nilPanic) || pe.Value == Exited) {
		t.Errorf("panic(nil): %v", err)
	}
}
