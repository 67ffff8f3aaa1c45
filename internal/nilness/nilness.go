// Package nilness tells a nil value of any kind, for the checks that refuse
// a nil filter, reporter or handler when a server is put together.
package nilness

import "reflect"

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
