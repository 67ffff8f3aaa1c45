package adaptertest

import (
	"context"
	"log/slog"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

// StackLog is a slog.Handler that keeps, for each record, the functions on
// the stack of the goroutine that wrote it, innermost first: what shows
// where a failure was handled.
type StackLog struct {
	mu     sync.Mutex
	stacks [][]string
}

// Enabled implements slog.Handler.
func (l *StackLog) Enabled(context.Context, slog.Level) bool { return true }

// Handle implements slog.Handler.
func (l *StackLog) Handle(context.Context, slog.Record) error {
	pc := make([]uintptr, 256)
	frames := runtime.CallersFrames(pc[:runtime.Callers(2, pc)])
	var stack []string
	for {
		f, more := frames.Next()
		stack = append(stack, f.Function)
		if !more {
			break
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stacks = append(l.stacks, stack)
	return nil
}

// WithAttrs implements slog.Handler.
func (l *StackLog) WithAttrs([]slog.Attr) slog.Handler { return l }

// WithGroup implements slog.Handler.
func (l *StackLog) WithGroup(string) slog.Handler { return l }

// Stacks returns the stacks of the records written so far.
func (l *StackLog) Stacks() [][]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([][]string(nil), l.stacks...)
}

// Layers names, outermost first, the layers of mcperr a stack passes
// through (the package path after the module's), each run of frames of
// one package once, and "sdk" for code outside mcperr between two of its
// layers: "adapters/gosdk filter" is a failure the middleware handed the
// pipeline once the handler had returned; "adapters/gosdk sdk
// adapters/gosdk filter", one handled inside the handler's call.
func Layers(stack []string) []string {
	const module = "github.com/mcperr/mcperr/"
	var layers []string
	outside := false
	for i := len(stack) - 1; i >= 0; i-- {
		fn, ok := strings.CutPrefix(stack[i], module)
		pkg, _, _ := strings.Cut(fn, ".") // the module's package paths have no dot
		if !ok || strings.HasPrefix(pkg, "internal/testrig/") || strings.HasSuffix(pkg, "_test") {
			outside = true // the SDK's, or the test's own
			continue
		}
		if outside && len(layers) > 0 {
			layers = append(layers, "sdk")
		}
		outside = false
		if len(layers) == 0 || layers[len(layers)-1] != pkg {
			layers = append(layers, pkg)
		}
	}
	return layers
}

// CheckOneInterceptionPoint checks the records in l, written for one
// failing call of the handler named handler: one record, written by the
// adapter (pkg, such as "adapters/gosdk") calling the pipeline once the
// handler and its wrapper had returned, neither of them on the stack.
func CheckOneInterceptionPoint(t testing.TB, l *StackLog, pkg, handler string) {
	t.Helper()
	got := l.Stacks()
	if len(got) != 1 {
		t.Fatalf("%d records, want one", len(got))
	}
	layers := Layers(got[0])
	t.Logf("layers of mcperr when the record is written: %v", layers)
	if !slices.Equal(layers, []string{pkg, "filter"}) {
		t.Errorf("the record is written through %v, want the middleware calling the pipeline", layers)
	}
	for _, fn := range got[0] {
		if strings.Contains(fn, handler) || strings.Contains(fn, "wrapper") || strings.Contains(fn, "binding") || strings.Contains(fn, ".Wrap") {
			t.Errorf("the handler or its wrapper is on the stack when its failure is logged: %s", fn)
		}
	}
}
