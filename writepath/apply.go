package writepath

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/writegc/writegc/internal/slowdown"
	"github.com/writegc/writegc/memtable"
)

// SortedApplyMin is the batch size from which the server inserts a batch's
// entries in key order rather than in batch order. A skiplist insert of
// random keys is dominated by cache misses on the nodes it walks; entries
// inserted in ascending order walk mostly the same, already cached nodes,
// which made a 2 MiB batch of 100 B rows about 25% cheaper to apply on the
// arena memtable (results/writepath/README.md). The sort is stable (by key,
// then batch position), so a later Put of the same key still wins.
const SortedApplyMin = 64

// entry is one decoded Put of a batch: offsets into the payload, so that a
// batch's entry list holds no pointers for the collector to scan.
type entry struct {
	koff       int // key offset in the payload; the value follows the key
	klen, vlen int32
	pos        int32 // position in the batch
}

func (e entry) key(data []byte) []byte {
	end := e.koff + int(e.klen)
	return data[e.koff:end:end]
}

func (e entry) value(data []byte) []byte {
	start := e.koff + int(e.klen)
	end := start + int(e.vlen)
	return data[start:end:end]
}

var entriesPool = sync.Pool{New: func() any { s := make([]entry, 0, 256); return &s }}

// decodeBatch validates data (structure and memtable limits) and appends its
// entries to dst; it returns them and their key+value bytes.
func decodeBatch(data []byte, dst []entry) ([]entry, int64, error) {
	var nbytes int64
	_, err := walkBatch(data, func(i, koff, klen, vlen int) error {
		vend := koff + klen + vlen
		if err := memtable.CheckEntry(data[koff:koff+klen], data[koff+klen:vend]); err != nil {
			return fmt.Errorf("entry %d: %w", i, err)
		}
		if i > math.MaxInt32 {
			return fmt.Errorf("%w: more than %d entries", ErrMalformed, math.MaxInt32)
		}
		nbytes += int64(klen + vlen)
		dst = append(dst, entry{koff: koff, klen: int32(klen), vlen: int32(vlen), pos: int32(i)})
		return nil
	})
	return dst, nbytes, err
}

// applyBatch validates the whole batch (a malformed or out-of-limits batch is
// rejected with nothing applied), appends it to the WAL, then inserts its
// entries: in batch order, or in key order (stable) from SortedApplyMin
// entries. A failure part-way returns a *BatchError whose Applied counts the
// entries inserted, which are the first Applied in that insertion order.
func (s *Server) applyBatch(data []byte) error {
	if s.closed.Load() {
		return ErrClosed
	}
	ep := entriesPool.Get().(*[]entry)
	defer func() {
		if cap(*ep) <= 1<<18 {
			*ep = (*ep)[:0]
			entriesPool.Put(ep)
		}
	}()
	es, nbytes, err := decodeBatch(data, (*ep)[:0])
	*ep = es
	if err != nil {
		return err
	}
	var logNum uint64
	if s.wal != nil {
		logNum, err = s.wal.append(data)
		if logNum != 0 {
			defer s.wal.release(logNum)
		}
		if err != nil {
			return err
		}
	}
	if len(es) >= SortedApplyMin {
		slices.SortFunc(es, func(a, b entry) int {
			if c := bytes.Compare(a.key(data), b.key(data)); c != 0 {
				return c
			}
			return cmp.Compare(a.pos, b.pos)
		})
	}
	nreg := len(s.regions)
	for i, e := range es {
		slowdown.Inject(slowdown.WritepathPut)
		k := e.key(data)
		if err = s.regions[RegionOf(k, nreg)].put(k, e.value(data), logNum); err != nil {
			var kv int64
			for _, a := range es[:i] {
				kv += int64(a.klen + a.vlen)
			}
			s.puts.Add(int64(i))
			s.bytes.Add(kv)
			return &BatchError{Applied: i, Err: err}
		}
	}
	s.puts.Add(int64(len(es)))
	s.bytes.Add(nbytes)
	return nil
}
