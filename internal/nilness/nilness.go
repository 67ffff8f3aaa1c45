// Package nilness tells a nil value of any kind, for the checks that refuse
// a nil filter, reporter or handler when a server is put together.
package nilness

import (
	"reflect"
	"strconv"

	"github.com/mcperr/mcperr/codes"
)

// IsNil reports whether v is nil, or an interface holding a nil pointer,
// function, map, channel or slice: a value whose methods would panic or do
// nothing when called.
func IsNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Func, reflect.Map, reflect.Chan, reflect.Slice, reflect.Interface, reflect.UnsafePointer:
		return rv.IsNil()
	}
	return false
}

// CheckFilters returns the *codes.DefinitionError of the first of filters
// that cannot serve, naming its place and what it was given to: a nil one
// (a nil function or pointer included, NIL_VALUE), or one that filter.Is
// or filter.Catch could not build, with the mistake it was built with.
func CheckFilters[F any](to string, filters []F) error {
	for i, f := range filters {
		if IsNil(f) {
			return &codes.DefinitionError{Mistake: codes.NilValue,
				Reason: "filter " + strconv.Itoa(i) + " given to " + to + " is nil; pass a filter.Filter, such as a filter.Catch"}
		}
		if m, ok := any(f).(interface{ DefinitionError() *codes.DefinitionError }); ok {
			de := m.DefinitionError()
			return &codes.DefinitionError{Mistake: de.Mistake, Reason: "filter " + strconv.Itoa(i) + " given to " + to + ": " + de.Reason}
		}
	}
	return nil
}
