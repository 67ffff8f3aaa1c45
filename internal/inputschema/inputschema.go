// Package inputschema checks tool arguments against a tool's JSON input
// schema and reports what is wrong as a *domain.Validation: which fields,
// and what each must be, in words that never repeat the offending value.
//
// Both adapters use it, so a go-sdk server and a mcp-go server describe the
// same bad arguments the same way. It decides with google/jsonschema-go,
// the engine both SDKs already link (go-sdk validates with it), and never
// loads a schema from a file or the network. It walks the schema itself to
// name every field that does not fit, and what it must be, for the keywords
// tool schemas use (type, enum, const, the bounds, pattern, required,
// properties, additionalProperties, items, allOf, local $ref); where the
// walk finds nothing, the validator decides, and reports a failure of
// another keyword as the arguments as a whole.
package inputschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcperr/mcperr/domain"
)

// Schema is a compiled input schema.
type Schema struct {
	resolved *jsonschema.Resolved
	root     *jsonschema.Schema
	exact    bool // the walk alone decides: every keyword is one it checks

	mu       sync.Mutex
	patterns map[string]*regexp.Regexp // compiled on first use
}

// Compile compiles a JSON Schema document (draft 2020-12 or draft-07).
// References to other documents are refused.
func Compile(doc []byte) (*Schema, error) {
	var root jsonschema.Schema
	if err := json.Unmarshal(doc, &root); err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	if err := checkTypes(&root, 0); err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	r, err := root.Resolve(&jsonschema.ResolveOptions{Loader: noLoader})
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	var raw any
	_ = json.Unmarshal(doc, &raw) // it decoded above
	return &Schema{resolved: r, root: &root, exact: walked(raw, 0)}, nil
}

// walked reports whether the walk alone decides every verdict on the
// schema v, as decoded JSON: each keyword is one it checks or an
// annotation, so that the validator need not be asked when the walk finds
// nothing.
func walked(v any, depth int) bool {
	if b, ok := v.(bool); ok || depth > maxDepth {
		return ok && b // the false schema refuses all, and the walk says so
	}
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	each := func(x any) bool {
		switch x := x.(type) {
		case []any:
			return !slices.ContainsFunc(x, func(s any) bool { return !walked(s, depth+1) })
		case map[string]any:
			return walked(x, depth+1)
		}
		return false
	}
	for k, x := range m {
		switch k {
		case "type", "enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
			"minLength", "maxLength", "pattern", "minItems", "maxItems", "uniqueItems", "required", "minProperties", "maxProperties",
			"title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly", "format", "$schema", "$id", "$comment":
		case "items", "additionalItems", "prefixItems", "allOf":
			if _, ok := x.(bool); !ok && !each(x) {
				return false
			}
		case "additionalProperties":
			if _, ok := x.(bool); !ok && !walked(x, depth+1) {
				return false
			}
		case "properties", "$defs", "definitions":
			defs, ok := x.(map[string]any)
			if !ok || slices.ContainsFunc(slices.Collect(maps.Values(defs)), func(s any) bool { return !walked(s, depth+1) }) {
				return false
			}
		case "$ref":
			if ref, _ := x.(string); ref != "#" && !strings.HasPrefix(ref, "#/$defs/") && !strings.HasPrefix(ref, "#/definitions/") {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// checkTypes reports a type name that JSON Schema does not know, such as
// "numbr", in s or the schemas in it: the validator would let every value
// fail it.
func checkTypes(s *jsonschema.Schema, depth int) error {
	if s == nil || depth > maxDepth {
		return nil
	}
	for _, t := range typesOf(s) {
		switch t {
		case "null", "boolean", "object", "array", "number", "string", "integer":
		default:
			return fmt.Errorf("unknown type %q; use one of null, boolean, object, array, number, string, integer", t)
		}
	}
	subs := []*jsonschema.Schema{s.Items, s.AdditionalItems, s.Contains, s.UnevaluatedItems, s.AdditionalProperties,
		s.PropertyNames, s.UnevaluatedProperties, s.Not, s.If, s.Then, s.Else, s.ContentSchema}
	subs = append(append(append(append(subs, s.PrefixItems...), s.ItemsArray...), s.AllOf...), s.AnyOf...)
	subs = append(subs, s.OneOf...)
	for _, m := range []map[string]*jsonschema.Schema{s.Defs, s.Definitions, s.Properties, s.PatternProperties, s.DependentSchemas} {
		subs = slices.AppendSeq(subs, maps.Values(m))
	}
	for _, sub := range subs {
		if err := checkTypes(sub, depth+1); err != nil {
			return err
		}
	}
	return nil
}

func noLoader(uri *url.URL) (*jsonschema.Schema, error) {
	return nil, fmt.Errorf("input schema refers to %q: mcperr does not load other documents", uri)
}

// The bounds of a check: arguments over either are not checked, and count
// as fitting, so that the work a failed call costs stays small whatever a
// client sends (validating 10 MB of wrong items took seconds of CPU and
// gigabytes of allocations).
const (
	maxBytes = 64 << 10
	// maxValues bounds the values (objects, arrays, strings, numbers,
	// booleans, nulls) of the decoded arguments checked.
	maxValues = 4096
)

// CheckJSON checks raw JSON arguments. Empty or null arguments count as an
// empty object. It returns nil when they fit, or are too large to check.
func (s *Schema) CheckJSON(args []byte) *domain.Validation {
	if len(args) > maxBytes {
		return nil
	}
	args = bytes.TrimSpace(args)
	if len(args) == 0 || bytes.Equal(args, []byte("null")) {
		args = []byte("{}")
	}
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return &domain.Validation{Violations: []domain.Violation{{Constraint: "The arguments must be a JSON object.", Reason: "type"}}}
	}
	return s.Check(v)
}

// Check checks arguments already decoded from JSON (maps, slices, strings,
// float64 or json.Number, bools, nil). nil counts as an empty object. It
// returns nil when they fit, or are too large to check.
func (s *Schema) Check(args any) *domain.Validation {
	if args == nil {
		args = emptyObject
	}
	n, numbers := maxValues, false
	if !within(args, &n, &numbers) {
		return nil
	}
	if numbers {
		args = floats(args)
	}
	// The walk reports only what does fail, so the validator is asked only
	// when the walk finds nothing: a refusal it explains costs no second
	// pass (FuzzCheckAgreesWithValidator holds the two to the same verdict).
	w := walk{s: s}
	w.check(s.root, args, nil, 0)
	if len(w.out) == 0 {
		if s.exact || s.resolved.Validate(args) == nil {
			return nil
		}
		w.out = append(w.out, domain.Violation{Constraint: "The arguments do not fit the input schema.", Reason: "schema"})
	}
	slices.SortStableFunc(w.out, func(a, b domain.Violation) int { return strings.Compare(a.Field, b.Field) })
	return &domain.Validation{Violations: w.out}
}

// within reports whether v holds at most *n values, counting them down,
// and notes in *numbers whether it holds a json.Number; it stops as soon
// as the bound is passed, so that its own cost is bounded.
func within(v any, n *int, numbers *bool) bool {
	if *n--; *n < 0 {
		return false
	}
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			if !within(e, n, numbers) {
				return false
			}
		}
	case []any:
		for _, e := range v {
			if !within(e, n, numbers) {
				return false
			}
		}
	case json.Number:
		*numbers = true
	}
	return true
}

// floats returns a copy of v with each json.Number as a float64, the form
// the validator reads.
func floats(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[k] = floats(e)
		}
		return m
	case []any:
		l := make([]any, len(v))
		for i, e := range v {
			l[i] = floats(e)
		}
		return l
	case json.Number:
		if f, err := v.Float64(); err == nil {
			return f
		}
	}
	return v
}

// maxDepth bounds the schemas a walk follows into each other through $ref
// and allOf, so that a schema that refers to itself ends.
const maxDepth = 64

type walk struct {
	s   *Schema
	out []domain.Violation
}

func (w *walk) add(loc []string, keyword, constraint string, value any) {
	w.out = append(w.out, domain.Violation{Field: strings.Join(loc, "/"), Pointer: jsonPointer(loc...),
		Reason: keyword, Constraint: constraint, Value: value})
}

// check records how v, at loc, does not fit schema s. A value of the wrong
// type is reported for its type alone.
func (w *walk) check(s *jsonschema.Schema, v any, loc []string, depth int) {
	if s == nil || depth > maxDepth {
		return
	}
	if s.Ref != "" {
		w.check(w.s.ref(s.Ref), v, loc, depth+1)
	}
	for _, sub := range s.AllOf {
		w.check(sub, v, loc, depth+1)
	}
	if isFalse(s) {
		w.add(loc, "false", "is not allowed", v)
		return
	}
	if types := typesOf(s); len(types) > 0 && !hasType(v, types) {
		w.add(loc, "type", "must be "+strings.Join(types, " or ")+", not "+typeOf(v), v)
		return
	}
	if s.Enum != nil && !slices.ContainsFunc(s.Enum, func(e any) bool { return equal(v, e) }) {
		w.add(loc, "enum", "must be one of "+list(s.Enum), v)
	}
	if s.Const != nil && !equal(v, *s.Const) {
		w.add(loc, "const", "must be "+list([]any{*s.Const}), v)
	}
	switch v := v.(type) {
	case float64:
		w.number(s, v, loc)
	case string:
		w.text(s, v, loc)
	case []any:
		w.array(s, v, loc, depth)
	case map[string]any:
		w.object(s, v, loc, depth)
	}
}

func (w *walk) number(s *jsonschema.Schema, v float64, loc []string) {
	bound := func(keyword string, b *float64, fails bool, words string) {
		if b != nil && fails {
			w.add(loc, keyword, words+" "+strconv.FormatFloat(*b, 'g', -1, 64), v)
		}
	}
	bound("minimum", s.Minimum, s.Minimum != nil && v < *s.Minimum, "must be at least")
	bound("maximum", s.Maximum, s.Maximum != nil && v > *s.Maximum, "must be at most")
	bound("exclusiveMinimum", s.ExclusiveMinimum, s.ExclusiveMinimum != nil && v <= *s.ExclusiveMinimum, "must be greater than")
	bound("exclusiveMaximum", s.ExclusiveMaximum, s.ExclusiveMaximum != nil && v >= *s.ExclusiveMaximum, "must be less than")
	m := s.MultipleOf
	bound("multipleOf", m, m != nil && *m > 0 && v / *m != math.Trunc(v / *m), "must be a multiple of")
}

func (w *walk) text(s *jsonschema.Schema, v string, loc []string) {
	n := utf8.RuneCountInString(v)
	if s.MinLength != nil && n < *s.MinLength {
		w.add(loc, "minLength", fmt.Sprintf("must be at least %d characters long", *s.MinLength), v)
	}
	if s.MaxLength != nil && n > *s.MaxLength {
		w.add(loc, "maxLength", fmt.Sprintf("must be at most %d characters long", *s.MaxLength), v)
	}
	if s.Pattern != "" {
		if re := w.s.pattern(s.Pattern); re != nil && !re.MatchString(v) {
			w.add(loc, "pattern", "must match the pattern "+s.Pattern, v)
		}
	}
}

func (w *walk) array(s *jsonschema.Schema, v []any, loc []string, depth int) {
	if s.MinItems != nil && len(v) < *s.MinItems {
		w.add(loc, "minItems", fmt.Sprintf("must have at least %d items", *s.MinItems), nil)
	}
	if s.MaxItems != nil && len(v) > *s.MaxItems {
		w.add(loc, "maxItems", fmt.Sprintf("must have at most %d items", *s.MaxItems), nil)
	}
	if s.UniqueItems && !unique(v) {
		w.add(loc, "uniqueItems", "must not contain duplicate items", nil)
	}
	prefix, rest := s.PrefixItems, s.Items
	if s.ItemsArray != nil { // draft-07's items as an array
		rest = s.AdditionalItems
		if prefix == nil {
			prefix = s.ItemsArray
		}
	}
	for i, e := range v {
		item := rest
		if i < len(prefix) {
			item = prefix[i]
		}
		w.check(item, e, append(loc[:len(loc):len(loc)], strconv.Itoa(i)), depth+1)
	}
}

func (w *walk) object(s *jsonschema.Schema, v map[string]any, loc []string, depth int) {
	at := func(name string) []string { return append(loc[:len(loc):len(loc)], name) }
	for _, name := range s.Required {
		if _, ok := v[name]; !ok {
			w.add(at(name), "required", "is required", nil)
		}
	}
	for name, e := range v {
		switch p, ok := s.Properties[name]; {
		case ok:
			w.check(p, e, at(name), depth+1)
		case w.s.patterned(s, name), s.AdditionalProperties == nil:
			// patternProperties are the validator's to judge
		case isFalse(s.AdditionalProperties):
			w.add(at(name), "additionalProperties", "is not a known property; remove it", e)
		default:
			w.check(s.AdditionalProperties, e, at(name), depth+1)
		}
	}
	if s.MinProperties != nil && len(v) < *s.MinProperties {
		w.add(loc, "minProperties", fmt.Sprintf("must have at least %d properties", *s.MinProperties), nil)
	}
	if s.MaxProperties != nil && len(v) > *s.MaxProperties {
		w.add(loc, "maxProperties", fmt.Sprintf("must have at most %d properties", *s.MaxProperties), nil)
	}
}

// ref returns the schema a local $ref names: the root ("#"), or one of its
// $defs or definitions; nil for any other reference.
func (s *Schema) ref(ref string) *jsonschema.Schema {
	switch {
	case ref == "#":
		return s.root
	case strings.HasPrefix(ref, "#/$defs/"):
		return s.root.Defs[strings.TrimPrefix(ref, "#/$defs/")]
	case strings.HasPrefix(ref, "#/definitions/"):
		return s.root.Definitions[strings.TrimPrefix(ref, "#/definitions/")]
	}
	return nil
}

// pattern returns the compiled form of expr, nil if it does not compile.
func (s *Schema) pattern(expr string) *regexp.Regexp {
	s.mu.Lock()
	defer s.mu.Unlock()
	re, ok := s.patterns[expr]
	if !ok {
		re, _ = regexp.Compile(expr)
		if s.patterns == nil {
			s.patterns = make(map[string]*regexp.Regexp)
		}
		s.patterns[expr] = re
	}
	return re
}

func (s *Schema) patterned(o *jsonschema.Schema, name string) bool {
	for expr := range o.PatternProperties {
		if re := s.pattern(expr); re != nil && re.MatchString(name) {
			return true
		}
	}
	return false
}

// isFalse reports whether s is the schema false, which nothing fits: one
// whose "not" is the empty schema, which everything fits.
func isFalse(s *jsonschema.Schema) bool {
	return s.Not != nil && reflect.ValueOf(*s.Not).IsZero()
}

func typesOf(s *jsonschema.Schema) []string {
	if s.Type != "" {
		return []string{s.Type}
	}
	return s.Types
}

// typeOf names the JSON type of v as a schema names types; every number
// is a "number".
func typeOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// hasType reports whether v is of one of types; an integer is a number
// whose fractional part is zero.
func hasType(v any, types []string) bool {
	got := typeOf(v)
	for _, t := range types {
		if f, ok := v.(float64); t == got || ok && t == "integer" && f == math.Trunc(f) && !math.IsInf(f, 0) {
			return true
		}
	}
	return false
}

// equal reports whether a and b are the same JSON value.
func equal(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

func unique(v []any) bool {
	seen := make(map[string]bool, len(v))
	for _, e := range v {
		b, err := json.Marshal(e)
		if err != nil || seen[string(b)] {
			return err != nil
		}
		seen[string(b)] = true
	}
	return true
}

func list(values []any) string {
	parts := make([]string, 0, len(values))
	for _, e := range values {
		b, _ := json.Marshal(e)
		parts = append(parts, string(b))
	}
	return strings.Join(parts, ", ")
}

// Cache compiles each distinct schema document once. The zero Cache is ready
// to use and safe for concurrent use.
type Cache struct {
	m sync.Map // string(doc) -> *entry
}

type entry struct {
	once sync.Once
	s    *Schema
	err  error
}

// Get returns the compiled form of doc, compiling it on first use.
func (c *Cache) Get(doc []byte) (*Schema, error) {
	e, _ := c.m.LoadOrStore(string(doc), &entry{})
	en := e.(*entry)
	en.once.Do(func() { en.s, en.err = Compile(doc) })
	return en.s, en.err
}

// Marshal returns the JSON form of a schema value of any type, for Get.
func Marshal(schema any) ([]byte, error) {
	if raw, ok := schema.(json.RawMessage); ok {
		return raw, nil
	}
	return json.Marshal(schema)
}

// emptyObject stands for absent arguments. It is never changed.
var emptyObject = map[string]any{}

// jsonPointer returns the JSON Pointer (RFC 6901) made of tokens, such as
// "/items/2/qty" for "items", "2", "qty", escaping '~' and '/' in each
// token. No tokens give "", the whole document.
func jsonPointer(tokens ...string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		for i := 0; i < len(t); i++ {
			switch t[i] {
			case '~':
				b.WriteString("~0")
			case '/':
				b.WriteString("~1")
			default:
				b.WriteByte(t[i])
			}
		}
	}
	return b.String()
}
