package isolate

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

func TestRunnerAllocatesNothing(t *testing.T) {
	r := NewRunner(func(n int) int { return n + 1 })
	if n := testing.AllocsPerRun(1000, func() {
		if res, out := r.Run(1); res != 2 || out.Failed() {
			t.Fatalf("Run = %d, %+v", res, out)
		}
	}); n != 0 {
		t.Errorf("Run allocates %v times", n)
	}
}

func TestOutcomes(t *testing.T) {
	r := NewRunner(func(how string) string {
		switch how {
		case "panic":
			panic("boom")
		case "goexit":
			runtime.Goexit()
		}
		return how
	})
	if res, out := r.Run("ok"); res != "ok" || out.Failed() {
		t.Errorf("ok: %q, %+v", res, out)
	}
	if _, out := r.Run("panic"); !out.Panicked || out.Value != "boom" || len(out.Stack) == 0 {
		t.Errorf("panic: %+v", out)
	}
	if _, out := r.Run("goexit"); !out.Exited || out.Panicked {
		t.Errorf("goexit: %+v", out)
	}
	if _, out := r.Call("panic"); !out.Panicked || out.Value != "boom" {
		t.Errorf("Call panic: %+v", out)
	}
}

// TestIdleWorkersAreBounded checks that a burst of concurrent calls leaves
// at most maxIdle workers waiting.
func TestIdleWorkersAreBounded(t *testing.T) {
	r := NewRunner(func(d time.Duration) int { time.Sleep(d); return 0 })
	var wg sync.WaitGroup
	for range 200 {
		wg.Add(1)
		go func() { defer wg.Done(); r.Run(time.Millisecond) }()
	}
	wg.Wait()
	time.Sleep(10 * time.Millisecond)
	if n := idle.Load(); n > maxIdle {
		t.Errorf("%d workers wait after the burst, want at most %d", n, maxIdle)
	}
}
