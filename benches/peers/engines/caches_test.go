package engines

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/writegc/writegc/gcstress"
)

// TestCachesBounded: fastcache, otter and shardmap under a 1 MiB budget
// take 20K 116 B entries (2.3 MB) and stay bounded: otter's and
// shardmap's key+value bytes at Close within the budget, with evictions
// counted and the oldest key gone, the newest kept; fastcache's chunks
// are reported as off-heap bytes, within its 32 MiB floor. Each reports
// the entries it holds, fewer than were Put.
func TestCachesBounded(t *testing.T) {
	const (
		budget = 1 << 20
		n      = 20_000
	)
	s := gcstress.Scenario{Value: 100}
	o := DefaultOptions()
	o.FastcacheBudget, o.OtterBudget, o.ShardmapBudget = budget, budget, budget
	newE := map[string]func() (gcstress.Engine, error){
		KindFastcache: func() (gcstress.Engine, error) { return NewFastcache(s, o) },
		KindOtter:     func() (gcstress.Engine, error) { return NewOtter(s, o) },
		KindShardmap:  func() (gcstress.Engine, error) { return NewShardmap(s, o) },
	}
	key := func(i int) []byte { return []byte(fmt.Sprintf("key-%012d", i)) }
	for kind, mk := range newE {
		t.Run(kind, func(t *testing.T) {
			e, err := mk()
			if err != nil {
				t.Fatal(err)
			}
			val := bytes.Repeat([]byte{'v'}, 100)
			for i := range n {
				if err := e.Put(key(i), val); err != nil {
					t.Fatal(err)
				}
			}
			g := e.(gcstress.Getter)
			if v, ok, err := g.Get(key(n - 1)); err != nil || !ok || !bytes.Equal(v, val) {
				t.Errorf("newest key: %q, %v, %v", v, ok, err)
			}
			if kind != KindFastcache { // fastcache's 32 MiB floor holds all 20K
				if _, ok, _ := g.Get(key(0)); ok {
					t.Errorf("oldest key still held under a %d B budget", budget)
				}
			}
			open := e.(gcstress.StatsEngine).Stats()
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			st := e.(gcstress.StatsEngine).Stats()
			if st.Entries <= 0 || st.Entries > n {
				t.Errorf("entries %d, want 1..%d", st.Entries, n)
			}
			switch kind {
			case KindFastcache:
				if open.OffHeapBytes <= 0 || open.OffHeapBytes > 32<<20 || st.OffHeapBytes != open.OffHeapBytes {
					t.Errorf("off-heap bytes %d open, %d after Close: want the chunks, 1..32MiB", open.OffHeapBytes, st.OffHeapBytes)
				}
			default:
				if st.MemtableBytes <= 0 || st.MemtableBytes > budget || st.Flushes == 0 || st.Entries >= n || st.OffHeapBytes != 0 {
					t.Errorf("stats %+v: want key+value bytes within %d, evictions, fewer entries than %d, nothing off-heap", st, budget, n)
				}
			}
			if notes := e.(gcstress.NoteEngine).Notes(); notes["budget_bytes"] != budget || notes["puts"] != n {
				t.Errorf("notes %v: want budget_bytes %d and %d puts", notes, budget, n)
			}
		})
	}
}

// TestFastcacheBigEntries: a value too large for one fastcache chunk is
// stored with SetBig and read back with GetBig (Set would skip it).
func TestFastcacheBigEntries(t *testing.T) {
	s := gcstress.Scenario{Value: 100_000}
	e, err := NewFastcache(s, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	val := bytes.Repeat([]byte{'b'}, int(s.Value))
	if err := e.Put([]byte("big-key-00000001"), val); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := e.Get([]byte("big-key-00000001")); err != nil || !ok || !bytes.Equal(v, val) {
		t.Errorf("Get: %d bytes, %v, %v; want the %d B value", len(v), ok, err, len(val))
	}
	if _, ok, _ := e.Get([]byte("big-key-00000002")); ok {
		t.Errorf("Get of a key never Put: found")
	}
}
