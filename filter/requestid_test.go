package filter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/toolerr"
)

func TestRequestIDMintedOnceOnFirstUse(t *testing.T) {
	ctx := filter.ContextWithRequestID(context.Background(), "")
	ids := make([]string, 16)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids[i] = filter.RequestIDFromContext(ctx)
		}()
	}
	wg.Wait()
	u, err := uuid.Parse(ids[0])
	if err != nil || u.Version() != 7 {
		t.Fatalf("minted id %q, want a UUID of version 7", ids[0])
	}
	for _, id := range ids {
		if id != ids[0] {
			t.Fatalf("ids %q: one request, one id", ids)
		}
	}
	if other := filter.RequestIDFromContext(filter.ContextWithRequestID(context.Background(), "")); other == ids[0] {
		t.Error("two requests got the same id")
	}
}

func TestRequestIDGiven(t *testing.T) {
	ctx := filter.ContextWithRequestID(context.Background(), "42")
	if got := filter.RequestIDFromContext(ctx); got != "42" {
		t.Errorf("id %q, want 42", got)
	}
	if filter.ContextWithRequestID(ctx, "") != ctx || filter.ContextWithRequestID(ctx, "42") != ctx {
		t.Error("a context that carries the id already was wrapped again")
	}
	if got := filter.RequestIDFromContext(filter.ContextWithRequestID(ctx, "43")); got != "43" {
		t.Errorf("id %q, want the new one, 43", got)
	}
	if got := filter.RequestIDFromContext(context.Background()); got != "" {
		t.Errorf("a context no adapter prepared has id %q", got)
	}
	var none context.Context // what a careless caller passes
	if got := filter.RequestIDFromContext(none); got != "" {
		t.Errorf("nil context: %q", got)
	}
}

// TestRequestIDContextKeepsCancellation checks that a context with a
// request id is done when its parent is, and passes on its values.
func TestRequestIDContextKeepsCancellation(t *testing.T) {
	type key struct{}
	parent, cancel := context.WithCancel(context.WithValue(context.Background(), key{}, "v"))
	ctx := filter.ContextWithRequestID(parent, "")
	child, stop := context.WithCancel(ctx)
	defer stop()
	if ctx.Value(key{}) != "v" {
		t.Error("the parent's value is lost")
	}
	cancel()
	<-child.Done()
	if ctx.Err() != context.Canceled {
		t.Errorf("Err = %v, want Canceled", ctx.Err())
	}
}

// TestHandleCarriesTheRequestID checks where the id of a failure comes
// from: the call, else the context, else a new one.
func TestHandleCarriesTheRequestID(t *testing.T) {
	h := newHarness(t)
	ctx := filter.ContextWithRequestID(context.Background(), "")
	want := filter.RequestIDFromContext(ctx)
	for _, tc := range []struct {
		name string
		ctx  context.Context
		call filter.Call
		want string
	}{
		{"from the call", ctx, filter.Call{Tool: "x", RequestID: "7"}, "7"},
		{"from the context", ctx, filter.Call{Tool: "x"}, want},
		{"minted", context.Background(), filter.Call{Tool: "x"}, ""},
	} {
		r := h.p.Handle(tc.ctx, tc.call, toolerr.New("no"))
		recs := h.records(t)
		if len(recs) != 1 || recs[0]["request_id"] != r.RequestID {
			t.Fatalf("%s: records %v, want one with request_id %q", tc.name, recs, r.RequestID)
		}
		b, _ := json.Marshal(r)
		var env map[string]any
		_ = json.Unmarshal(b, &env)
		if env["requestId"] != r.RequestID {
			t.Errorf("%s: envelope requestId %v, want %q", tc.name, env["requestId"], r.RequestID)
		}
		switch u, err := uuid.Parse(r.RequestID); {
		case tc.want != "" && r.RequestID != tc.want:
			t.Errorf("%s: request id %q, want %q", tc.name, r.RequestID, tc.want)
		case tc.want == "" && (err != nil || u.Version() != 7):
			t.Errorf("%s: request id %q, want a minted UUID v7", tc.name, r.RequestID)
		}
	}
}

func ExampleRequestIDFromContext() {
	// Adapters prepare the context of every call; a handler reads the id
	// that its failures will carry in the envelope and the log record.
	ctx := filter.ContextWithRequestID(context.Background(), "42")
	fmt.Println(filter.RequestIDFromContext(ctx))
	// Output: 42
}

func ExampleContextWithRequestID() {
	// With no id of its own, the request gets a UUID v7 the first time one
	// is asked for.
	ctx := filter.ContextWithRequestID(context.Background(), "")
	id := filter.RequestIDFromContext(ctx)
	u, _ := uuid.Parse(id)
	fmt.Println(u.Version(), id == filter.RequestIDFromContext(ctx))
	// Output: VERSION_7 true
}

func ExampleNewRequestID() {
	u, err := uuid.Parse(filter.NewRequestID())
	fmt.Println(u.Version(), err)
	// Output: VERSION_7 <nil>
}
