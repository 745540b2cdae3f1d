// Package synthbench is the regression gate's own synthetic benchmark: a
// stand-in for writegc's hot paths (allocate-and-copy into a bump-allocated
// chunk, or into a fresh heap object) that calls slowdown.Inject, so the gate
// can be calibrated (false alarms, detection of an injected slowdown) before,
// and independently of, the real gate-set benchmarks.
//
// Only Chunk.Copy (kind=arena) calls slowdown.Inject: HeapCopy (kind=heap) is
// never slowed, so it is an A/A control inside every slowdown run.
//
// Cache-miss injection: every Copy also reads one byte of a probe region, at
// offset ops x missStride masked by probeMask: in a normal build the same
// byte of a 64-byte array every op, with the gatemiss tag a new cache line of
// a 64 MiB region every op (1M ops before it wraps). The instructions are the
// same in both (the stride, mask and region are variables, not constants),
// so under callgrind only the miss counts differ. On Linux the gatemiss
// region is an anonymous mapping outside the Go heap, so the collector's
// pacing does not change either (elsewhere it is a heap allocation).
//
// Invariants: the work per operation is fixed by the row's value size (a
// 16 B key and a 100 B value are copied and both hashed, about 100-200 ns
// and 1,000 instructions, the order of a memtable Put; the 1 KB rows about
// 8,600 instructions); kind=arena allocates nothing per op, kind=heap exactly
// one object of the value's size per op. Nothing here is safe for
// concurrent use; benchmarks run it from one goroutine.
package synthbench

import "github.com/writegc/writegc/internal/slowdown"

// chunkSize is the bump chunk's size; it wraps around when full.
const chunkSize = 2 << 20

// probeSink keeps the probe read alive (written only: U1000 cannot see
// that the write is the point).
//
//lint:ignore U1000 the write keeps the probe's load
var probeSink byte

// Chunk is a bump allocator over one fixed chunk. Not safe for concurrent use;
// allocations are overwritten after the chunk wraps (2 MiB later).
type Chunk struct {
	buf [chunkSize]byte
	off int
	ops int // Copy calls, for the probe offset
}

// Copy copies key and value into the chunk and returns the hash of both and
// the value's copy.
func (c *Chunk) Copy(key, value []byte) (uint64, []byte) {
	n := len(key) + len(value)
	if c.off+n > chunkSize {
		c.off = 0
	}
	dst := c.buf[c.off : c.off+n : c.off+n]
	copy(dst, key)
	copy(dst[len(key):], value)
	c.off += n
	probeSink += probe[(c.ops*missStride)&probeMask]
	c.ops++
	slowdown.Inject(slowdown.GateSynth)
	return hash(dst), dst[len(key):]
}

// HeapCopy copies value into a new heap object and returns the hash of key
// and value and the copy.
func HeapCopy(key, value []byte) (uint64, []byte) {
	dst := make([]byte, len(value))
	copy(dst, value)
	return hash(key) ^ hash(dst), dst
}

// hash is FNV-1a.
func hash(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}
