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
	if len(data) < 4 {
		return 0, fmt.Errorf("%w: batch shorter than its count", ErrMalformed)
	}
	n := int(binary.LittleEndian.Uint32(data))
	p := data[4:]
	// Each entry takes at least 3 bytes (two varints and a 1-byte key).
	if n > len(p)/3+1 {
		return 0, fmt.Errorf("%w: count %d exceeds payload", ErrMalformed, n)
	}
	for i := range n {
		kl, k := binary.Uvarint(p)
		if k <= 0 {
			return i, fmt.Errorf("%w: entry %d key length", ErrMalformed, i)
		}
		p = p[k:]
		vl, v := binary.Uvarint(p)
		if v <= 0 {
			return i, fmt.Errorf("%w: entry %d value length", ErrMalformed, i)
		}
		p = p[v:]
		if kl > uint64(len(p)) || vl > uint64(len(p))-kl {
			return i, fmt.Errorf("%w: entry %d overruns payload", ErrMalformed, i)
		}
		key := p[:kl:kl]
		val := p[kl : kl+vl : kl+vl]
		p = p[kl+vl:]
		if fn != nil {
			if err := fn(i, key, val); err != nil {
				return i, err
			}
		}
	}
	if len(p) != 0 {
		return n, fmt.Errorf("%w: %d trailing bytes", ErrMalformed, len(p))
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
