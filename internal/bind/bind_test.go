package bind

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcperr/mcperr/codes"
)

type server struct{ name string }

type state struct{ n int }

func TestTable(t *testing.T) {
	var tab Table[server, state]
	a, b := &server{"a"}, &server{"b"}
	if tab.Load(a) != nil || tab.Load(nil) != nil {
		t.Fatal("an empty table has a value")
	}
	sa := &state{1}
	if got, loaded := tab.LoadOrStore(a, sa); got != sa || loaded {
		t.Fatalf("LoadOrStore(a) = %v, %v", got, loaded)
	}
	if got, loaded := tab.LoadOrStore(a, &state{2}); got != sa || !loaded {
		t.Fatalf("LoadOrStore(a) again = %v, %v, want the first value", got, loaded)
	}
	if tab.Load(a) != sa || tab.Load(b) != nil {
		t.Fatal("Load does not tell servers apart")
	}
	runtime.KeepAlive(a)
}

// TestTableForgets checks that an entry goes when its server is garbage
// collected. Cleanups run after a collection, when the runtime gets to
// them: the test collects until the entry goes, for at most a generous
// while.
func TestTableForgets(t *testing.T) {
	var tab Table[server, state]
	func() {
		s := &server{"gone"}
		tab.LoadOrStore(s, &state{})
	}()
	kept := &server{"kept"}
	tab.LoadOrStore(kept, &state{})
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		tab.mu.RLock()
		n := len(tab.m)
		tab.mu.RUnlock()
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d entries after the server was collected, want 1", n)
		}
		runtime.Gosched()
	}
	if tab.Load(kept) == nil {
		t.Fatal("the entry of a live server went")
	}
	runtime.KeepAlive(kept)
}

func TestDefinitionErrors(t *testing.T) {
	var de *codes.DefinitionError
	if err := Conflict("gosdk"); !errors.As(err, &de) || de.Mistake != codes.ConflictingConfiguration ||
		!strings.Contains(de.Reason, "gosdk.Install once per server") {
		t.Errorf("Conflict = %v", err)
	}
	if err := NotInstalled("mcpgo", "AddTool"); !errors.As(err, &de) || de.Mistake != codes.NotInstalled ||
		!strings.Contains(de.Reason, "mcpgo.AddTool needs mcperr installed") || !strings.Contains(de.Reason, "mcpgo.Install(s, pipeline)") {
		t.Errorf("NotInstalled = %v", err)
	}
}
