package peers

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/writegc/writegc/benches/peers/engines"
	"github.com/writegc/writegc/gcmetrics"
	"github.com/writegc/writegc/gcstress"
	"github.com/writegc/writegc/internal/workload"
	"github.com/writegc/writegc/memtable"
)

// Held-objects sizes: each op of BenchmarkHeld puts heldKeys entries
// (shortHeldKeys under -short) into a fresh engine whose memtable is large
// enough that nothing is flushed, so every entry is still held when the
// objects are counted.
const (
	heldKeys      int64 = 200_000
	shortHeldKeys int64 = 5_000
	heldMemtable  int64 = 256 << 20
)

// heldKinds are the engines BenchmarkHeld compares: writegc's memtable
// kinds and the peers of package engines.
var heldKinds = []string{"heap", "arena", "offheap", engines.KindPebble, engines.KindBadger, engines.KindRistretto,
	engines.KindFastcache, engines.KindOtter, engines.KindShardmap}

// heldEngine is one engine under BenchmarkHeld: Put, the entries it holds
// (what Put offered, or fewer for a cache that drops), and Close.
type heldEngine struct {
	put   func(key, value []byte) error
	held  func() int64
	close func() error
}

// BenchmarkHeld answers "how many objects per entry does each engine keep
// on the Go heap": one op puts 200K random 16-byte keys with 100 B values
// into a fresh engine (nothing flushed), forces two GCs and reports the
// live heap objects (gcmetrics' LiveObjects) and live heap bytes the
// engine added, per entry held: objects/entry and live-B/entry. Off-heap
// memory (Pebble's C memtable, writegc's offheap chunks, fastcache's
// mmap'd chunks) is not in either
// figure: the collector never sees it. fullgc-ns is the forced GC with the
// entries held.
//
//	go test -run '^$' -bench Held -benchtime 3x
func BenchmarkHeld(b *testing.B) {
	keys := heldKeys
	if testing.Short() {
		keys = shortHeldKeys
	}
	for _, kind := range heldKinds {
		b.Run(fmt.Sprintf("kind=%s/value=100B", kind), func(b *testing.B) {
			var objs, bytes, gcNS float64
			for range b.N {
				o, by, ns := heldOnce(b, kind, keys)
				objs, bytes, gcNS = objs+o, bytes+by, gcNS+ns
			}
			n := float64(b.N)
			b.ReportMetric(objs/n, "objects/entry")
			b.ReportMetric(max(bytes/n, 0), "live-B/entry")
			b.ReportMetric(gcNS/n, "fullgc-ns")
		})
	}
}

// heldOnce fills one engine and returns its live objects and bytes per
// held entry and the time of a full GC with them held.
func heldOnce(b *testing.B, kind string, keys int64) (objs, bytes, gcNS float64) {
	r := gcmetrics.NewReader()
	runtime.GC()
	runtime.GC()
	base := r.Read()
	e, err := openHeld(kind)
	if err != nil {
		b.Fatal(err)
	}
	key, value := make([]byte, workload.KeySize), workload.Value(100)
	for i := range keys {
		workload.KeyAt(key, 1, uint64(i))
		if err := e.put(key, value); err != nil {
			b.Fatal(err)
		}
	}
	n := e.held()
	runtime.GC()
	start := time.Now()
	runtime.GC()
	gcNS = float64(time.Since(start).Nanoseconds())
	now := r.Read()
	if err := e.close(); err != nil {
		b.Fatal(err)
	}
	if n <= 0 {
		b.Fatalf("%s holds no entries", kind)
	}
	objs = float64(int64(now.LiveObjects)-int64(base.LiveObjects)) / float64(n)
	bytes = float64(int64(now.HeapLive)-int64(base.HeapLive)) / float64(n)
	return objs, bytes, gcNS
}

// openHeld builds kind for BenchmarkHeld: writegc's kinds as a bare
// memtable (what holds the entries; the region server around it adds no
// per-entry objects), the peers through package engines with a 256 MiB
// memtable (and cache budgets, 128 MiB at least) so nothing is flushed or
// evicted.
func openHeld(kind string) (heldEngine, error) {
	s := gcstress.Scenario{Value: 100, Memstore: heldMemtable, Writers: 1}
	o := engines.DefaultOptions()
	o.RistrettoBudget = heldMemtable
	o.FastcacheBudget, o.OtterBudget, o.ShardmapBudget = heldMemtable, heldMemtable, heldMemtable
	switch kind {
	case engines.KindPebble:
		e, err := engines.NewPebble(s, o, false)
		return engineHeld(e, err)
	case engines.KindBadger:
		e, err := engines.NewBadger(s, o)
		return engineHeld(e, err)
	case engines.KindRistretto:
		e, err := engines.NewRistretto(s, o)
		if err != nil {
			return heldEngine{}, err
		}
		return heldEngine{put: e.Put, held: e.Held, close: e.Close}, nil
	case engines.KindFastcache:
		e, err := engines.NewFastcache(s, o)
		return cacheHeld(e, err)
	case engines.KindOtter:
		e, err := engines.NewOtter(s, o)
		return cacheHeld(e, err)
	case engines.KindShardmap:
		e, err := engines.NewShardmap(s, o)
		return cacheHeld(e, err)
	}
	m, err := memtable.New(kind, memtable.Options{})
	if err != nil {
		return heldEngine{}, err
	}
	return heldEngine{put: m.Put, held: func() int64 { return int64(m.Len()) }, close: m.Close}, nil
}

// engineHeld wraps a store that keeps every Put: it holds what was put.
func engineHeld(e gcstress.Engine, err error) (heldEngine, error) {
	if err != nil {
		return heldEngine{}, err
	}
	var n int64
	put := func(k, v []byte) error {
		if err := e.Put(k, v); err != nil {
			return err
		}
		n++
		return nil
	}
	return heldEngine{put: put, held: func() int64 { return n }, close: e.Close}, nil
}

// cacheHeld wraps a cache that reports the entries it holds in its Stats.
func cacheHeld(e gcstress.StatsEngine, err error) (heldEngine, error) {
	if err != nil {
		return heldEngine{}, err
	}
	return heldEngine{put: e.Put, held: func() int64 { return e.Stats().Entries }, close: e.Close}, nil
}
