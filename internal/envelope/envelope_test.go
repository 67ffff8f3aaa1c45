package envelope

import (
	"encoding/json"
	"testing"

	"github.com/mcperr/mcperr/codes"
	"github.com/mcperr/mcperr/filter"
)

var sample = filter.Envelope{
	Version: 1, Error: true, Code: codes.NotFound, Category: codes.Client, Message: "Order not found: o1",
	Details: json.RawMessage(`{"resourceId":"o1"}`), Hints: []string{"List the orders."}, Retryable: false,
	DocURL: "https://example.com/e", Timestamp: "2026-01-02T03:04:05Z", RequestID: "0190b0a0-0000-7000-8000-000000000000",
}

func same(t *testing.T, got, want filter.Envelope) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Errorf("Read = %s\nwant %s", g, w)
	}
}

func TestReadTyped(t *testing.T) {
	got, ok := Read(map[string]any{filter.MetaKey: sample})
	if !ok {
		t.Fatal("Read did not find a filter.Envelope")
	}
	same(t, got, sample)
	e := sample
	got, ok = Read(map[string]any{filter.MetaKey: &e})
	if !ok {
		t.Fatal("Read did not find a *filter.Envelope")
	}
	same(t, got, sample)
}

// TestReadDecoded reads an envelope as a client receives it: decoded JSON,
// with a field of a later version it does not know.
func TestReadDecoded(t *testing.T) {
	b, err := json.Marshal(sample)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	m["addedLater"] = map[string]any{"x": 1}
	got, ok := Read(map[string]any{filter.MetaKey: m, "other": "meta"})
	if !ok {
		t.Fatal("Read did not find a decoded envelope")
	}
	same(t, got, sample)
	var details map[string]any
	if err := json.Unmarshal(got.Details, &details); err != nil || details["resourceId"] != "o1" {
		t.Errorf("details = %s, %v", got.Details, err)
	}
}

func TestReadMissing(t *testing.T) {
	for name, meta := range map[string]map[string]any{
		"nil meta":        nil,
		"empty meta":      {},
		"other keys":      {"io.github.other/error": map[string]any{"error": true, "code": "X"}},
		"nil value":       {filter.MetaKey: nil},
		"nil pointer":     {filter.MetaKey: (*filter.Envelope)(nil)},
		"not an object":   {filter.MetaKey: "INTERNAL_ERROR"},
		"a list":          {filter.MetaKey: []any{map[string]any{"error": true, "code": "X"}}},
		"error false":     {filter.MetaKey: map[string]any{"error": false, "code": "NOT_FOUND"}},
		"no error":        {filter.MetaKey: map[string]any{"code": "NOT_FOUND"}},
		"no code":         {filter.MetaKey: map[string]any{"error": true, "message": "m"}},
		"wrong types":     {filter.MetaKey: map[string]any{"error": "yes", "code": 7}},
		"not encodable":   {filter.MetaKey: map[string]any{"error": true, "code": "X", "f": func() {}}},
		"typed, no error": {filter.MetaKey: filter.Envelope{Code: codes.NotFound}},
		"typed, no code":  {filter.MetaKey: filter.Envelope{Error: true}},
	} {
		got, ok := Read(meta)
		if ok {
			t.Errorf("%s: Read found %+v", name, got)
		}
		if got.Code != "" || got.Error || got.Message != "" {
			t.Errorf("%s: Read returned a partial envelope %+v", name, got)
		}
	}
}
