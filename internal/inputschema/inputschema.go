// Package inputschema checks tool arguments against a tool's JSON input
// schema, the same way for both adapters, and reports what is wrong as a
// *domain.Validation: which fields, and what each must be, never the
// offending value. It walks the schema itself for the keywords tool schemas
// use (type, enum, const, the bounds, pattern, required, properties,
// additionalProperties, items, allOf, local $ref); where the walk finds
// nothing, google/jsonschema-go, the engine both SDKs link, decides, and a
// failure of another keyword is reported for the arguments as a whole. It
// never loads a schema from a file or the network.
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
	exact    bool     // the walk alone decides: every keyword is one it checks
	patterns sync.Map // expr -> *regexp.Regexp, compiled on first use
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
	r, err := root.Resolve(&jsonschema.ResolveOptions{Loader: func(uri *url.URL) (*jsonschema.Schema, error) {
		return nil, fmt.Errorf("input schema refers to %q: mcperr does not load other documents", uri)
	}})
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	var raw any
	_ = json.Unmarshal(doc, &raw) // it decoded above
	return &Schema{resolved: r, root: &root, exact: walked(raw, 0)}, nil
}

// walked reports whether the schema v, decoded JSON, holds only keywords the
// walk checks and annotations: if so, the walk alone decides.
func walked(v any, depth int) bool {
	if b, ok := v.(bool); ok || depth > maxDepth {
		return ok && b // the false schema refuses all, and the walk says so
	}
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for k, x := range m {
		var subs []any // the schemas of keyword k
		switch k {
		case "type", "enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
			"minLength", "maxLength", "pattern", "minItems", "maxItems", "uniqueItems", "required", "minProperties", "maxProperties",
			"title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly", "format", "$schema", "$id", "$comment":
		case "items", "additionalItems", "prefixItems", "allOf", "additionalProperties":
			switch x := x.(type) {
			case bool: // true, or false, which the walk reports
			case []any:
				subs = x
			default:
				subs = []any{x}
			}
		case "properties", "$defs", "definitions":
			defs, ok := x.(map[string]any)
			if !ok {
				return false
			}
			subs = slices.Collect(maps.Values(defs))
		case "$ref":
			if ref, _ := x.(string); ref != "#" && !strings.HasPrefix(ref, "#/$defs/") && !strings.HasPrefix(ref, "#/definitions/") {
				return false
			}
		default:
			return false
		}
		if slices.ContainsFunc(subs, func(s any) bool { return !walked(s, depth+1) }) {
			return false
		}
	}
	return true
}

// checkTypes reports a type name JSON Schema does not know, such as "numbr",
// in s or the schemas in it, which every value would fail.
func checkTypes(s *jsonschema.Schema, depth int) error {
	if s == nil || depth > maxDepth {
		return nil
	}
	for _, t := range typesOf(s) {
		if !slices.Contains([]string{"null", "boolean", "object", "array", "number", "string", "integer"}, t) {
			return fmt.Errorf("unknown type %q; use one of null, boolean, object, array, number, string, integer", t)
		}
	}
	subs := []*jsonschema.Schema{s.Items, s.AdditionalItems, s.Contains, s.UnevaluatedItems, s.AdditionalProperties,
		s.PropertyNames, s.UnevaluatedProperties, s.Not, s.If, s.Then, s.Else, s.ContentSchema}
	subs = slices.Concat(subs, s.PrefixItems, s.ItemsArray, s.AllOf, s.AnyOf, s.OneOf)
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

// The bounds of a check: arguments over either are not checked, and count
// as fitting, so that a failed call costs little whatever a client sends
// (validating 10 MB of wrong items took seconds of CPU and gigabytes).
const (
	maxBytes  = 64 << 10
	maxValues = 4096 // values of any type in the decoded arguments
	// maxDepth bounds the schemas a walk follows into each other through
	// $ref and allOf, so that a schema that refers to itself ends.
	maxDepth = 64
)

// CheckJSON checks raw JSON arguments, empty or null ones counting as an
// empty object: nil when they fit, are too large to check, or s is nil.
func (s *Schema) CheckJSON(args []byte) *domain.Validation {
	if s == nil || len(args) > maxBytes {
		return nil
	}
	var v any // nil for empty arguments or null, which Check reads as {}
	if args = bytes.TrimSpace(args); len(args) > 0 && json.Unmarshal(args, &v) != nil {
		return &domain.Validation{Violations: []domain.Violation{{Constraint: "The arguments must be a JSON object.", Reason: "type"}}}
	}
	return s.Check(v)
}

// Check is CheckJSON for arguments already decoded from JSON: maps, slices,
// strings, float64 or json.Number, bools, nil.
func (s *Schema) Check(args any) *domain.Validation {
	if args == nil {
		args = emptyObject
	}
	n, numbers := maxValues, false
	if s == nil || !within(args, &n, &numbers) {
		return nil
	}
	if numbers {
		args = floats(args)
	}
	// The walk reports only what fails, so the validator is asked only when it
	// finds nothing (FuzzCheckAgreesWithValidator holds both to one verdict).
	w := walk{s: s}
	var path [maxDepth + 1]string
	w.check(s.root, args, path[:0], 0)
	if len(w.out) == 0 {
		if s.exact || s.resolved.Validate(args) == nil {
			return nil
		}
		w.add(nil, "schema", "The arguments do not fit the input schema.", nil)
	}
	slices.SortStableFunc(w.out, func(a, b domain.Violation) int { return strings.Compare(a.Field, b.Field) })
	w.v.Violations = w.out
	return &w.v.Validation
}

// emptyObject stands for absent arguments. It is never changed.
var emptyObject = map[string]any{}

// within reports whether v holds at most *n values, counting them down and
// stopping past the bound, to bound its cost; *numbers notes a json.Number.
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

// floats copies v with each json.Number as a float64, the validator's form.
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

type walk struct {
	s   *Schema
	out []domain.Violation
	v   *refusal // made with the first violation
}

// refusal is a Validation and room for its first violation, in one allocation.
type refusal struct {
	domain.Validation
	first [1]domain.Violation
}

func (w *walk) add(loc []string, keyword, constraint string, value any) {
	if w.v == nil {
		w.v = new(refusal)
		w.out = w.v.first[:0]
	}
	w.out = append(w.out, domain.Violation{Field: strings.Join(loc, "/"), Pointer: jsonPointer(loc...),
		Reason: keyword, Constraint: constraint, Value: value})
}

// check records how v, at loc, does not fit s: if its type is wrong, only that.
func (w *walk) check(s *jsonschema.Schema, v any, loc []string, depth int) {
	if s == nil || depth > maxDepth {
		return
	}
	if s.Ref != "" { // the root, $defs and definitions; others are the validator's
		var target *jsonschema.Schema
		if s.Ref == "#" {
			target = w.s.root
		} else if name, ok := strings.CutPrefix(s.Ref, "#/$defs/"); ok {
			target = w.s.root.Defs[name]
		} else if name, ok := strings.CutPrefix(s.Ref, "#/definitions/"); ok {
			target = w.s.root.Definitions[name]
		}
		w.check(target, v, loc, depth+1)
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
	// A child's location shares loc's array: a sibling's overwrites it only
	// once the child is done, and add copies what it keeps.
	at := func(name string) []string { return append(loc, name) }
	// sized reports a length or count n below *lo or above *hi, in format's words.
	sized := func(n int, lo, hi *int, loKeyword, hiKeyword, format string, value any) {
		if lo != nil && n < *lo {
			w.add(loc, loKeyword, fmt.Sprintf(format, "least", *lo), value)
		}
		if hi != nil && n > *hi {
			w.add(loc, hiKeyword, fmt.Sprintf(format, "most", *hi), value)
		}
	}
	switch x := v.(type) {
	case float64:
		bound := func(keyword string, b *float64, fails bool, words string) {
			if fails {
				w.add(loc, keyword, words+" "+strconv.FormatFloat(*b, 'g', -1, 64), v)
			}
		}
		bound("minimum", s.Minimum, s.Minimum != nil && x < *s.Minimum, "must be at least")
		bound("maximum", s.Maximum, s.Maximum != nil && x > *s.Maximum, "must be at most")
		bound("exclusiveMinimum", s.ExclusiveMinimum, s.ExclusiveMinimum != nil && x <= *s.ExclusiveMinimum, "must be greater than")
		bound("exclusiveMaximum", s.ExclusiveMaximum, s.ExclusiveMaximum != nil && x >= *s.ExclusiveMaximum, "must be less than")
		m := s.MultipleOf
		bound("multipleOf", m, m != nil && *m > 0 && x / *m != math.Trunc(x / *m), "must be a multiple of")
	case string:
		sized(utf8.RuneCountInString(x), s.MinLength, s.MaxLength, "minLength", "maxLength",
			"must be at %s %d characters long", v)
		if s.Pattern != "" {
			if re := w.s.pattern(s.Pattern); re != nil && !re.MatchString(x) {
				w.add(loc, "pattern", "must match the pattern "+s.Pattern, v)
			}
		}
	case []any:
		sized(len(x), s.MinItems, s.MaxItems, "minItems", "maxItems", "must have at %s %d items", nil)
		if s.UniqueItems && !unique(x) {
			w.add(loc, "uniqueItems", "must not contain duplicate items", nil)
		}
		prefix, rest := s.PrefixItems, s.Items
		if s.ItemsArray != nil { // draft-07's items as an array
			rest = s.AdditionalItems
			if prefix == nil {
				prefix = s.ItemsArray
			}
		}
		for i, e := range x {
			item := rest
			if i < len(prefix) {
				item = prefix[i]
			}
			w.check(item, e, at(strconv.Itoa(i)), depth+1)
		}
	case map[string]any:
		for _, name := range s.Required {
			if _, ok := x[name]; !ok {
				w.add(at(name), "required", "is required", nil)
			}
		}
		for name, e := range x {
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
		sized(len(x), s.MinProperties, s.MaxProperties, "minProperties", "maxProperties",
			"must have at %s %d properties", nil)
	}
}

// pattern returns the compiled form of expr, nil if it does not compile.
func (s *Schema) pattern(expr string) *regexp.Regexp {
	if re, ok := s.patterns.Load(expr); ok {
		return re.(*regexp.Regexp)
	}
	re, _ := regexp.Compile(expr)
	s.patterns.Store(expr, re)
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

// typeOf names v's JSON type as a schema does; every number is a "number".
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

// hasType reports whether v is of one of types; an integer is a whole number.
func hasType(v any, types []string) bool {
	got := typeOf(v)
	f, isNumber := v.(float64)
	return slices.ContainsFunc(types, func(t string) bool {
		return t == got || isNumber && t == "integer" && f == math.Trunc(f) && !math.IsInf(f, 0)
	})
}

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

// jsonPointer returns the JSON Pointer (RFC 6901) made of tokens, such as
// "/items/2/qty", escaping '~' and '/'; no tokens give "", the whole document.
func jsonPointer(tokens ...string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

// Cache compiles each distinct schema document once. The zero Cache is ready
// to use and safe for concurrent use.
type Cache struct{ m sync.Map } // string(doc) -> *entry

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
