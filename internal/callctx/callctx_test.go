package callctx

import (
	"context"
	"sync"
	"testing"

	"github.com/google/uuid"
)

type otherKey struct{}

func TestWithReusesTheCallOfTheSameState(t *testing.T) {
	state, other := new(int), new(int)
	parent := context.WithValue(context.Background(), otherKey{}, "kept")
	ctx := With(parent, state)
	c := From(ctx)
	if c == nil || c.State != state {
		t.Fatalf("From(With(ctx, state)) = %+v", c)
	}
	if ctx.Value(otherKey{}) != "kept" {
		t.Error("the Call hides its parent's values")
	}
	if again := With(ctx, state); again != ctx {
		t.Error("With made a second Call for the same state")
	}
	if again := With(ctx, nil); again != ctx {
		t.Error("With(ctx, nil) made a second Call where one is there")
	}
	derived := context.WithValue(ctx, otherKey{}, "inner")
	if again := With(derived, state); again != derived || From(again) != c {
		t.Error("With did not reuse the Call of a context derived from it")
	}
	inner := With(ctx, other)
	if inner == ctx || From(inner) == c || From(inner).State != other {
		t.Fatalf("With(ctx, other state) reused the Call of another state")
	}
	if From(inner).RequestID() == c.RequestID() {
		t.Error("two Calls share a request id")
	}
}

func TestWithNilContext(t *testing.T) {
	ctx := With(nilCtx, nil)
	c := From(ctx)
	if c == nil || c.Context == nil || c.State != nil {
		t.Fatalf("With(nilCtx, nil) = %+v", c)
	}
	if ctx.Err() != nil {
		t.Errorf("a Call over a nil context: Err = %v", ctx.Err())
	}
}

func TestFrom(t *testing.T) {
	if From(nilCtx) != nil {
		t.Error("From(nilCtx) != nil")
	}
	if From(context.Background()) != nil {
		t.Error("From(Background) found a Call")
	}
	if From(context.WithValue(context.Background(), key{}, "not a Call")) != nil {
		t.Error("From returned something that is not a Call")
	}
}

// TestRequestIDMintedOnce checks that a Call's request id is a UUID v7,
// minted once however many goroutines ask for it at the same time.
func TestRequestIDMintedOnce(t *testing.T) {
	c := From(With(context.Background(), nil))
	if c.id != "" {
		t.Fatal("the id was minted before it was asked for")
	}
	ids := make([]string, 16)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids[i] = c.RequestID()
		}()
	}
	wg.Wait()
	for _, id := range ids {
		if id != ids[0] {
			t.Fatalf("RequestID gave %q and %q", ids[0], id)
		}
	}
	checkV7(t, ids[0])
	if c.RequestID() != ids[0] {
		t.Error("RequestID changed")
	}
}

func TestNewID(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := NewID()
		checkV7(t, id)
		if seen[id] {
			t.Fatalf("NewID repeated %s", id)
		}
		seen[id] = true
	}
}

// checkV7 fails t unless id is a UUID of version 7 in its 36-character
// form.
func checkV7(t *testing.T, id string) {
	t.Helper()
	u, err := uuid.Parse(id)
	if err != nil || len(id) != 36 || u.Version() != 7 || u.Variant() != uuid.RFC4122 || u.String() != id {
		t.Fatalf("id %q is not a UUID v7 in canonical form: %v", id, err)
	}
}

// nilCtx is a nil context, which the functions accept.
var nilCtx context.Context
