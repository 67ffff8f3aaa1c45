package bind

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
)

type server struct{ name string }

func TestTableIdentity(t *testing.T) {
	var tab Table[server, int]
	a, b := &server{"x"}, &server{"x"}
	one, two := 1, 2
	if v, loaded := tab.LoadOrStore(a, &one); loaded || v != &one {
		t.Fatal("first LoadOrStore did not store")
	}
	if v, loaded := tab.LoadOrStore(a, &two); !loaded || v != &one {
		t.Fatal("second LoadOrStore replaced the value")
	}
	if tab.Load(b) != nil {
		t.Fatal("an equal but distinct key found a value")
	}
	tab.Store(b, &two)
	if tab.Load(b) != &two || tab.Load(a) != &one || tab.Load(nil) != nil {
		t.Fatal("Store or Load is wrong")
	}
	runtime.KeepAlive(a)
	runtime.KeepAlive(b)
}

func TestTableForgetsCollectedKeys(t *testing.T) {
	var tab Table[server, int]
	v := 1
	for range 10 {
		tab.LoadOrStore(&server{"temp"}, &v)
	}
	deadline := time.Now().Add(5 * time.Second)
	for tab.Len() > 0 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if n := tab.Len(); n != 0 {
		t.Fatalf("%d entries left after their keys were collected", n)
	}
}

func TestTableLoadAllocatesNothing(t *testing.T) {
	var tab Table[server, int]
	s, v := &server{"x"}, 1
	tab.LoadOrStore(s, &v)
	if n := testing.AllocsPerRun(100, func() { tab.Load(s); tab.LoadOrStore(s, &v) }); n != 0 {
		t.Fatalf("a lookup of a present key allocates %v times", n)
	}
}

func TestCheckFilters(t *testing.T) {
	ok := filter.Func(func(context.Context, filter.Call, error) (*filter.Response, error) { return nil, nil })
	if err := CheckFilters("AddTool", []filter.Filter{ok}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]filter.Filter{{nil}, {ok, filter.Func(nil)}} {
		var de *codes.DefinitionError
		if err := CheckFilters("AddTool", bad); !errors.As(err, &de) || de.Code != codes.NilFilter {
			t.Fatalf("CheckFilters = %v, want NIL_FILTER", err)
		}
	}
}
