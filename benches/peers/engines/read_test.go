package engines

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/writegc/writegc/gcstress"
)

// testEngines builds each peer kind for a tiny scenario of writers
// writers (1 MiB memtables, 1 MiB cache budgets).
func testEngines(writers int) map[string]func() (gcstress.Engine, error) {
	s := gcstress.Scenario{Value: 100, Memstore: 1 << 20, Writers: writers}
	o := DefaultOptions()
	o.RistrettoBudget, o.FastcacheBudget, o.OtterBudget, o.ShardmapBudget = 1<<20, 1<<20, 1<<20, 1<<20
	return map[string]func() (gcstress.Engine, error){
		KindPebble:    func() (gcstress.Engine, error) { return NewPebble(s, o, false) },
		KindPebbleWAL: func() (gcstress.Engine, error) { return NewPebble(s, o, true) },
		KindBadger:    func() (gcstress.Engine, error) { return NewBadger(s, o) },
		KindRistretto: func() (gcstress.Engine, error) { return NewRistretto(s, o) },
		KindFastcache: func() (gcstress.Engine, error) { return NewFastcache(s, o) },
		KindOtter:     func() (gcstress.Engine, error) { return NewOtter(s, o) },
		KindShardmap:  func() (gcstress.Engine, error) { return NewShardmap(s, o) },
	}
}

// TestEnginesRead: every peer's Get finds what was Put and misses what was
// not; Pebble's and Badger's Scan give keys at or above start in order, n
// at most; after Close, reads fail with ErrClosed.
func TestEnginesRead(t *testing.T) {
	key := func(i int) []byte { return []byte(fmt.Sprintf("k%05d", i)) }
	for kind, newE := range testEngines(1) {
		t.Run(kind, func(t *testing.T) {
			e, err := newE()
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 200; i += 2 {
				if err := e.Put(key(i), []byte(fmt.Sprint(i))); err != nil {
					t.Fatal(err)
				}
			}
			if r, ok := e.(*Ristretto); ok {
				r.cache.Wait() // Sets are applied asynchronously
			}
			g := e.(gcstress.Getter)
			if v, ok, err := g.Get(key(10)); err != nil || !ok || string(v) != "10" {
				t.Errorf("Get(k00010) = %q, %v, %v", v, ok, err)
			}
			if _, ok, err := g.Get(key(11)); err != nil || ok {
				t.Errorf("Get(k00011): found %v, err %v; want a miss", ok, err)
			}
			if sc, ok := e.(gcstress.Scanner); ok {
				var got []string
				var prev []byte
				err := sc.Scan(key(51), 5, func(k, _ []byte) bool {
					if prev != nil && bytes.Compare(prev, k) >= 0 {
						t.Errorf("keys out of order")
					}
					prev = bytes.Clone(k)
					got = append(got, string(k))
					return true
				})
				if err != nil || fmt.Sprint(got) != "[k00052 k00054 k00056 k00058 k00060]" {
					t.Errorf("Scan(k00051, 5) = %v, %v", got, err)
				}
			} else if !slices.Contains([]string{KindRistretto, KindFastcache, KindOtter, KindShardmap}, kind) {
				t.Errorf("%s is no Scanner", kind)
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			if _, _, err := g.Get(key(10)); !errors.Is(err, ErrClosed) {
				t.Errorf("Get after Close: %v", err)
			}
		})
	}
}
