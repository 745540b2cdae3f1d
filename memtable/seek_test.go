package memtable

import (
	"bytes"
	"fmt"
	"testing"
)

// Every kind's From yields exactly the keys at or above start, in order,
// like All with the lower keys skipped.
func TestFrom(t *testing.T) {
	for _, kind := range []string{KindHeap, KindArena, KindOffHeap, KindBTree} {
		t.Run("kind="+kind, func(t *testing.T) {
			m, err := New(kind, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			for i := 0; i < 500; i += 2 {
				if err := m.Put([]byte(fmt.Sprintf("k%04d", i)), []byte{byte(i)}); err != nil {
					t.Fatal(err)
				}
			}
			if _, ok := m.(Seeker); !ok {
				t.Fatalf("%s is not a Seeker", kind)
			}
			for _, start := range []string{"k0000", "k0101", "k0102", "k0498", "k0499", "a", "z"} {
				var want, got [][]byte
				for k := range m.All() {
					if bytes.Compare(k, []byte(start)) >= 0 {
						want = append(want, bytes.Clone(k))
					}
				}
				for k := range From(m, []byte(start)) {
					got = append(got, bytes.Clone(k))
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("From(%s): %d keys, want %d", start, len(got), len(want))
				}
			}
		})
	}
}
