package memtable

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
)

// largeFill is a value of n bytes all equal to b, so a torn or partly
// copied value shows as a mix of bytes.
func largeFill(n int, b byte) []byte { return bytes.Repeat([]byte{b}, n) }

// TestLargeValueSizes: values on both sides of largeValue (putLarge copies
// while it searches) read back whole, and Size charges an insert and an
// overwrite of a large value what put charges for a small one: the record
// (arena: header, key and value; heap: box and value) plus, for an insert,
// the node.
func TestLargeValueSizes(t *testing.T) {
	for _, kind := range []string{"heap", "arena", "offheap"} {
		t.Run(kind, func(t *testing.T) {
			m := newKind(t, kind)
			for i, n := range []int{largeValue - 1, largeValue, largeValue + 1, 10 << 10, 300 << 10} {
				key := fmt.Appendf(nil, "key-%d", i)
				rec := int64(recordHdr + len(key) + n)
				node := func(d int64) bool { return d >= offTower+8 && d <= offTower+8*maxHeight && d%8 == 0 }
				if kind == "heap" {
					rec = 24 + int64(n)
					node = func(d int64) bool {
						d -= heapNodeBytes + int64(len(key))
						return d >= 8 && d <= 8*maxHeight && d%8 == 0
					}
				}
				before := m.Size()
				if err := m.Put(key, largeFill(n, byte(i))); err != nil {
					t.Fatal(err)
				}
				if d := m.Size() - before - rec; !node(d) {
					t.Fatalf("%d B: insert charged %d B beside the record's %d", n, d, rec)
				}
				before = m.Size()
				if err := m.Put(key, largeFill(n, byte(i+100))); err != nil {
					t.Fatal(err)
				}
				if d := m.Size() - before; d != rec {
					t.Fatalf("%d B: overwrite charged %d B, want %d", n, d, rec)
				}
				if v, ok := m.Get(key); !ok || !bytes.Equal(v, largeFill(n, byte(i+100))) {
					t.Fatalf("%d B: Get after overwrite: ok %v, %d B", n, ok, len(v))
				}
			}
			if m.Len() != 5 {
				t.Fatalf("Len = %d, want 5", m.Len())
			}
		})
	}
}

// TestLargeConcurrentSameKeys: writers race to insert and overwrite the same
// few keys with large values, so putLarge loses CASes and hands its record
// to the winner's node; every value read is one writer's whole value.
func TestLargeConcurrentSameKeys(t *testing.T) {
	for _, kind := range []string{"heap", "arena", "offheap"} {
		t.Run(kind, func(t *testing.T) {
			m := newKind(t, kind)
			const writers, rounds, keys = 4, 30, 40
			var wg sync.WaitGroup
			for w := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for r := range rounds {
						for k := range keys {
							v := largeFill(largeValue+(w*keys+k)%3000, byte(1+w))
							if err := m.Put(fmt.Appendf(nil, "k%03d-%d", k, r/10), v); err != nil {
								t.Error(err)
								return
							}
						}
					}
				}()
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 20 {
					for k, v := range m.All() {
						if len(v) < largeValue || v[0] < 1 || v[0] > writers || !bytes.Equal(v, largeFill(len(v), v[0])) {
							t.Errorf("key %q: torn value of %d B", k, len(v))
							return
						}
					}
				}
			}()
			wg.Wait()
			if m.Len() != keys*rounds/10 {
				t.Fatalf("Len = %d, want %d", m.Len(), keys*rounds/10)
			}
			for k, v := range m.All() {
				if !bytes.Equal(v, largeFill(len(v), v[0])) {
					t.Fatalf("key %q: torn value", k)
				}
			}
		})
	}
}
