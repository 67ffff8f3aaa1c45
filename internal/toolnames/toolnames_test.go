package toolnames_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/internal/toolnames"
	"github.com/mcperr/mcperr/toolerr"
)

func TestSetAddRemoveHas(t *testing.T) {
	var names toolnames.Set
	if names.Has("divide") {
		t.Fatal("the zero Set has a name")
	}
	names.Remove("divide") // removing from the zero Set is a no-op
	if err := names.Add("divide"); err != nil {
		t.Fatal(err)
	}
	if !names.Has("divide") {
		t.Fatal("Has after Add = false")
	}
	err := names.Add("divide")
	var de *toolerr.DefinitionError
	if !errors.As(err, &de) || de.Code != codes.DuplicateTool || de.Subject != "divide" {
		t.Fatalf("second Add = %v, want a DUPLICATE_TOOL *DefinitionError", err)
	}
	if got, want := err.Error(), `mcperr: DUPLICATE_TOOL: "divide": a tool with this name is already registered on this server; give each tool its own name`; got != want {
		t.Errorf("second Add = %q, want %q", got, want)
	}
	names.Remove("divide")
	if names.Has("divide") {
		t.Fatal("Has after Remove = true")
	}
	if err := names.Add("divide"); err != nil {
		t.Fatalf("Add after Remove = %v", err)
	}
}

func TestSetAddInvalid(t *testing.T) {
	var names toolnames.Set
	for _, bad := range []string{"", "bad name", "slash/name", strings.Repeat("x", toolerr.MaxToolNameLen+1)} {
		err := names.Add(bad)
		var de *toolerr.DefinitionError
		if !errors.As(err, &de) || de.Code != codes.InvalidToolName {
			t.Errorf("Add(%q) = %v, want an INVALID_TOOL_NAME *DefinitionError", bad, err)
		}
		if want := toolerr.CheckToolName(bad); err.Error() != want.Error() {
			t.Errorf("Add(%q) = %v, want CheckToolName's %v", bad, err, want)
		}
		if names.Has(bad) {
			t.Errorf("invalid name %q was recorded", bad)
		}
	}
}

func TestSetConcurrent(t *testing.T) {
	var names toolnames.Set
	var wg sync.WaitGroup
	var mu sync.Mutex
	added := 0
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprint("t", i%4)
			if names.Add(name) == nil {
				mu.Lock()
				added++
				mu.Unlock()
			}
			_ = names.Has(name)
		}()
	}
	wg.Wait()
	if added != 4 {
		t.Fatalf("%d of 4 distinct names added", added)
	}
	for i := range 4 {
		if !names.Has(fmt.Sprint("t", i)) {
			t.Errorf("t%d missing", i)
		}
	}
}
