package registry

import (
	"slices"
	"strings"
	"testing"
)

// TestOf: kinds are listed sorted and found; a second Add of a kind panics
// naming who; Remove forgets a kind.
func TestOf(t *testing.T) {
	var r Of[int]
	if ks := r.Kinds(); len(ks) != 0 {
		t.Fatalf("zero Of lists %v", ks)
	}
	r.Add("test: Add", "b", 2)
	r.Add("test: Add", "a", 1)
	if ks := r.Kinds(); !slices.Equal(ks, []string{"a", "b"}) {
		t.Fatalf("Kinds() = %v, want [a b]", ks)
	}
	if v, ok := r.Lookup("b"); !ok || v != 2 {
		t.Fatalf("Lookup(b) = %v, %v", v, ok)
	}
	func() {
		defer func() {
			if p, _ := recover().(string); !strings.Contains(p, `test: Add: kind "a" registered twice`) {
				t.Errorf("second Add: panic %q", p)
			}
		}()
		r.Add("test: Add", "a", 3)
	}()
	r.Remove("a")
	if _, ok := r.Lookup("a"); ok || !slices.Equal(r.Kinds(), []string{"b"}) {
		t.Fatalf("after Remove(a): Kinds() = %v", r.Kinds())
	}
}
