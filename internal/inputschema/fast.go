package inputschema

import (
	"encoding/json"
	"math"
	"unicode/utf8"
)

// fast is a schema of the keywords tool input schemas use most, checked
// without allocating: type, properties, required, additionalProperties,
// items, enum of scalars, the numeric bounds, minLength, maxLength,
// minItems, maxItems, and annotations. A schema with any other keyword has
// no fast form, and every check goes to the full validator. The fast form
// only ever says that arguments fit; when it says they may not, the full
// validator decides and explains.
type fast struct {
	types    uint8 // a bit per JSON type; 0 means any
	props    map[string]*fast
	required []string
	// additional is the schema of properties not in props: nil allows
	// them, noneAllowed refuses them.
	additional *fast
	items      *fast
	enum       []any // scalars only
	hasEnum    bool
	min, max   *float64
	exMin      *float64
	exMax      *float64
	minLen     int
	maxLen     int // -1 means no bound
	minItems   int
	maxItems   int // -1 means no bound
}

// JSON types, as bits of fast.types.
const (
	tNull uint8 = 1 << iota
	tBool
	tInt
	tNumber
	tString
	tArray
	tObject
)

// noneAllowed is the additional-properties schema of false.
var noneAllowed = &fast{}

// annotations are keywords that do not constrain a value.
var annotations = map[string]bool{
	"$schema": true, "$id": true, "$comment": true, "title": true, "description": true,
	"default": true, "examples": true, "deprecated": true, "readOnly": true, "writeOnly": true,
	"format": true, // an annotation in draft 2020-12 unless format assertion is on, as here
}

// compileFast returns the fast form of a schema document, or nil if it uses
// a keyword the fast form does not know.
func compileFast(doc []byte) *fast {
	var root any
	if err := json.Unmarshal(doc, &root); err != nil {
		return nil
	}
	f, ok := fastOf(root, 0)
	if !ok {
		return nil
	}
	return f
}

func fastOf(v any, depth int) (*fast, bool) {
	if depth > 16 {
		return nil, false
	}
	if b, ok := v.(bool); ok {
		if b {
			return &fast{maxLen: -1, maxItems: -1}, true
		}
		return nil, false // false schemas are rare: leave them to the validator
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	f := &fast{maxLen: -1, maxItems: -1}
	for k, x := range m {
		switch {
		case annotations[k]:
		case k == "type":
			if !f.setTypes(x) {
				return nil, false
			}
		case k == "properties":
			ps, ok := x.(map[string]any)
			if !ok {
				return nil, false
			}
			f.props = make(map[string]*fast, len(ps))
			for name, p := range ps {
				pf, ok := fastOf(p, depth+1)
				if !ok {
					return nil, false
				}
				f.props[name] = pf
			}
		case k == "required":
			rs, ok := x.([]any)
			if !ok {
				return nil, false
			}
			for _, r := range rs {
				s, ok := r.(string)
				if !ok {
					return nil, false
				}
				f.required = append(f.required, s)
			}
		case k == "additionalProperties":
			if b, ok := x.(bool); ok {
				if !b {
					f.additional = noneAllowed
				}
				continue
			}
			af, ok := fastOf(x, depth+1)
			if !ok {
				return nil, false
			}
			f.additional = af
		case k == "items":
			it, ok := fastOf(x, depth+1)
			if !ok {
				return nil, false
			}
			f.items = it
		case k == "enum":
			es, ok := x.([]any)
			if !ok {
				return nil, false
			}
			for _, e := range es {
				switch e.(type) {
				case nil, bool, float64, string:
				default:
					return nil, false
				}
			}
			f.enum, f.hasEnum = es, true
		case k == "minimum", k == "maximum", k == "exclusiveMinimum", k == "exclusiveMaximum":
			n, ok := x.(float64)
			if !ok {
				return nil, false
			}
			switch k {
			case "minimum":
				f.min = &n
			case "maximum":
				f.max = &n
			case "exclusiveMinimum":
				f.exMin = &n
			default:
				f.exMax = &n
			}
		case k == "minLength", k == "maxLength", k == "minItems", k == "maxItems":
			n, ok := x.(float64)
			if !ok || n < 0 || n != math.Trunc(n) || n > math.MaxInt32 {
				return nil, false
			}
			switch k {
			case "minLength":
				f.minLen = int(n)
			case "maxLength":
				f.maxLen = int(n)
			case "minItems":
				f.minItems = int(n)
			default:
				f.maxItems = int(n)
			}
		default:
			return nil, false
		}
	}
	return f, true
}

func (f *fast) setTypes(x any) bool {
	add := func(name any) bool {
		switch name {
		case "null":
			f.types |= tNull
		case "boolean":
			f.types |= tBool
		case "integer":
			f.types |= tInt
		case "number":
			f.types |= tNumber | tInt
		case "string":
			f.types |= tString
		case "array":
			f.types |= tArray
		case "object":
			f.types |= tObject
		default:
			return false
		}
		return true
	}
	if list, ok := x.([]any); ok {
		for _, t := range list {
			if !add(t) {
				return false
			}
		}
		return len(list) > 0
	}
	return add(x)
}

// fits reports whether v, decoded from JSON, certainly fits f. It allocates
// nothing.
func (f *fast) fits(v any) bool {
	if f == noneAllowed {
		return false
	}
	var t uint8
	var num float64
	switch x := v.(type) {
	case nil:
		t = tNull
	case bool:
		t = tBool
	case float64:
		num, t = x, tNumber
	case json.Number:
		n, err := x.Float64()
		if err != nil {
			return false
		}
		num, t = n, tNumber
	case string:
		t = tString
		if n := utf8.RuneCountInString(x); n < f.minLen || f.maxLen >= 0 && n > f.maxLen {
			return false
		}
	case []any:
		t = tArray
		if len(x) < f.minItems || f.maxItems >= 0 && len(x) > f.maxItems {
			return false
		}
		if f.items != nil {
			for _, e := range x {
				if !f.items.fits(e) {
					return false
				}
			}
		}
	case map[string]any:
		t = tObject
		for _, name := range f.required {
			if _, ok := x[name]; !ok {
				return false
			}
		}
		for name, val := range x {
			if p, ok := f.props[name]; ok {
				if !p.fits(val) {
					return false
				}
			} else if f.additional != nil && !f.additional.fits(val) {
				return false
			}
		}
	default:
		return false
	}
	if t == tNumber && num == math.Trunc(num) && !math.IsInf(num, 0) {
		t = tNumber | tInt
	}
	if f.types != 0 && f.types&t == 0 {
		return false
	}
	if t&tNumber != 0 {
		if f.min != nil && num < *f.min || f.max != nil && num > *f.max ||
			f.exMin != nil && num <= *f.exMin || f.exMax != nil && num >= *f.exMax {
			return false
		}
	}
	if f.hasEnum {
		if t&(tArray|tObject) != 0 {
			return false // the enum holds scalars only
		}
		for _, e := range f.enum {
			switch ev := e.(type) {
			case float64:
				if t&tNumber != 0 && ev == num {
					return true
				}
			default:
				if t&tNumber == 0 && e == v {
					return true
				}
			}
		}
		return false
	}
	return true
}
