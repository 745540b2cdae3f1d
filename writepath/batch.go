package writepath

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"sync"
)

// Batch is an encoded list of Puts, the unit every transport carries and the
// WAL stores. Encoding (also the wire and WAL payload):
//
//	count  uint32 little-endian
//	count × { klen uvarint, vlen uvarint, key [klen]byte, value [vlen]byte }
//
// Add copies key and value, so the caller may reuse its buffers at once.
// A Batch is not safe for concurrent use; a transport may read it until the
// request it was sent with completes.
type Batch struct {
	buf []byte // starts with the 4-byte count
	n   int
}

// NewBatch returns an empty batch with room for capacity bytes.
func NewBatch(capacity int) *Batch {
	b := &Batch{buf: make([]byte, 4, max(capacity, 4))}
	return b
}

// Add appends one Put.
func (b *Batch) Add(key, value []byte) {
	if len(b.buf) < 4 {
		b.buf = append(b.buf[:0], 0, 0, 0, 0)
	}
	b.buf = binary.AppendUvarint(b.buf, uint64(len(key)))
	b.buf = binary.AppendUvarint(b.buf, uint64(len(value)))
	b.buf = append(b.buf, key...)
	b.buf = append(b.buf, value...)
	b.n++
	binary.LittleEndian.PutUint32(b.buf, uint32(b.n))
}

// Len is the number of Puts in the batch.
func (b *Batch) Len() int { return b.n }

// Size is the encoded size in bytes.
func (b *Batch) Size() int { return len(b.buf) }

// Bytes returns the encoding (count prefix included). Valid until the next Add or Reset.
func (b *Batch) Bytes() []byte {
	if len(b.buf) < 4 {
		b.buf = append(b.buf[:0], 0, 0, 0, 0)
	}
	return b.buf
}

// Reset empties the batch, keeping its buffer.
func (b *Batch) Reset() {
	b.buf = append(b.buf[:0], 0, 0, 0, 0)
	b.n = 0
}

var batchPool = sync.Pool{New: func() any { return NewBatch(256) }}

func getBatch() *Batch { b := batchPool.Get().(*Batch); b.Reset(); return b }

func putBatch(b *Batch) {
	if cap(b.buf) <= 64<<10 {
		batchPool.Put(b)
	}
}

// forEachEntry decodes an encoded batch, calling fn for each entry. It
// validates structure only (not memtable limits). Slices passed to fn alias data.
func forEachEntry(data []byte, fn func(i int, key, value []byte) error) (int, error) {
	var efn func(i, koff, klen, vlen int) error
	if fn != nil {
		efn = func(i, koff, klen, vlen int) error {
			vo := koff + klen
			return fn(i, data[koff:vo:vo], data[vo:vo+vlen:vo+vlen])
		}
	}
	return walkBatch(data, efn)
}

// walkBatch decodes an encoded batch, calling fn (if not nil) with each
// entry's key offset in data and its key and value lengths (the value
// follows the key). It validates structure only.
func walkBatch(data []byte, fn func(i, koff, klen, vlen int) error) (int, error) {
	if len(data) < 4 {
		return 0, fmt.Errorf("%w: batch shorter than its count", ErrMalformed)
	}
	n := int(binary.LittleEndian.Uint32(data))
	off := 4
	// Each entry takes at least 3 bytes (two varints and a 1-byte key).
	if n > (len(data)-off)/3+1 {
		return 0, fmt.Errorf("%w: count %d exceeds payload", ErrMalformed, n)
	}
	for i := range n {
		kl, k := binary.Uvarint(data[off:])
		if k <= 0 {
			return i, fmt.Errorf("%w: entry %d key length", ErrMalformed, i)
		}
		off += k
		vl, v := binary.Uvarint(data[off:])
		if v <= 0 {
			return i, fmt.Errorf("%w: entry %d value length", ErrMalformed, i)
		}
		off += v
		rest := uint64(len(data) - off)
		if kl > rest || vl > rest-kl {
			return i, fmt.Errorf("%w: entry %d overruns payload", ErrMalformed, i)
		}
		if fn != nil {
			if err := fn(i, off, int(kl), int(vl)); err != nil {
				return i, err
			}
		}
		off += int(kl + vl)
	}
	if off != len(data) {
		return n, fmt.Errorf("%w: %d trailing bytes", ErrMalformed, len(data)-off)
	}
	return n, nil
}

// validateBatch checks structure and memtable limits; it returns the count
// and the key+value bytes (see decodeBatch).
func validateBatch(data []byte) (n int, bytes int64, err error) {
	es, bytes, err := decodeBatch(data, nil)
	return len(es), bytes, err
}

// RegionOf returns the region, in [0, regions), that owns key: the key space
// is split evenly by the key's first 8 bytes read big-endian (shorter keys
// are zero-padded), so random keys spread evenly and region i's keys all sort
// before region i+1's.
func RegionOf(key []byte, regions int) int {
	if regions <= 1 {
		return 0
	}
	var b [8]byte
	copy(b[:], key)
	hi, _ := bits.Mul64(binary.BigEndian.Uint64(b[:]), uint64(regions))
	return int(hi)
}
