// Package ptrcheck tells whether a type's values hold Go pointers, for the
// tests that pin down arena invariants: memory the collector never scans
// must hold none. It is pure reflection, safe for concurrent use.
package ptrcheck

import "reflect"

// HasPointers reports whether values of t contain Go pointers (pointers,
// unsafe pointers, maps, channels, funcs, interfaces, slices or strings,
// directly or in arrays and struct fields).
func HasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.UnsafePointer, reflect.Map, reflect.Chan, reflect.Func,
		reflect.Interface, reflect.Slice, reflect.String:
		return true
	case reflect.Array:
		return t.Len() > 0 && HasPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if HasPointers(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}
