package writepath

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/writegc/writegc/memtable"
)

// MaxScan bounds Scan's n: a scan holds its region's read lock while it
// gathers, so an unbounded one would hold off the region's rotation.
const MaxScan = 10_000

// Scan calls fn with up to n entries whose keys are at or above start, in
// ascending key order, each key once with its latest value, from the
// memtables not yet flushed (like Get: flushed data lives in segment files
// or, without a FlushDir, nowhere). It stops early when fn returns false.
// Regions hold consecutive key ranges (RegionOf), so a scan goes on into
// the next region when one runs out. The slices passed to fn alias the
// memtables and are valid only during the call; fn runs under the
// region's read lock and must not call the Server. n must be 1 to MaxScan.
func (s *Server) Scan(start []byte, n int, fn func(key, value []byte) bool) error {
	if n < 1 || n > MaxScan {
		return fmt.Errorf("writepath: scan of %d entries: use 1 to %d", n, MaxScan)
	}
	if s.closed.Load() {
		return ErrClosed
	}
	s.gets.Add(1)
	left := n
	for r := RegionOf(start, len(s.regions)); r < len(s.regions) && left > 0; r++ {
		more, seen := s.regions[r].scan(start, left, fn)
		if !more {
			return nil
		}
		left -= seen
		start = nil // the next region's keys are all above start
	}
	return nil
}

// scanEntry is one key seen by a region's scan, with the age of the
// memtable it came from (0: the active one, higher: older).
type scanEntry struct {
	key, value []byte
	age        int
}

// scan gathers up to n keys at or above start from every memtable of the
// region, newest value first for a key in several, and hands them to fn in
// key order. It returns whether fn wants more and how many it was given.
func (r *region) scan(start []byte, n int, fn func(key, value []byte) bool) (more bool, seen int) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.active == nil {
		return true, 0
	}
	var es []scanEntry
	take := func(m memtable.Memtable, age int) {
		c := 0
		for k, v := range memtable.From(m, start) {
			es = append(es, scanEntry{k, v, age})
			if c++; c == n {
				return
			}
		}
	}
	take(r.active.mt, 0)
	for i := len(r.pending) - 1; i >= 0; i-- {
		take(r.pending[i].mt, len(r.pending)-i)
	}
	slices.SortFunc(es, func(a, b scanEntry) int {
		if c := bytes.Compare(a.key, b.key); c != 0 {
			return c
		}
		return a.age - b.age
	})
	for i, e := range es {
		if i > 0 && bytes.Equal(es[i-1].key, e.key) {
			continue // an older memtable's value of a key already given
		}
		if seen == n {
			return true, seen
		}
		seen++
		if !fn(e.key, e.value) {
			return false, seen
		}
	}
	return true, seen
}
