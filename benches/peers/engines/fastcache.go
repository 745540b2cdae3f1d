package engines

import (
	"sync/atomic"

	"github.com/VictoriaMetrics/fastcache"

	"github.com/writegc/writegc/gcstress"
)

// fastcache's own limits (its chunkSize and record header): an entry
// whose key+value+header does not fit one 64 KiB chunk is skipped by Set,
// so such scenarios use SetBig/GetBig instead.
const (
	fastcacheChunk  int64 = 64 << 10
	fastcacheHeader int64 = 4
)

// Fastcache is a VictoriaMetrics fastcache.Cache as a gcstress write sink:
// each Put is Set (fastcache copies key and value into its chunks), under
// maxBytes = Options.FastcacheBudget. The chunks are mmap'd outside the Go
// heap and the index is a map[uint64]uint64 per bucket: the cache holds
// no Go pointer per entry. It overwrites its oldest chunk when full and
// counts no evictions. Safe for concurrent use; Close may race with Puts
// (see the package doc). One per scenario.
type Fastcache struct {
	g      guard
	cache  *fastcache.Cache
	budget int64
	big    bool // entries above one chunk: SetBig/GetBig

	puts  atomic.Uint64
	notes map[string]float64 // set by Close
	last  atomic.Pointer[gcstress.EngineStats]
}

// NewFastcache builds the cache for scenario s.
func NewFastcache(s gcstress.Scenario, o Options) (*Fastcache, error) {
	big := int64(gcstress.KeySize)+s.Value+fastcacheHeader >= fastcacheChunk
	return &Fastcache{cache: fastcache.New(int(o.FastcacheBudget)), budget: o.FastcacheBudget, big: big}, nil
}

// Put is Set (SetBig for entries above one chunk); fastcache copies.
func (e *Fastcache) Put(key, value []byte) error {
	if !e.g.enter() {
		return ErrClosed
	}
	defer e.g.leave()
	if e.big {
		e.cache.SetBig(key, value)
	} else {
		e.cache.Set(key, value)
	}
	e.puts.Add(1)
	return nil
}

// Get is HasGet (GetBig for entries above one chunk) into a new slice.
func (e *Fastcache) Get(key []byte) ([]byte, bool, error) {
	if !e.g.enter() {
		return nil, false, ErrClosed
	}
	defer e.g.leave()
	if e.big {
		v := e.cache.GetBig(nil, key)
		return v, v != nil, nil
	}
	v, ok := e.cache.HasGet(nil, key)
	return v, ok, nil
}

// Stats: the chunks' bytes as MemtableBytes and OffHeapBytes (mmap'd:
// GOMEMLIMIT does not see them), the index entries as Entries (it may
// count entries whose chunk was overwritten until the bucket cleans up).
// Flushes stay 0: fastcache counts no evictions. After Close, the figures
// taken at Close.
func (e *Fastcache) Stats() gcstress.EngineStats {
	return e.g.stats(&e.last, e.stats)
}

func (e *Fastcache) stats() gcstress.EngineStats {
	var s fastcache.Stats
	e.cache.UpdateStats(&s)
	return gcstress.EngineStats{MemtableBytes: int64(s.BytesSize), OffHeapBytes: int64(s.BytesSize), Entries: int64(s.EntriesCount)}
}

// Close computes the notes and resets the cache (its chunks go back to
// fastcache's free list; the mapping itself stays until the process ends).
func (e *Fastcache) Close() error {
	return e.g.close(func() error {
		var s fastcache.Stats
		e.cache.UpdateStats(&s)
		e.notes = map[string]float64{
			"puts": float64(e.puts.Load()), "budget_bytes": float64(e.budget), "entries": float64(s.EntriesCount),
			"chunk_bytes": float64(s.BytesSize), "max_bytes": float64(s.MaxBytesSize),
			"collisions": float64(s.Collisions), "big_entries": boolNote(e.big),
		}
		st := e.stats()
		e.last.Store(&st)
		e.cache.Reset()
		return nil
	})
}

// Notes are the puts, the budget and fastcache's own figures at Close
// (entries, chunk bytes, its maxBytes as rounded up to whole chunks, hash
// collisions, big_entries 1 when SetBig was used); nil before Close.
func (e *Fastcache) Notes() map[string]float64 {
	e.g.mu.Lock()
	defer e.g.mu.Unlock()
	return e.notes
}

// boolNote is a flag as a note's value.
func boolNote(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
