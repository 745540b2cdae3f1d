package engines

import (
	"hash/maphash"
	"sync"
	"sync/atomic"

	"github.com/writegc/writegc/gcstress"
)

// shardmapShards is the sharded map's shard count: a power of two, enough
// that writers on a few cores rarely meet on one lock.
const shardmapShards int = 64

// Shardmap is the cache Go services often write themselves: a
// map[string][]byte split in shards, each behind a sync.RWMutex, bounded
// to Options.ShardmapBudget key+value bytes (an equal share per shard) by
// evicting a shard's oldest keys first (a FIFO of its keys). Every entry
// is Go objects: the key string, the value slice and the FIFO's string
// header. Safe for concurrent use; Close may race with Puts (see the
// package doc). One per scenario.
type Shardmap struct {
	g      guard
	seed   maphash.Seed
	shards [shardmapShards]mapShard
	budget int64

	puts      atomic.Uint64
	evictions atomic.Int64
	evicted   atomic.Int64 // key+value bytes evicted
	notes     map[string]float64
	last      atomic.Pointer[gcstress.EngineStats]
}

// mapShard is one shard: its map, its keys in insertion order (fifo from
// head on) and the key+value bytes it holds.
type mapShard struct {
	mu    sync.RWMutex
	m     map[string][]byte
	fifo  []string
	head  int
	bytes int64
	limit int64
}

// NewShardmap builds the map for scenario s.
func NewShardmap(_ gcstress.Scenario, o Options) (*Shardmap, error) {
	e := &Shardmap{seed: maphash.MakeSeed(), budget: o.ShardmapBudget}
	for i := range e.shards {
		e.shards[i].m = map[string][]byte{}
		e.shards[i].limit = max(o.ShardmapBudget/int64(shardmapShards), 1)
	}
	return e, nil
}

func (e *Shardmap) shard(key []byte) *mapShard {
	return &e.shards[maphash.Bytes(e.seed, key)%uint64(shardmapShards)]
}

// Put copies key and value and stores them; a new key goes to the back of
// its shard's FIFO, and the front is evicted while the shard is over its
// share of the budget.
func (e *Shardmap) Put(key, value []byte) error {
	if !e.g.enter() {
		return ErrClosed
	}
	defer e.g.leave()
	v := append([]byte(nil), value...)
	s := e.shard(key)
	s.mu.Lock()
	if old, ok := s.m[string(key)]; ok {
		s.bytes += int64(len(v) - len(old))
		s.m[string(key)] = v
	} else {
		k := string(key)
		s.m[k] = v
		s.fifo = append(s.fifo, k)
		s.bytes += int64(len(k) + len(v))
	}
	var n, b int64
	for s.bytes > s.limit && s.head < len(s.fifo)-1 {
		b += s.evictFront()
		n++
	}
	s.mu.Unlock()
	e.puts.Add(1)
	if n > 0 {
		e.evictions.Add(n)
		e.evicted.Add(b)
	}
	return nil
}

// evictFront removes the shard's oldest key and returns its bytes; the
// FIFO's consumed front is dropped once it is half the slice. Called with
// mu held.
func (s *mapShard) evictFront() int64 {
	k := s.fifo[s.head]
	s.fifo[s.head] = ""
	s.head++
	b := int64(len(k) + len(s.m[k]))
	delete(s.m, k)
	s.bytes -= b
	if s.head > len(s.fifo)/2 {
		s.fifo = append(s.fifo[:0], s.fifo[s.head:]...)
		s.head = 0
	}
	return b
}

// Get reads the shard under its read lock; the value is the copy Put made.
func (e *Shardmap) Get(key []byte) ([]byte, bool, error) {
	if !e.g.enter() {
		return nil, false, ErrClosed
	}
	defer e.g.leave()
	s := e.shard(key)
	s.mu.RLock()
	v, ok := s.m[string(key)]
	s.mu.RUnlock()
	return v, ok, nil
}

// Stats: evictions as Flushes and their bytes as FlushedBytes, the
// key+value bytes held as MemtableBytes, the keys held as Entries. After
// Close, the figures taken at Close.
func (e *Shardmap) Stats() gcstress.EngineStats {
	return e.g.stats(&e.last, e.stats)
}

func (e *Shardmap) stats() gcstress.EngineStats {
	st := gcstress.EngineStats{Flushes: e.evictions.Load(), FlushedBytes: e.evicted.Load()}
	for i := range e.shards {
		s := &e.shards[i]
		s.mu.RLock()
		st.MemtableBytes += s.bytes
		st.Entries += int64(len(s.m))
		s.mu.RUnlock()
	}
	return st
}

// Close computes the notes and drops the maps.
func (e *Shardmap) Close() error {
	return e.g.close(func() error {
		st := e.stats()
		e.last.Store(&st)
		e.notes = map[string]float64{
			"puts": float64(e.puts.Load()), "budget_bytes": float64(e.budget), "entries": float64(st.Entries),
			"evictions": float64(st.Flushes), "shards": float64(shardmapShards),
		}
		for i := range e.shards {
			e.shards[i].m, e.shards[i].fifo = nil, nil
		}
		return nil
	})
}

// Notes are the puts, the budget, the entries held and evictions at
// Close, and the shard count; nil before Close.
func (e *Shardmap) Notes() map[string]float64 {
	e.g.mu.Lock()
	defer e.g.mu.Unlock()
	return e.notes
}
