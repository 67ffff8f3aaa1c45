package inputschema

import (
	"bytes"
	"encoding/json"
	"testing"
)

// hostileArguments returns about n bytes of arguments that break the
// schema of hostileSchema at every item: an array of wrong-typed values.
func hostileArguments(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"items":[`)
	for b.Len() < n {
		b.WriteString(`"x",`)
	}
	b.WriteString(`"x"]}`)
	return b.Bytes()
}

var hostileSchema = []byte(`{"type":"object","properties":{"items":{"type":"array","items":{"type":"integer"}}}}`)

// TestBoundedWork checks that arguments over the bounds are not checked,
// and that arguments within them are.
func TestBoundedWork(t *testing.T) {
	s, err := Compile(hostileSchema)
	if err != nil {
		t.Fatal(err)
	}
	if v := s.CheckJSON(hostileArguments(10 << 20)); v != nil {
		t.Errorf("10 MB of arguments were checked: %d violations", len(v.Violations))
	}
	var decoded any
	if err := json.Unmarshal(hostileArguments(40<<10), &decoded); err != nil {
		t.Fatal(err)
	}
	if v := s.Check(decoded); v != nil {
		t.Errorf("%d decoded values were checked: %d violations", maxValues*2, len(v.Violations))
	}
	if v := s.CheckJSON(hostileArguments(1 << 10)); v == nil || len(v.Violations) == 0 {
		t.Error("small wrong arguments were not checked")
	}
}

// BenchmarkCheckHostile measures the check of arguments that break the
// schema at every item, 10 MB of them and as many as the bounds let
// through; compare with the SDK's own cost of a call:
//
//	go test -run='^$' -bench=CheckHostile -benchmem ./internal/inputschema
func BenchmarkCheckHostile(b *testing.B) {
	s, err := Compile(hostileSchema)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		args []byte
	}{
		{"10MB", hostileArguments(10 << 20)},
		{"at the bounds", hostileArguments(4 * maxValues)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.args)))
			b.ReportAllocs()
			for b.Loop() {
				s.CheckJSON(bc.args)
			}
		})
	}
}
