package memtable

import (
	"bytes"
	"testing"

	"github.com/writegc/writegc/arena"

	"github.com/writegc/writegc/internal/workload"
)

// getDirect is skiplist.get hand-specialised for the arena layout (no type
// parameters), to measure what sharing one generic algorithm between the
// heap and arena layouts costs. It must stay a faithful copy of get and
// findSplice.
func getDirect(s *skiplist[uint64, arena.Handle, arenaStore], key []byte) ([]byte, bool) {
	st := s.store
	kp := keyPrefix(key)
	x := s.head
	var next uint64
	for level := int(s.height.Load()) - 1; level >= 0; level-- {
		for {
			next = st.next(x, level)
			if next == 0 {
				break
			}
			if np := uint32(next >> 32); np > kp || np == kp && bytes.Compare(st.key(next), key) >= 0 {
				break
			}
			x = next
		}
	}
	if next != 0 && uint32(next>>32) == kp && bytes.Equal(st.key(next), key) {
		return st.value(next), true
	}
	return nil, false
}

// BenchmarkSearch compares the generic search with the specialised copy on
// one arena memtable of 1M keys (the figure quoted in the package doc).
func BenchmarkSearch(b *testing.B) {
	const keys = 1_000_000
	if testing.Short() {
		b.Skip("1M keys: skipped under -short")
	}
	ks := workload.NewKeys(keys, workload.KeySize, 1)
	m, _ := New("arena", Options{})
	defer m.Close()
	v := workload.Value(100)
	for i := range keys {
		m.Put(ks.Key(i), v)
	}
	t := m.(*arenaTable)
	for _, impl := range []string{"generic", "direct"} {
		b.Run("impl="+impl, func(b *testing.B) {
			x := uint64(7)
			for range b.N {
				x ^= x << 13
				x ^= x >> 7
				x ^= x << 17
				k := ks.Key(int(x % keys))
				var ok bool
				if impl == "generic" {
					_, ok = t.sl.get(k)
				} else {
					_, ok = getDirect(&t.sl, k)
				}
				if !ok {
					b.Fatal("missing key")
				}
			}
		})
	}
}
