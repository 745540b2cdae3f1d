package writepath

import (
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/writegc/writegc/memtable"
)

// memEntry is one memtable of a region, active or waiting for flush.
type memEntry struct {
	mt     memtable.Memtable
	r      *region
	minLog atomic.Uint64 // smallest WAL log holding one of its entries (MaxUint64: none)
}

func (m *memEntry) noteLog(n uint64) {
	for {
		cur := m.minLog.Load()
		if n >= cur || m.minLog.CompareAndSwap(cur, n) {
			return
		}
	}
}

// region is one key range with its own active memtable and its queue of
// full memtables waiting for a flusher.
//
// Locking: mu is read-locked by every Put and Get for the whole memtable
// operation, and write-locked to swap the active memtable and to drop a
// flushed one. So no Put lands in a memtable after it was handed to a
// flusher, and no Get reads a memtable after it was closed.
type region struct {
	s  *Server
	id int

	mu      sync.RWMutex
	active  *memEntry
	pending []*memEntry // oldest first

	npending atomic.Int32
	bpMu     sync.Mutex
	bpCond   *sync.Cond
}

func (s *Server) newMemEntry(r *region) (*memEntry, error) {
	mt, err := memtable.New(s.kind, s.mtOpts)
	if err != nil {
		return nil, err
	}
	m := &memEntry{mt: mt, r: r}
	m.minLog.Store(math.MaxUint64)
	return m, nil
}

// waitBackpressure blocks while more than MaxPendingFlushes full memtables
// of this region wait for a flusher.
func (r *region) waitBackpressure() {
	s := r.s
	if s.opts.NoBackpressure || int(r.npending.Load()) <= s.opts.MaxPendingFlushes {
		return
	}
	t0 := time.Now()
	r.bpMu.Lock()
	for int(r.npending.Load()) > s.opts.MaxPendingFlushes && !s.closed.Load() {
		r.bpCond.Wait()
	}
	r.bpMu.Unlock()
	s.blocked.Add(1)
	s.blockedNanos.Add(int64(time.Since(t0)))
}

// put inserts one entry charged to WAL log logNum (0: no WAL).
func (r *region) put(key, value []byte, logNum uint64) error {
	r.waitBackpressure()
	r.mu.RLock()
	m := r.active
	if m == nil {
		r.mu.RUnlock()
		return ErrClosed
	}
	if logNum != 0 {
		m.noteLog(logNum)
	}
	err := m.mt.Put(key, value)
	full := m.mt.Size() >= r.s.opts.FlushThreshold
	r.mu.RUnlock()
	if err != nil {
		return err
	}
	if full {
		return r.rotate(m)
	}
	return nil
}

// rotate moves m, if still active, to the pending queue and hands it to the
// flushers.
func (r *region) rotate(m *memEntry) error {
	r.mu.Lock()
	if r.active != m {
		r.mu.Unlock()
		return nil
	}
	next, err := r.s.newMemEntry(r)
	if err != nil {
		r.mu.Unlock()
		return err
	}
	r.active = next
	r.pending = append(r.pending, m)
	r.npending.Add(1)
	r.mu.Unlock()
	r.s.flushq.push(m)
	return nil
}

// get copies the latest value of key into dst.
func (r *region) get(key, dst []byte) ([]byte, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.active == nil {
		return dst, false
	}
	if v, ok := r.active.mt.Get(key); ok {
		return append(dst, v...), true
	}
	for i := len(r.pending) - 1; i >= 0; i-- {
		if v, ok := r.pending[i].mt.Get(key); ok {
			return append(dst, v...), true
		}
	}
	return dst, false
}

// flushed drops m after a successful flush and wakes blocked writers.
func (r *region) flushed(m *memEntry) {
	r.mu.Lock()
	for i, p := range r.pending {
		if p == m {
			// slices.Delete clears the slot it frees: a shrunk slice that
			// kept the flushed memtable in its backing array kept all of
			// its entries reachable (the heap kind read 8-15 objects per
			// entry for a layout of 5 after a flush) until the next flush.
			r.pending = slices.Delete(r.pending, i, i+1)
			break
		}
	}
	r.mu.Unlock()
	m.mt.Close()
	r.npending.Add(-1)
	r.bpMu.Lock()
	r.bpCond.Broadcast()
	r.bpMu.Unlock()
}

// minLog is the smallest WAL log any of the region's memtables still needs.
func (r *region) minLog() uint64 {
	r.mu.RLock()
	defer r.mu.RUnlock()
	m := uint64(math.MaxUint64)
	if r.active != nil {
		m = r.active.minLog.Load()
	}
	for _, p := range r.pending {
		m = min(m, p.minLog.Load())
	}
	return m
}

// memHeld is the Size and Len of the active and pending memtables together.
func (r *region) memHeld() (size, entries int64) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.active != nil {
		size, entries = r.active.mt.Size(), int64(r.active.mt.Len())
	}
	for _, p := range r.pending {
		size += p.mt.Size()
		entries += int64(p.mt.Len())
	}
	return size, entries
}

// release closes every memtable (server Close).
func (r *region) release() {
	r.mu.Lock()
	a, p := r.active, r.pending
	r.active, r.pending = nil, nil
	r.mu.Unlock()
	if a != nil {
		a.mt.Close()
	}
	for _, m := range p {
		m.mt.Close()
	}
	r.bpMu.Lock()
	r.bpCond.Broadcast()
	r.bpMu.Unlock()
}
