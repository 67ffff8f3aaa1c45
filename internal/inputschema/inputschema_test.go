package inputschema

import (
	"encoding/json"
	"strings"
	"testing"
)

const orderSchema = `{
  "type": "object",
  "properties": {
    "orderId": {"type": "string", "pattern": "^ord_"},
    "count":   {"type": "integer", "minimum": 1},
    "status":  {"type": "string", "enum": ["pending", "shipped"]},
    "items":   {"type": "array", "items": {"type": "object", "properties": {"qty": {"type": "integer"}}}}
  },
  "required": ["orderId", "count"],
  "additionalProperties": false
}`

func TestCheck(t *testing.T) {
	s, err := Compile([]byte(orderSchema))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args string
		want map[string]string // field -> constraint
	}{
		{"fits", `{"orderId":"ord_1","count":2}`, nil},
		{"missing", `{"count":2}`, map[string]string{"orderId": "is required"}},
		{"null means empty object", `null`, map[string]string{"orderId": "is required", "count": "is required"}},
		{"wrong type", `{"orderId":"ord_1","count":"SECRET-two"}`, map[string]string{"count": "must be integer, not string"}},
		{"extra", `{"orderId":"ord_1","count":2,"token":"SECRET-tok"}`, map[string]string{"token": "is not a known property; remove it"}},
		{"pattern", `{"orderId":"SECRET-x","count":2}`, map[string]string{"orderId": "must match the pattern ^ord_"}},
		{"minimum", `{"orderId":"ord_1","count":0}`, map[string]string{"count": "must be at least 1"}},
		{"enum", `{"orderId":"ord_1","count":1,"status":"SECRET-lost"}`, map[string]string{"status": `must be one of "pending", "shipped"`}},
		{"nested", `{"orderId":"ord_1","count":1,"items":[{"qty":1},{"qty":"SECRET"}]}`, map[string]string{"items/1/qty": "must be integer, not string"}},
		{"not an object", `[1,2]`, map[string]string{"": "must be object, not array"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := s.CheckJSON([]byte(tt.args))
			if tt.want == nil {
				if v != nil {
					t.Fatalf("CheckJSON = %v, want nil", v)
				}
				return
			}
			if v == nil {
				t.Fatal("CheckJSON = nil, want violations")
			}
			got := map[string]string{}
			for _, vi := range v.Violations {
				got[vi.Field] = vi.Constraint
			}
			if len(got) != len(tt.want) {
				t.Fatalf("violations = %v, want %v", got, tt.want)
			}
			for f, c := range tt.want {
				if got[f] != c {
					t.Errorf("field %q: constraint %q, want %q", f, got[f], c)
				}
			}
			public, _ := json.Marshal(v.PublicDetails())
			if strings.Contains(v.PublicMessage()+string(public), "SECRET") {
				t.Errorf("offending value reached the public view: %s %s", v.PublicMessage(), public)
			}
		})
	}
}

func TestCheckKeepsValueForLog(t *testing.T) {
	s, err := Compile([]byte(orderSchema))
	if err != nil {
		t.Fatal(err)
	}
	v := s.CheckJSON([]byte(`{"orderId":"ord_1","count":"SECRET-two"}`))
	if v == nil || v.Violations[0].Value != "SECRET-two" {
		t.Fatalf("Value = %#v, want the offending value kept for the log", v)
	}
}

func TestCompileRefusesRemoteRefs(t *testing.T) {
	if _, err := Compile([]byte(`{"$ref": "https://example.com/schema.json"}`)); err == nil {
		t.Fatal("Compile accepted a remote $ref")
	}
	if _, err := Compile([]byte(`{`)); err == nil {
		t.Fatal("Compile accepted broken JSON")
	}
}

func TestCacheCompilesOnce(t *testing.T) {
	var c Cache
	a, err := c.Get([]byte(orderSchema))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := c.Get([]byte(orderSchema))
	if a != b {
		t.Fatal("Cache compiled the same document twice")
	}
}

// TestPointersAndReasons checks that every violation points at its field
// with a JSON Pointer and names the keyword it fails.
func TestPointersAndReasons(t *testing.T) {
	s, err := Compile([]byte(`{
	  "type": "object",
	  "properties": {
	    "items": {"type": "array", "items": {"type": "object", "properties": {"qty": {"type": "integer", "minimum": 1}}, "required": ["sku"]}},
	    "a/b~c": {"type": "string", "enum": ["x"]},
	    "note": {"type": "string", "maxLength": 3}
	  },
	  "additionalProperties": false
	}`))
	if err != nil {
		t.Fatal(err)
	}
	v := s.CheckJSON([]byte(`{"items":[{"sku":"a","qty":1},{"qty":0}],"a/b~c":"y","note":"long","extra/x":1}`))
	if v == nil {
		t.Fatal("CheckJSON = nil, want violations")
	}
	got := map[string]string{}
	for _, vi := range v.Violations {
		got[vi.Pointer] = vi.Reason + " " + vi.Field
	}
	want := map[string]string{
		"/items/1/qty": "minimum items/1/qty",
		"/items/1/sku": "required items/1/sku",
		"/a~1b~0c":     "enum a/b~c",
		"/note":        "maxLength note",
		"/extra~1x":    "additionalProperties extra/x",
	}
	if len(got) != len(want) {
		t.Fatalf("violations = %v, want %v", got, want)
	}
	for p, w := range want {
		if got[p] != w {
			t.Errorf("violation at %q = %q, want %q (all: %v)", p, got[p], w, got)
		}
	}
	root := s.CheckJSON([]byte(`[1]`))
	if root == nil || root.Violations[0].Pointer != "" || root.Violations[0].Reason != "type" {
		t.Errorf("arguments that are not an object: %+v, want pointer \"\" and reason type", root)
	}
}

// TestJSONPointer checks the JSON Pointers (RFC 6901) the violations carry,
// '~' and '/' escaped in each token.
func TestJSONPointer(t *testing.T) {
	for _, tt := range []struct {
		tokens []string
		want   string
	}{
		{nil, ""},
		{[]string{""}, "/"},
		{[]string{"items", "1", "qty"}, "/items/1/qty"},
		{[]string{"a/b", "m~n"}, "/a~1b/m~0n"},
		{[]string{"~1"}, "/~01"},
	} {
		if got := jsonPointer(tt.tokens...); got != tt.want {
			t.Errorf("jsonPointer(%q) = %q, want %q", tt.tokens, got, tt.want)
		}
	}
}

// TestCheckArgumentsOfAnyShape checks what is not a JSON object: broken
// JSON, and decoded arguments absent or of another type.
func TestCheckArgumentsOfAnyShape(t *testing.T) {
	s, err := Compile([]byte(orderSchema))
	if err != nil {
		t.Fatal(err)
	}
	v := s.CheckJSON([]byte(`{"orderId": SECRET`))
	if v == nil || len(v.Violations) != 1 || v.Violations[0].Reason != "type" || v.Violations[0].Field != "" {
		t.Fatalf("CheckJSON(broken JSON) = %+v, want one type violation of the whole", v)
	}
	if strings.Contains(v.PublicMessage(), "SECRET") {
		t.Errorf("the broken arguments reached the message: %s", v.PublicMessage())
	}
	if v := s.Check(nil); v == nil || len(v.Violations) != 2 {
		t.Errorf("Check(nil) = %+v, want the two required fields", v)
	}
	if v := s.Check(map[string]any{"orderId": "ord_1", "count": json.Number("2")}); v != nil {
		t.Errorf("Check(decoded arguments that fit) = %+v", v)
	}
	if v := s.Check("SECRET"); v == nil || v.Violations[0].Pointer != "" || v.Violations[0].Reason != "type" {
		t.Errorf("Check(a string) = %+v, want a type violation of the whole", v)
	}
	open, err := Compile([]byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range []string{``, `null`, ` {} `, `{"any":1}`} {
		if v := open.CheckJSON([]byte(args)); v != nil {
			t.Errorf("CheckJSON(%q) against {} = %+v", args, v)
		}
	}
}

func TestCacheRefusesBrokenJSON(t *testing.T) {
	var c Cache
	if _, err := c.Get([]byte(`{`)); err == nil {
		t.Error("Cache.Get compiled broken JSON")
	}
}

// TestKeywords checks the keywords the walk explains beyond the common
// ones, each against a schema the validator judges: local references,
// allOf, draft-07's items array, const, uniqueItems, multipleOf,
// patternProperties, additionalProperties as a schema, and a failure the
// walk cannot explain (anyOf), reported as the arguments as a whole.
func TestKeywords(t *testing.T) {
	for _, tt := range []struct {
		name, schema, args string
		want               map[string]string // pointer -> reason
	}{
		{"$defs", `{"$defs":{"qty":{"type":"integer","minimum":1}},"type":"object","properties":{"q":{"$ref":"#/$defs/qty"}}}`,
			`{"q":0}`, map[string]string{"/q": "minimum"}},
		{"definitions, draft-07", `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"s":{"type":"string"}},"properties":{"a":{"$ref":"#/definitions/s"}}}`,
			`{"a":1}`, map[string]string{"/a": "type"}},
		{"allOf", `{"allOf":[{"required":["a"]},{"required":["b"]}]}`,
			`{}`, map[string]string{"/a": "required", "/b": "required"}},
		{"draft-07 items array", `{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"p":{"items":[{"type":"string"},{"type":"integer"}],"additionalItems":false}}}`,
			`{"p":["a","b",3]}`, map[string]string{"/p/1": "type", "/p/2": "false"}},
		{"prefixItems", `{"properties":{"p":{"prefixItems":[{"type":"string"}],"items":{"type":"integer"}}}}`,
			`{"p":[1,"x"]}`, map[string]string{"/p/0": "type", "/p/1": "type"}},
		{"const", `{"properties":{"v":{"const":2}}}`, `{"v":3}`, map[string]string{"/v": "const"}},
		{"uniqueItems", `{"properties":{"v":{"uniqueItems":true}}}`, `{"v":[1,2,1]}`, map[string]string{"/v": "uniqueItems"}},
		{"multipleOf", `{"properties":{"v":{"multipleOf":5}}}`, `{"v":7}`, map[string]string{"/v": "multipleOf"}},
		{"patternProperties", `{"patternProperties":{"^x-":{"type":"string"}},"additionalProperties":false}`,
			`{"x-a":"ok","y":1}`, map[string]string{"/y": "additionalProperties"}},
		{"additionalProperties as a schema", `{"properties":{"a":{}},"additionalProperties":{"type":"string"}}`,
			`{"a":1,"b":2}`, map[string]string{"/b": "type"}},
		{"bounds", `{"properties":{"s":{"minLength":2},"l":{"maxItems":1},"o":{"minProperties":1}}}`,
			`{"s":"é","l":[1,2],"o":{}}`, map[string]string{"/s": "minLength", "/l": "maxItems", "/o": "minProperties"}},
		{"anyOf, not explained", `{"anyOf":[{"required":["a"]},{"required":["b"]}]}`, `{}`, map[string]string{"": "schema"}},
		{"a schema that refers to itself", `{"properties":{"next":{"$ref":"#"},"v":{"type":"integer"}}}`,
			`{"next":{"next":{"v":"x"}}}`, map[string]string{"/next/next/v": "type"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Compile([]byte(tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			v := s.CheckJSON([]byte(tt.args))
			if v == nil {
				t.Fatal("CheckJSON = nil, want violations")
			}
			got := map[string]string{}
			for _, vi := range v.Violations {
				got[vi.Pointer] = vi.Reason
			}
			if len(got) != len(tt.want) {
				t.Fatalf("violations = %v, want %v", got, tt.want)
			}
			for p, r := range tt.want {
				if got[p] != r {
					t.Errorf("at %q: reason %q, want %q (all %v)", p, got[p], r, got)
				}
			}
		})
	}
}

// TestCompileRefusesUnknownTypes checks that a type name JSON Schema does
// not know, anywhere in the schema, is a compile error: every value would
// fail it.
func TestCompileRefusesUnknownTypes(t *testing.T) {
	for _, doc := range []string{
		`{"type":"numbr"}`,
		`{"properties":{"a":{"items":{"type":["string","strng"]}}}}`,
		`{"$defs":{"x":{"type":"int"}}}`,
	} {
		if _, err := Compile([]byte(doc)); err == nil || !strings.Contains(err.Error(), "unknown type") {
			t.Errorf("Compile(%s) = %v, want an unknown type error", doc, err)
		}
	}
}

// fuzzSchemas are the schemas FuzzCheckAgreesWithValidator checks against:
// every keyword the walk explains, and some it leaves to the validator.
var fuzzSchemas = []string{
	`{"type":"object","properties":{"id":{"type":"string","minLength":2,"maxLength":8,"pattern":"^o"},"count":{"type":"integer","minimum":1,"maximum":10,"multipleOf":1}},"required":["id"],"additionalProperties":false}`,
	`{"$defs":{"qty":{"type":"integer","exclusiveMinimum":0}},"properties":{"q":{"$ref":"#/$defs/qty"},"next":{"$ref":"#"}}}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"s":{"type":"string"}},"properties":{"a":{"$ref":"#/definitions/s"},"p":{"items":[{"type":"string"},{"type":"integer"}],"additionalItems":false}}}`,
	`{"allOf":[{"required":["a"]},{"properties":{"a":{"enum":["x","y",1]}}}],"properties":{"c":{"const":{"k":[1,2]}}}}`,
	`{"properties":{"l":{"type":"array","prefixItems":[{"type":"boolean"}],"items":{"type":["number","null"]},"minItems":1,"maxItems":3,"uniqueItems":true}}}`,
	`{"patternProperties":{"^x-":{"type":"string"}},"properties":{"o":{"type":"object","minProperties":1,"maxProperties":2,"additionalProperties":{"type":"integer"}}},"additionalProperties":false}`,
	`{"anyOf":[{"required":["a"]},{"required":["b"]}],"not":{"required":["c"]},"properties":{"f":false}}`,
}

// FuzzCheckAgreesWithValidator holds the walk to the validator's verdict:
// Check refuses exactly the arguments google/jsonschema-go refuses, so the
// walk, which answers first, never refuses arguments that fit.
func FuzzCheckAgreesWithValidator(f *testing.F) {
	for i, args := range []string{`{}`, `{"id":"ord_1","count":2}`, `{"id":"x","count":"two","extra":1}`,
		`{"q":0,"next":{"q":1.5}}`, `{"a":1,"p":["a","b",3]}`, `{"a":"z","c":{"k":[1,2]}}`, `{"l":[true,1,1]}`,
		`{"x-a":"ok","o":{"a":1,"b":"2","c":3}}`, `{"b":1,"c":2,"f":0}`, `null`, `[1]`, `{"id":"oé","count":1e0}`} {
		f.Add(uint8(i), args)
	}
	var schemas []*Schema
	for _, doc := range fuzzSchemas {
		s, err := Compile([]byte(doc))
		if err != nil {
			f.Fatalf("Compile(%s): %v", doc, err)
		}
		schemas = append(schemas, s)
	}
	f.Fuzz(func(t *testing.T, which uint8, args string) {
		s := schemas[int(which)%len(schemas)]
		var v any
		if json.Unmarshal([]byte(args), &v) != nil {
			return
		}
		if v == nil {
			v = map[string]any{}
		}
		refused := s.Check(v) != nil
		if fits := s.resolved.Validate(v) == nil; refused == fits {
			t.Errorf("schema %s, arguments %s: Check refused=%v, the validator says fits=%v", fuzzSchemas[int(which)%len(fuzzSchemas)], args, refused, fits)
		}
	})
}
