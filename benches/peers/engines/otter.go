package engines

import (
	"sync/atomic"

	"github.com/maypok86/otter/v2"
	"github.com/maypok86/otter/v2/stats"

	"github.com/writegc/writegc/gcstress"
)

// Otter is an otter/v2 cache as a gcstress write sink: each Put copies
// key and value and Sets them, weighed len(key)+len(value), under
// MaximumWeight = Options.OtterBudget. otter holds every entry as Go
// objects (a node with the key string and the value slice, in a
// concurrent hash table) and evicts by W-TinyLFU. Safe for concurrent use;
// Close may race with Puts (see the package doc). One per scenario.
type Otter struct {
	g      guard
	cache  *otter.Cache[string, []byte]
	budget int64

	puts  atomic.Uint64
	notes map[string]float64 // set by Close
	last  atomic.Pointer[gcstress.EngineStats]
}

// NewOtter builds the cache for scenario s.
func NewOtter(_ gcstress.Scenario, o Options) (*Otter, error) {
	c, err := otter.New(&otter.Options[string, []byte]{
		MaximumWeight: uint64(o.OtterBudget),
		Weigher:       func(k string, v []byte) uint32 { return uint32(len(k) + len(v)) },
		StatsRecorder: stats.NewCounter(),
	})
	if err != nil {
		return nil, err
	}
	return &Otter{cache: c, budget: o.OtterBudget}, nil
}

// Put copies key and value (the writers reuse them) and Sets them.
func (e *Otter) Put(key, value []byte) error {
	if !e.g.enter() {
		return ErrClosed
	}
	defer e.g.leave()
	e.cache.Set(string(key), append([]byte(nil), value...))
	e.puts.Add(1)
	return nil
}

// Get is GetIfPresent; the cache's value is the copy Put made.
func (e *Otter) Get(key []byte) ([]byte, bool, error) {
	if !e.g.enter() {
		return nil, false, ErrClosed
	}
	defer e.g.leave()
	v, ok := e.cache.GetIfPresent(string(key))
	return v, ok, nil
}

// Stats: evictions as Flushes and their weight as FlushedBytes (what
// leaves the cache is its only "flush"), the weight in use as
// MemtableBytes, the estimated entries as Entries. After Close, the
// figures taken at Close.
func (e *Otter) Stats() gcstress.EngineStats {
	return e.g.stats(&e.last, e.stats)
}

func (e *Otter) stats() gcstress.EngineStats {
	s := e.cache.Stats()
	return gcstress.EngineStats{Flushes: int64(s.Evictions), FlushedBytes: int64(s.EvictionWeight),
		MemtableBytes: int64(e.cache.WeightedSize()), Entries: int64(e.cache.EstimatedSize())}
}

// Close runs the cache's pending maintenance (so the evictions are
// counted), computes the notes and empties the cache.
func (e *Otter) Close() error {
	return e.g.close(func() error {
		e.cache.CleanUp()
		s := e.cache.Stats()
		e.notes = map[string]float64{
			"puts": float64(e.puts.Load()), "budget_bytes": float64(e.budget),
			"entries": float64(e.cache.EstimatedSize()), "evictions": float64(s.Evictions),
			"hits": float64(s.Hits), "misses": float64(s.Misses),
		}
		st := e.stats()
		e.last.Store(&st)
		e.cache.InvalidateAll()
		return nil
	})
}

// Notes are the puts, the budget and otter's own figures at Close
// (entries, evictions, the Gets' hits and misses); nil before Close.
func (e *Otter) Notes() map[string]float64 {
	e.g.mu.Lock()
	defer e.g.mu.Unlock()
	return e.notes
}
