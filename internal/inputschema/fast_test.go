package inputschema

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
)

// fastSchemas are schemas of the shapes tools declare, all with a fast form.
var fastSchemas = []string{
	`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"],"additionalProperties":false}`,
	`{"type":"object","properties":{"id":{"type":"string","minLength":3,"maxLength":8},"count":{"type":"integer","minimum":1,"maximum":10}},"required":["id"]}`,
	`{"type":"object","properties":{"status":{"type":"string","enum":["pending","shipped"]},"n":{"type":["integer","null"],"exclusiveMinimum":0}}}`,
	`{"type":"object","properties":{"items":{"type":"array","minItems":1,"maxItems":3,"items":{"type":"object","properties":{"qty":{"type":"integer","exclusiveMaximum":100}},"required":["qty"]}}},"additionalProperties":{"type":"boolean"}}`,
	`{"type":"object","properties":{"flag":{"type":"boolean","description":"x","default":true},"when":{"type":"string","format":"date-time"}},"$schema":"https://json-schema.org/draft/2020-12/schema"}`,
	`{"type":"object","properties":{"e":{"enum":[1,"one",true,null]}}}`,
	`{"type":"object"}`,
}

// values are arguments, good and bad, for the schemas above.
func values(r *rand.Rand) any {
	scalars := []any{nil, true, false, 0.0, 1.0, 1.5, -3.0, 5.0, 100.0, 1e300, "", "ab", "abc", "abcdefghi", "pending", "shipped", "one", "héllo"}
	var gen func(depth int) any
	gen = func(depth int) any {
		switch k := r.IntN(5); {
		case depth > 2 || k < 3:
			return scalars[r.IntN(len(scalars))]
		case k == 3:
			n := r.IntN(4)
			a := make([]any, n)
			for i := range a {
				a[i] = gen(depth + 1)
			}
			return a
		default:
			keys := []string{"a", "b", "id", "count", "status", "n", "items", "qty", "flag", "when", "e", "extra"}
			m := map[string]any{}
			for range r.IntN(5) {
				m[keys[r.IntN(len(keys))]] = gen(depth + 1)
			}
			return m
		}
	}
	return gen(0)
}

// TestFastNeverSaysFitsWrongly checks the fast form against the full
// validator on random arguments: whatever the fast form lets through, the
// full validator accepts.
func TestFastNeverSaysFitsWrongly(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, doc := range fastSchemas {
		s, err := Compile([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		if s.fast == nil {
			t.Fatalf("%s has no fast form", doc)
		}
		fits, checked := 0, 0
		for range 20000 {
			v := values(r)
			if m, ok := v.(map[string]any); ok && r.IntN(2) == 0 {
				m["a"], m["b"], m["id"] = 1.0, 2.0, "abcd"
			}
			if s.fast.fits(v) {
				fits++
				if err := s.s.Validate(v); err != nil {
					b, _ := json.Marshal(v)
					t.Fatalf("schema %s: the fast form accepts %s, the validator refuses it: %v", doc, b, err)
				}
			}
			checked++
		}
		t.Logf("%s: %d of %d fit", doc, fits, checked)
		if fits == 0 {
			t.Errorf("%s: no generated value fits; the test proves nothing", doc)
		}
	}
}

// TestNoFastForm checks that a schema with a keyword the fast form does not
// know gets none, and is still checked.
func TestNoFastForm(t *testing.T) {
	for _, doc := range []string{
		`{"type":"object","properties":{"a":{"type":"string","pattern":"^x"}}}`,
		`{"type":"object","oneOf":[{"required":["a"]}]}`,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"type":"string"}}}`,
		`{"type":"object","properties":{"a":{"enum":[[1]]}}}`,
	} {
		s, err := Compile([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		if s.fast != nil {
			t.Errorf("%s has a fast form", doc)
		}
	}
}

// TestCheckAllocatesNothingWhenArgumentsFit pins the cost of checking
// arguments that fit a schema with a fast form.
func TestCheckAllocatesNothingWhenArgumentsFit(t *testing.T) {
	s, err := Compile([]byte(fastSchemas[1]))
	if err != nil {
		t.Fatal(err)
	}
	args := map[string]any{"id": "ord_1", "count": 2.0}
	if n := testing.AllocsPerRun(1000, func() {
		if v := s.Check(args); v != nil {
			t.Fatal(fmt.Sprint(v))
		}
	}); n != 0 {
		t.Errorf("Check allocates %v times for arguments that fit", n)
	}
	if v := s.Check(map[string]any{"id": "x"}); v == nil || v.Violations[0].Field != "id" {
		t.Errorf("arguments that do not fit: %v", v)
	}
}
