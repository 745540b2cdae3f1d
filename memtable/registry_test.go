package memtable

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// unregister removes a kind a test registered, so other tests see only
// writegc's own kinds. Registration has no public undo.
func unregister(t *testing.T, kind string) {
	t.Cleanup(func() { kinds.Remove(kind) })
}

// TestRegister: a registered kind is listed by Kinds and built by New; a
// duplicate (of a user kind or of writegc's own), an empty name, one with a
// comma or a slash, and a nil constructor panic.
func TestRegister(t *testing.T) {
	const kind = "test-counting"
	built := 0
	unregister(t, kind)
	Register(kind, func(o Options) (Memtable, error) { built++; return New(KindBTree, o) })
	if !slices.Contains(Kinds(), kind) || !slices.IsSorted(Kinds()) {
		t.Fatalf("Kinds() = %v, want it sorted and holding %s", Kinds(), kind)
	}
	m, err := New(kind, Options{})
	if err != nil || built != 1 {
		t.Fatalf("New(%s): %v, constructor called %d times", kind, err, built)
	}
	if err := m.Put([]byte("k"), []byte("v")); err != nil {
		t.Fatal(err)
	}
	m.Close()
	for name, f := range map[string]func(){
		"duplicate user kind": func() { Register(kind, newHeap) },
		"duplicate own kind":  func() { Register(KindArena, newHeap) },
		"empty name":          func() { Register("", newHeap) },
		"comma in name":       func() { Register("a,b", newHeap) },
		"slash in name":       func() { Register("a/b", newHeap) },
		"nil constructor":     func() { Register("test-nil", nil) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
	if slices.Contains(Kinds(), "test-nil") {
		t.Fatal("a refused registration was kept")
	}
}

// TestValidKindName: the documented set, [a-z0-9][a-z0-9._-]* of at most
// MaxKindNameLen bytes, and nothing else; writegc's own kinds pass.
func TestValidKindName(t *testing.T) {
	long := strings.Repeat("k", MaxKindNameLen)
	for _, name := range []string{KindHeap, KindArena, KindOffHeap, KindBTree, "a", "0", "my-store.v2_x", long} {
		if err := ValidKindName(name); err != nil {
			t.Errorf("ValidKindName(%q) = %v, want nil", name, err)
		}
	}
	for _, name := range []string{"", long + "k", "a/b", "a,b", "a b", "a\tb", "Arena", "-a", ".a", "_a", "a=b", "a:b", "é", "a\x00"} {
		if err := ValidKindName(name); !errors.Is(err, ErrKindName) {
			t.Errorf("ValidKindName(%q) = %v, want ErrKindName", name, err)
		}
	}
}
