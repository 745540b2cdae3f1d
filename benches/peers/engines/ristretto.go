package engines

import (
	"sync"
	"sync/atomic"

	"github.com/dgraph-io/ristretto/v2"

	"github.com/writegc/writegc/gcstress"
)

// ristretto sizing and the hit-ratio sample.
const (
	// maxRistrettoCounters caps NumCounters (10x the entries the budget
	// holds, as ristretto advises): its sketch takes about 2 bytes per
	// counter, so 1<<24 counters are 32 MiB.
	maxRistrettoCounters int64 = 1 << 24
	minRistrettoCounters int64 = 1 << 12
	// sampleEvery and sampleRing: every sampleEvery-th Put's key is kept
	// in a ring of sampleRing keys, re-read at Close for the hit ratio
	// (the last sampleEvery*sampleRing Puts, sampled).
	sampleEvery uint64 = 16
	sampleRing  int    = 4096
)

// Ristretto is a ristretto/v2 cache as a gcstress write sink: each Put
// copies key and value and Sets them with cost len(key)+len(value), under
// MaxCost = Options.RistrettoBudget. The cache evicts and may drop Sets, so
// Notes reports the accepted writes and, after Close, the hit ratio of a
// sample of the most recent keys. Safe for concurrent use; Close may race
// with Puts (see the package doc). One per scenario.
type Ristretto struct {
	g        guard
	cache    *ristretto.Cache[string, []byte]
	budget   int64
	counters int64

	puts     atomic.Uint64
	accepted atomic.Uint64 // Sets that returned true

	sampleMu sync.Mutex
	sample   []string // ring of sampled keys

	notes map[string]float64 // set by Close
	last  atomic.Pointer[gcstress.EngineStats]
}

// NewRistretto builds the cache for scenario s.
func NewRistretto(s gcstress.Scenario, o Options) (*Ristretto, error) {
	entry := int64(gcstress.KeySize) + s.Value
	counters := min(max(10*(o.RistrettoBudget/max(entry, 1)), minRistrettoCounters), maxRistrettoCounters)
	c, err := ristretto.NewCache(&ristretto.Config[string, []byte]{
		NumCounters: counters, MaxCost: o.RistrettoBudget, BufferItems: 64, Metrics: true,
	})
	if err != nil {
		return nil, err
	}
	return &Ristretto{cache: c, budget: o.RistrettoBudget, counters: counters, sample: make([]string, 0, sampleRing)}, nil
}

// Put copies key and value (the writers reuse them) and Sets them.
func (e *Ristretto) Put(key, value []byte) error {
	if !e.g.enter() {
		return ErrClosed
	}
	defer e.g.leave()
	k, v := string(key), append([]byte(nil), value...)
	if e.cache.Set(k, v, int64(len(key)+len(value))) {
		e.accepted.Add(1)
	}
	if n := e.puts.Add(1); n%sampleEvery == 0 {
		e.sampleMu.Lock()
		i := int(n/sampleEvery) % sampleRing
		if i < len(e.sample) {
			e.sample[i] = k
		} else {
			e.sample = append(e.sample, k)
		}
		e.sampleMu.Unlock()
	}
	return nil
}

// Stats: the cache's cost in use as MemtableBytes, evictions' cost as
// FlushedBytes and evicted keys as Flushes (what leaves the cache is its
// only "flush"). After Close, the figures taken at Close.
func (e *Ristretto) Stats() gcstress.EngineStats {
	return e.g.stats(&e.last, e.stats)
}

// stats reads the cache's counters (Close clears them).
func (e *Ristretto) stats() gcstress.EngineStats {
	m := e.cache.Metrics
	return gcstress.EngineStats{
		Flushes:       int64(m.KeysEvicted()),
		FlushedBytes:  int64(m.CostEvicted()),
		MemtableBytes: int64(m.CostAdded()) - int64(m.CostEvicted()),
	}
}

// Close waits for the Puts inside, lets the cache apply its buffered
// Sets, re-reads the sampled keys for the hit ratio, computes the notes
// and closes the cache.
func (e *Ristretto) Close() error {
	return e.g.close(func() error {
		e.cache.Wait()
		var hits int
		for _, k := range e.sample {
			if _, ok := e.cache.Get(k); ok {
				hits++
			}
		}
		m := e.cache.Metrics
		n := map[string]float64{
			"puts": float64(e.puts.Load()), "accepted_writes": float64(e.accepted.Load()),
			"keys_added": float64(m.KeysAdded()), "keys_evicted": float64(m.KeysEvicted()),
			"sets_dropped": float64(m.SetsDropped()), "sets_rejected": float64(m.SetsRejected()),
			"budget_bytes": float64(e.budget), "num_counters": float64(e.counters),
			"sample_keys": float64(len(e.sample)),
		}
		if len(e.sample) > 0 {
			n["hit_ratio"] = float64(hits) / float64(len(e.sample))
		}
		e.notes = n
		st := e.stats()
		e.last.Store(&st)
		e.cache.Close()
		return nil
	})
}

// Notes are accepted writes (Sets that returned true, and the cache's own
// counters) and the hit ratio of the sampled recent keys, computed by
// Close; nil before it.
func (e *Ristretto) Notes() map[string]float64 {
	e.g.mu.Lock()
	defer e.g.mu.Unlock()
	return e.notes
}

// Held waits for the cache to apply its buffered Sets and returns the
// entries it holds (added minus evicted): the denominator of a per-entry
// figure, since the cache may drop or evict what Put offered. Safe for
// concurrent use; 0 after Close.
func (e *Ristretto) Held() int64 {
	if !e.g.enter() {
		return 0
	}
	defer e.g.leave()
	e.cache.Wait()
	m := e.cache.Metrics
	return int64(m.KeysAdded()) - int64(m.KeysEvicted())
}
