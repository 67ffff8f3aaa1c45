// Package inputschema checks tool arguments against a tool's JSON input
// schema and reports what is wrong as a *domain.Validation: which fields,
// and what each must be, in words that never repeat the offending value.
//
// Both adapters use it, so a go-sdk server and a mcp-go server describe the
// same bad arguments the same way. It uses santhosh-tekuri/jsonschema, the
// validator mcp-go itself uses, and never loads a schema from a file or the
// network.
package inputschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/mcperr/mcperr/domain"
)

// Schema is a compiled input schema.
type Schema struct {
	s *jsonschema.Schema
}

// Compile compiles a JSON Schema document (draft 2020-12 unless it says
// otherwise). References to other documents are refused.
func Compile(doc []byte) (*Schema, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, fmt.Errorf("input schema is not JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	const loc = "mcperr:///input-schema.json"
	if err := c.AddResource(loc, v); err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	s, err := c.Compile(loc)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	return &Schema{s: s}, nil
}

type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("input schema refers to %q: mcperr does not load other documents", url)
}

// The bounds of a check: arguments over either are not checked, and count
// as fitting, so that the work a failed call costs stays small whatever a
// client sends (validating 10 MB of wrong items took seconds of CPU and
// gigabytes of allocations).
const (
	// maxBytes bounds the encoded arguments checked.
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
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
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
	if n := maxValues; !within(args, &n) {
		return nil
	}
	err := s.s.Validate(args)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return &domain.Validation{Violations: []domain.Violation{{Constraint: "The arguments do not fit the input schema.", Reason: "schema"}}}
	}
	var out []domain.Violation
	collect(ve, args, &out)
	if len(out) == 0 {
		out = append(out, domain.Violation{Constraint: "The arguments do not fit the input schema.", Reason: "schema"})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Field < out[j].Field })
	return &domain.Validation{Violations: out}
}

// within reports whether v holds at most *n values, counting them down; it
// stops as soon as the bound is passed, so that its own cost is bounded.
func within(v any, n *int) bool {
	*n--
	if *n < 0 {
		return false
	}
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			if !within(e, n) {
				return false
			}
		}
	case []any:
		for _, e := range v {
			if !within(e, n) {
				return false
			}
		}
	}
	return true
}

// collect appends one violation per leaf error.
func collect(ve *jsonschema.ValidationError, args any, out *[]domain.Violation) {
	if len(ve.Causes) > 0 {
		for _, c := range ve.Causes {
			collect(c, args, out)
		}
		return
	}
	loc := ve.InstanceLocation
	switch k := ve.ErrorKind.(type) {
	case *kind.Required:
		for _, name := range k.Missing {
			*out = append(*out, domain.Violation{Field: field(loc, name), Pointer: pointer(loc, name), Reason: "required", Constraint: "is required"})
		}
		return
	case *kind.AdditionalProperties:
		for _, name := range k.Properties {
			*out = append(*out, domain.Violation{Field: field(loc, name), Pointer: pointer(loc, name), Reason: "additionalProperties",
				Constraint: "is not a known property; remove it",
				Value:      valueAt(args, append(loc[:len(loc):len(loc)], name))})
		}
		return
	}
	*out = append(*out, domain.Violation{Field: field(loc, ""), Pointer: jsonPointer(loc...), Reason: reason(ve.ErrorKind),
		Constraint: constraint(ve.ErrorKind), Value: valueAt(args, loc)})
}

// constraint says what a value must be, without repeating the value.
func constraint(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Type:
		return fmt.Sprintf("must be %s, not %s", strings.Join(k.Want, " or "), k.Got)
	case *kind.Enum, *kind.Const:
		return kindText(k)
	case *kind.Pattern:
		return fmt.Sprintf("must match the pattern %s", k.Want)
	case *kind.Format:
		return fmt.Sprintf("must be a valid %s", k.Want)
	case *kind.MinLength:
		return fmt.Sprintf("must be at least %d characters long", k.Want)
	case *kind.MaxLength:
		return fmt.Sprintf("must be at most %d characters long", k.Want)
	case *kind.Minimum:
		return fmt.Sprintf("must be at least %v", rat(k.Want))
	case *kind.Maximum:
		return fmt.Sprintf("must be at most %v", rat(k.Want))
	case *kind.ExclusiveMinimum:
		return fmt.Sprintf("must be greater than %v", rat(k.Want))
	case *kind.ExclusiveMaximum:
		return fmt.Sprintf("must be less than %v", rat(k.Want))
	case *kind.MultipleOf:
		return fmt.Sprintf("must be a multiple of %v", rat(k.Want))
	case *kind.MinItems:
		return fmt.Sprintf("must have at least %d items", k.Want)
	case *kind.MaxItems:
		return fmt.Sprintf("must have at most %d items", k.Want)
	case *kind.UniqueItems:
		return "must not contain duplicate items"
	case *kind.MinProperties:
		return fmt.Sprintf("must have at least %d properties", k.Want)
	case *kind.MaxProperties:
		return fmt.Sprintf("must have at most %d properties", k.Want)
	case *kind.FalseSchema:
		return "is not allowed"
	}
	return "does not satisfy '" + strings.Join(k.KeywordPath(), "/") + "' in the input schema"
}

// reason is the keyword of the schema that k fails, such as "minimum";
// "schema" for a false schema.
func reason(k jsonschema.ErrorKind) string {
	if path := k.KeywordPath(); len(path) > 0 {
		return path[len(path)-1]
	}
	return "schema"
}

// pointer is the JSON Pointer of the property name of the object at loc.
func pointer(loc []string, name string) string {
	return jsonPointer(append(loc[:len(loc):len(loc)], name)...)
}

// rat formats a schema bound such as 1 or 0.5.
func rat(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// kindText is the library's own English text, for kinds whose text names
// only what the schema allows.
func kindText(k jsonschema.ErrorKind) string {
	return k.LocalizedString(englishPrinter)
}

// field joins an instance location and a property name into a path such as
// "items/2/qty".
func field(loc []string, name string) string {
	parts := loc
	if name != "" {
		parts = append(loc[:len(loc):len(loc)], name)
	}
	return strings.Join(parts, "/")
}

// valueAt returns the value at loc in args, for the log only.
func valueAt(args any, loc []string) any {
	v := args
	for _, p := range loc {
		switch c := v.(type) {
		case map[string]any:
			v = c[p]
		case []any:
			var i int
			if _, err := fmt.Sscan(p, &i); err != nil || i < 0 || i >= len(c) {
				return nil
			}
			v = c[i]
		default:
			return nil
		}
	}
	return v
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

// englishPrinter renders the validator's own texts in English.
var englishPrinter = message.NewPrinter(language.English)

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
