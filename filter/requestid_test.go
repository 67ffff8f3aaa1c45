package filter_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/mcperr/mcperr/filter"
	"github.com/mcperr/mcperr/toolerr"
)

// isV7 reports whether id is a UUID of version 7 in its 36-character form.
func isV7(id string) bool {
	u, err := uuid.Parse(id)
	return err == nil && len(id) == 36 && u.Version() == 7 && u.String() == id
}

func TestRequestIDFromContext(t *testing.T) {
	if got := filter.RequestIDFromContext(context.Background()); got != "" {
		t.Errorf("a context no adapter prepared has id %q", got)
	}
	var none context.Context // what a careless caller passes
	if got := filter.RequestIDFromContext(none); got != "" {
		t.Errorf("nil context: %q", got)
	}
	ctx := filter.Served(context.Background(), filter.Call{})
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
	if !isV7(ids[0]) {
		t.Fatalf("minted id %q, want a UUID of version 7", ids[0])
	}
	for _, id := range ids {
		if id != ids[0] {
			t.Fatalf("ids %q: one request, one id", ids)
		}
	}
	type key struct{}
	derived := context.WithValue(ctx, key{}, 1)
	if got := filter.RequestIDFromContext(derived); got != ids[0] {
		t.Errorf("a context derived from the request's has id %q, want %q", got, ids[0])
	}
	if other := filter.RequestIDFromContext(filter.Served(context.Background(), filter.Call{})); other == ids[0] || !isV7(other) {
		t.Errorf("another request got id %q", other)
	}
}

// TestHandleCarriesTheRequestID checks where the id of a failure comes
// from: the call, else the context, else a new UUID v7. The envelope, the
// Failure's call and the record agree.
func TestHandleCarriesTheRequestID(t *testing.T) {
	h := newHarness(t)
	ctx := filter.Served(context.Background(), filter.Call{})
	fromCtx := filter.RequestIDFromContext(ctx)
	minted := map[string]bool{}
	for _, tc := range []struct {
		name string
		ctx  context.Context
		call filter.Call
		want string // "" for a fresh UUID v7
	}{
		{"from the call", ctx, filter.Call{Tool: "x", RequestID: "7"}, "7"},
		{"from the context", ctx, filter.Call{Tool: "x"}, fromCtx},
		{"from the context again", ctx, filter.Call{Tool: "x"}, fromCtx},
		{"from the context, a resource", ctx, filter.Call{Method: "resources/read", Resource: "file:///x"}, fromCtx},
		{"minted", context.Background(), filter.Call{Tool: "x"}, ""},
		{"minted again", context.Background(), filter.Call{Tool: "x"}, ""},
		{"minted for a prompt", context.Background(), filter.Call{Method: "prompts/get", Prompt: "p"}, ""},
	} {
		for _, err := range []error{toolerr.New("no"), errors.New("boom")} {
			f := h.handle(t, tc.ctx, tc.call, err)
			id := f.Envelope.RequestID
			recs := h.records(t)
			if len(recs) != 1 || recs[0]["request_id"] != id {
				t.Fatalf("%s: records %v, want one with request_id %q", tc.name, recs, id)
			}
			if f.Call.RequestID != id {
				t.Errorf("%s: the Failure's call has id %q, the envelope %q", tc.name, f.Call.RequestID, id)
			}
			switch {
			case tc.want != "" && id != tc.want:
				t.Errorf("%s: request id %q, want %q", tc.name, id, tc.want)
			case tc.want == "" && (!isV7(id) || minted[id]):
				t.Errorf("%s: request id %q, want a fresh UUID v7", tc.name, id)
			}
			if tc.want == "" {
				minted[id] = true
			}
		}
	}
	if !isV7(fromCtx) {
		t.Errorf("the context's id %q is not a UUID v7", fromCtx)
	}
}

// Outside a request an adapter serves, a context has no request id; a
// failure handled there gets a UUID v7 of its own.
func ExampleRequestIDFromContext() {
	fmt.Printf("%q\n", filter.RequestIDFromContext(context.Background()))
	p, _ := filter.New(filter.WithLogger(slog.New(slog.DiscardHandler)))
	f := p.Handle(context.Background(), filter.Call{Tool: "lookup"}, errors.New("boom"))
	u, _ := uuid.Parse(f.Envelope.RequestID)
	fmt.Println(u.Version())
	// Output:
	// ""
	// VERSION_7
}
